/**
 * The methods of the adapter protocol (PROTOCOL_VERSION in ../adapter.ts) and their schema checks. Shared
 * by both ends: the harness's JSON-RPC adapter and any TypeScript implementation serving itself over stdio.
 * Each method has one schema file in this folder with `$defs/params` and `$defs/result`.
 */
import { SCHEMA_BASE, validate, type SchemaProblem } from '../loader.ts';

/** Harness to implementation: one per operation of the `Adapter` interface. `describe` is the handshake. */
export const ADAPTER_METHODS = ['describe', 'construct', 'cast', 'invoke', 'send', 'fork', 'loom', 'thread', 'mutate', 'reopen', 'overlay', 'export_loom', 'logs', 'dispose'] as const;
export type AdapterMethod = (typeof ADAPTER_METHODS)[number];

/**
 * Implementation to harness: requests answered by the `Host` given to construct. `host.event` is one
 * too when the implementation declares `bounded-events` (the answer is the acknowledgement).
 */
export const HOST_METHODS = ['host.queryCrystal', 'host.callGate', 'host.sleep', 'host.event'] as const;
export type HostMethod = (typeof HOST_METHODS)[number];

/** Implementation to harness: notifications (no id, no answer); `host.event` without `bounded-events`. */
export const HOST_NOTIFICATIONS = ['host.event'] as const;
export type HostNotification = (typeof HOST_NOTIFICATIONS)[number];

export type ProtocolMethod = AdapterMethod | HostMethod | HostNotification;

const KNOWN: readonly string[] = [...ADAPTER_METHODS, ...HOST_METHODS, ...HOST_NOTIFICATIONS];

export function isProtocolMethod(name: string): name is ProtocolMethod {
  return KNOWN.includes(name);
}

/** Problems of one message part against its method's schema; an empty list means valid. */
export function checkPart(method: ProtocolMethod, part: 'params' | 'result', value: unknown): SchemaProblem[] {
  const result = validate(`${SCHEMA_BASE}protocol/${method}.schema.json#/$defs/${part}`, value);
  return result.ok ? [] : result.problems;
}

/** The four kinds of line (envelope.schema.json), told apart by which members are present. */
export type EnvelopeKind = 'request' | 'notification' | 'success' | 'failure';

export function envelopeKind(message: Record<string, unknown>): EnvelopeKind {
  if ('method' in message) return 'id' in message ? 'request' : 'notification';
  return 'error' in message ? 'failure' : 'success';
}

/** Problems of a parsed line against the envelope of its kind (one branch, so the problems are few and to the point). */
export function checkEnvelope(message: unknown): { kind?: EnvelopeKind; problems: SchemaProblem[] } {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    return { problems: [{ pointer: '/', message: 'must be a JSON object (batches are not used)', keyword: 'type' }] };
  }
  const kind = envelopeKind(message as Record<string, unknown>);
  const result = validate(`${SCHEMA_BASE}protocol/envelope.schema.json#/$defs/${kind}`, message);
  return { kind, problems: result.ok ? [] : result.problems };
}

import type { GateCallRecord, GateError } from '../../schemas/index.ts';
import type { Redactor } from '../production/redaction.ts';
import { atLeast, type Draft } from './draft.ts';

/**
 * A gate call record in the shape of 0.2.0 and later (§4.3 of both drafts): one per gate call, in call
 * order, with the arguments and the result as text. The reference adds two medium fields: the call's
 * `tool_call_id`, which links the record to the LLM's tool call (LLM-7) so a fork's context can be
 * rebuilt exactly (LOOM-4), and, on a failure, the `error` it was thrown with, so a code fork's replay
 * throws the same error again (LOOM-13). Mediums may add fields; these add nothing the spec forbids.
 */
export interface GateCallRecordText {
  gate_name: string;
  /** The arguments as JSON text. */
  arguments: string;
  /** The gate's value as JSON text (empty when it returned nothing), or the error's message. */
  result: string;
  is_error: boolean;
  tool_call_id: string;
  error?: GateError;
}

/** A record as a turn stores it: the 0.1.0 shape, or the 0.2.0+ text shape. */
export type StoredGateCallRecord = GateCallRecord | GateCallRecordText;

/**
 * The records a turn stores, by the cantrip's draft. Mediums make every record in one shape, the
 * reference's working one (`{tool_call_id, gate, arguments, ok, result | error}`, values as values);
 * this is where a turn's records take the draft's shape.
 *
 * - 0.1.0: as made. The seed shows `{tool_call_id, gate, ok, result, error}` in §4.3 with no MUST.
 * - 0.2.0 and 0.3.1: `{gate_name, arguments, result, is_error}` with text (CIRCLE-4/CIRCLE-7 and the
 *   observation contract of §4.3), plus the medium fields above. With a redactor (PROD-8) the text
 *   passes through it: a secret does not reach the loom or its exports.
 *
 * The stored type stays the kit's `GateCallRecord` (schemas/records.ts): a text record fits its
 * optional fields only through a cast, done here once.
 */
export function recordsForDraft(draft: Draft, records: readonly GateCallRecord[], redact?: Redactor): GateCallRecord[] {
  if (!atLeast(draft, '0.2.0')) return [...records];
  return records.map((record) => asText(record, redact) as unknown as GateCallRecord);
}

function asText(record: GateCallRecord, redact: Redactor = (text) => text): GateCallRecordText {
  const text: GateCallRecordText = {
    gate_name: record.gate,
    arguments: redact(JSON.stringify(record.arguments ?? {}) ?? '{}'),
    result: redact(record.ok ? (record.result === undefined ? '' : (JSON.stringify(record.result) ?? '')) : (record.error?.message ?? '')),
    is_error: !record.ok,
    tool_call_id: record.tool_call_id,
  };
  if (!record.ok && record.error) text.error = { ...record.error, message: redact(record.error.message) };
  return text;
}

/**
 * A stored record read back in the working shape, whichever draft wrote it: what the reference's own
 * readers (a fork's context, a code fork's replay, fold digests, truncation summaries) use.
 */
export function readRecord(stored: StoredGateCallRecord): GateCallRecord {
  if (!('gate_name' in stored)) return stored;
  const args = parseText(stored.arguments);
  if (stored.is_error) {
    return { tool_call_id: stored.tool_call_id, gate: stored.gate_name, arguments: args, ok: false, error: stored.error ?? { name: 'Error', message: stored.result } };
  }
  return { tool_call_id: stored.tool_call_id, gate: stored.gate_name, arguments: args, ok: true, ...(stored.result === '' ? {} : { result: parseText(stored.result) }) };
}

/** Every record of a turn read back ({@link readRecord}). */
export function readRecords(stored: readonly StoredGateCallRecord[] | readonly GateCallRecord[]): GateCallRecord[] {
  return (stored as readonly StoredGateCallRecord[]).map(readRecord);
}

function parseText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

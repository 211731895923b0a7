/**
 * Helpers to build and seal {@link Turn} records. The loop fills a turn in; the loom seals it on append.
 */
import type { CallRecord, Turn, TurnMetadata, Usage } from '../../schemas/records.ts';
import { sealedCopy } from '../freeze.ts';
import { uniqueId } from '../unique-id.ts';

/** A fresh, globally unique turn id (LOOM-2): `turn_` and a unique suffix (`uniqueId` in reference/unique-id.ts). */
export function newTurnId(): string {
  return uniqueId('turn');
}

/**
 * Metadata with zero usage and zero duration, stamped with `now` (LOOM-9). Used for `call` turns, which
 * cost nothing, and as a starting point for a turn still being measured. Pass `now` from an injected clock.
 */
export function emptyMetadata(now?: Date): TurnMetadata {
  return { tokens_prompt: 0, tokens_completion: 0, tokens_cached: 0, duration_ms: 0, timestamp: timestamp(now) };
}

/** Turn metadata from a crystal's usage and the turn's measured wall-clock duration (LOOM-9, PROD-3). */
export function usageMetadata(usage: Usage, durationMs: number, now?: Date): TurnMetadata {
  return {
    tokens_prompt: usage.prompt,
    tokens_completion: usage.completion,
    tokens_cached: usage.cached,
    duration_ms: durationMs,
    timestamp: timestamp(now),
  };
}

/** The last time stamp written, so turns recorded within one millisecond share one string. */
let lastStamp = { ms: Number.NaN, iso: '' };

/** `now` (the current time by default) as an ISO 8601 string in UTC. */
function timestamp(now?: Date): string {
  if (now !== undefined) return now.toISOString();
  const ms = Date.now();
  if (ms !== lastStamp.ms) lastStamp = { ms, iso: isoTime(new Date(ms)) };
  return lastStamp.iso;
}

/**
 * What `date.toISOString()` gives (`2025-01-01T00:00:00.000Z`) for years 0 to 9999, which covers any
 * clock. Written out because the built-in costs about 0.2 ms the first time a process calls it, which
 * is a tenth of a short cast in a fresh process.
 */
export function isoTime(date: Date): string {
  const two = (n: number): string => (n < 10 ? `0${n}` : `${n}`);
  const millis = date.getUTCMilliseconds();
  return `${String(date.getUTCFullYear()).padStart(4, '0')}-${two(date.getUTCMonth() + 1)}-${two(date.getUTCDate())}T${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())}.${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
}

/**
 * A deep, JSON-canonical, frozen copy of `turn`: exactly what a JSONL loom would give back on reload, so
 * memory and disk agree, and later edits to the caller's object cannot reach the stored one (LOOM-3).
 * Throws a TypeError naming the turn when it cannot be serialized (a cycle, a BigInt...).
 */
export function sealTurn(turn: Turn): Turn {
  try {
    return sealedCopy(turn);
  } catch (error) {
    throw new TypeError(`turn ${String(turn.id)}: not JSON-serializable (${(error as Error).message})`, { cause: error });
  }
}

/**
 * The `call` turn that records a cantrip's call in the loom (CALL-4): no entity, sequence 0, nothing
 * said or observed. `parentId` is null for a top-level cantrip and the spawning turn for a child (COMP-5).
 */
export function callTurn(fields: { id: string; parentId: string | null; cantripId: string; call: CallRecord; now?: Date }): Turn {
  return {
    id: fields.id,
    parent_id: fields.parentId,
    cantrip_id: fields.cantripId,
    entity_id: null,
    role: 'call',
    sequence: 0,
    utterance: '',
    observation: '',
    gate_calls: [],
    metadata: emptyMetadata(fields.now),
    reward: null,
    terminated: false,
    truncated: false,
    call: fields.call,
  };
}

/**
 * Helpers to build and seal {@link Turn} records. The loop fills a turn in; the loom seals it on append.
 */
import { randomUUID } from 'node:crypto';
import type { CallRecord, Turn, TurnMetadata, Usage } from '../../schemas/records.ts';
import { sealedCopy } from '../freeze.ts';

/** A fresh, globally unique turn id (LOOM-2): `turn_` followed by a random UUID. */
export function newTurnId(): string {
  return `turn_${randomUUID()}`;
}

/**
 * Metadata with zero usage and zero duration, stamped with `now` (LOOM-9). Used for `call` turns, which
 * cost nothing, and as a starting point for a turn still being measured. Pass `now` from an injected clock.
 */
export function emptyMetadata(now: Date = new Date()): TurnMetadata {
  return { tokens_prompt: 0, tokens_completion: 0, tokens_cached: 0, duration_ms: 0, timestamp: now.toISOString() };
}

/** Turn metadata from a crystal's usage and the turn's measured wall-clock duration (LOOM-9, PROD-3). */
export function usageMetadata(usage: Usage, durationMs: number, now: Date = new Date()): TurnMetadata {
  return {
    tokens_prompt: usage.prompt,
    tokens_completion: usage.completion,
    tokens_cached: usage.cached,
    duration_ms: durationMs,
    timestamp: now.toISOString(),
  };
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

/**
 * Builders of sample turns for tests and benchmarks of the loom. Not part of the public API (not
 * re-exported): the loop builds real turns.
 */
import type { Turn } from '../../schemas/records.ts';
import { callTurn, emptyMetadata } from './turn.ts';

const FIXED_TIME = new Date('2025-01-01T00:00:00.000Z');

/** The `call` turn of a cantrip (CALL-4): entity null, sequence 0. */
export function sampleCallTurn(id: string, parent_id: string | null = null, cantrip_id = 'cantrip_1'): Turn {
  const call = { system_prompt: 'You are a careful assistant.', hyperparameters: { temperature: 0 } };
  return callTurn({ id, parentId: parent_id, cantripId: cantrip_id, call, now: FIXED_TIME });
}

/** A `crystal` turn of entity `entity_id`, with one echo gate call, overridable field by field. */
export function sampleCrystalTurn(id: string, parent_id: string | null, overrides: Partial<Turn> = {}): Turn {
  return {
    id,
    parent_id,
    cantrip_id: 'cantrip_1',
    entity_id: 'entity_1',
    role: 'crystal',
    sequence: 1,
    utterance: 'echo({"text":"hi"})',
    observation: 'hi',
    gate_calls: [{ tool_call_id: `call_${id}`, gate: 'echo', arguments: { text: 'hi' }, ok: true, result: 'hi' }],
    metadata: { tokens_prompt: 120, tokens_completion: 30, tokens_cached: 0, duration_ms: 15, timestamp: FIXED_TIME.toISOString() },
    reward: null,
    terminated: false,
    truncated: false,
    ...overrides,
  };
}

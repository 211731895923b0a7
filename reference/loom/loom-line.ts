/**
 * A structural check of one loom line: only what the loom itself relies on (ids, parent links, reward
 * values). Full field-by-field validation belongs to `schemas/loom-line.schema.json`; this check keeps
 * a loom from indexing a record it could not walk.
 */
import type { LoomLine } from '../../schemas/records.ts';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A reward is a finite number or null (LOOM-3: the one value that may change after append). */
export function rewardProblem(reward: unknown): string | undefined {
  if (reward === null) return undefined;
  if (typeof reward === 'number' && Number.isFinite(reward)) return undefined;
  return `reward must be a finite number or null, got ${JSON.stringify(reward) ?? String(reward)}`;
}

/** Why `turn` cannot be stored, or undefined when its id and parent link are usable (LOOM-2). */
export function turnProblem(turn: unknown): string | undefined {
  if (!isRecord(turn)) return 'turn must be an object';
  if (typeof turn.id !== 'string' || turn.id === '') return 'turn.id must be a non-empty string';
  if (turn.parent_id !== null && (typeof turn.parent_id !== 'string' || turn.parent_id === '')) {
    return `turn ${turn.id}: parent_id must be a non-empty string or null`;
  }
  const reward = rewardProblem(turn.reward);
  return reward === undefined ? undefined : `turn ${turn.id}: ${reward}`;
}

/** Why `value` is not a usable {@link LoomLine}, or undefined when it is. */
export function loomLineProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return 'line must be a JSON object';
  if (value.kind === 'turn') return turnProblem(value.turn);
  if (value.kind === 'reward') {
    if (typeof value.turn_id !== 'string' || value.turn_id === '') return 'reward line: turn_id must be a non-empty string';
    const reward = rewardProblem(value.reward);
    return reward === undefined ? undefined : `reward line: ${reward}`;
  }
  return `line kind must be "turn" or "reward", got ${JSON.stringify(value.kind) ?? 'nothing'}`;
}

/** Parses one line of text into a {@link LoomLine}; returns the line or the reason it is unusable. */
export function parseLoomLine(text: string): { line: LoomLine } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `not valid JSON (${(error as Error).message})` };
  }
  const problem = loomLineProblem(value);
  return problem === undefined ? { line: value as LoomLine } : { problem };
}

/**
 * Wards: restrictions the circle enforces on the loop, outside the entity's reach (§4.4, CIRCLE-6).
 * Every field is optional; an absent field means no such restriction.
 */
export interface Wards {
  /** Crystal turns allowed in one cast. */
  readonly maxTurns?: number;
  /** Wall-clock limit on one cast, in milliseconds. */
  readonly timeoutMs?: number;
  /** Prompt plus completion tokens allowed over the entity's life. */
  readonly maxTokens?: number;
  /** How many levels of children may still be spawned; 0 removes the composition gates (COMP-6). */
  readonly maxDepth?: number;
  /** Children of one batch running at once. */
  readonly maxConcurrency?: number;
  /** Gates taken out of the circle. */
  readonly removeGates?: readonly string[];
  /** Code medium: deadline of one evaluation, memory ceiling, and output cap. */
  readonly evalTimeoutMs?: number;
  readonly memoryLimitBytes?: number;
  readonly maxOutputChars?: number;
  /** Gate calls the verifiers may refuse in a row before the cast is truncated (LOOP-4); see verifiers.ts. */
  readonly maxRejections?: number;
}

const NUMERIC = ['maxTurns', 'timeoutMs', 'maxTokens', 'maxDepth', 'maxConcurrency', 'evalTimeoutMs', 'memoryLimitBytes', 'maxOutputChars', 'maxRejections'] as const;

/**
 * CIRCLE-2, LOOP-2: a ward that guarantees the loop ends whatever the entity does. A turn cap or a
 * wall-clock limit qualifies; a token budget alone does not, since a crystal may report no usage.
 */
export function hasTruncationWard(wards: Wards): boolean {
  return isPositive(wards.maxTurns) || isPositive(wards.timeoutMs);
}

/**
 * WARD-1: wards of a parent and a child circle combined so that the child is never looser than the
 * parent: every number takes the smaller value, and a gate removed by either side stays removed.
 */
export function composeWards(parent: Wards, child: Wards): Wards {
  const composed: Record<string, unknown> = {};
  for (const key of NUMERIC) {
    const values = [parent[key], child[key]].filter((value): value is number => value !== undefined);
    if (values.length > 0) composed[key] = Math.min(...values);
  }
  const removed = [...new Set([...(parent.removeGates ?? []), ...(child.removeGates ?? [])])];
  if (removed.length > 0) composed.removeGates = removed;
  return Object.freeze(composed) as Wards;
}

function isPositive(value: number | undefined): boolean {
  return value !== undefined && Number.isFinite(value) && value > 0;
}

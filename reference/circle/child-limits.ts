import type { Medium } from './medium/medium.ts';

/**
 * Child-circle wards: limits, fixed when a circle is built, on the circle any child spawned from it may
 * get. They are wards on composition: where COMP-1 says a child's circle is a subset of its parent's and
 * WARD-1 says a child's wards only tighten, these say how much tighter, and which parts the parent never
 * hands down. The idea comes from the Elixir runtime's declaration-time child wards (seed 000).
 * A circle holds them (circle.ts); composition/admit-child.ts refuses a child that breaks them.
 */
export interface ChildLimits {
  /** The mediums a child circle may have. */
  readonly mediums?: readonly Medium['kind'][];
  /** When given, the only gates a child circle may hold; `done` is always allowed (CIRCLE-1). */
  readonly allowGates?: readonly string[];
  /** Gates a child circle may not hold. */
  readonly denyGates?: readonly string[];
  /**
   * Ceilings on the child's wards as composed with the parent's (WARD-1): the child must have each
   * such ward, at or under its ceiling. A child without it is refused rather than given it silently,
   * so what a child may do is always what its request and its parent say.
   */
  readonly maxTurns?: number;
  readonly timeoutMs?: number;
  readonly maxTokens?: number;
  readonly maxDepth?: number;
}

import type { Circle } from '../circle/circle.ts';
import { DONE } from '../circle/done.ts';
import type { Medium } from '../circle/medium/medium.ts';
import type { Wards } from '../circle/wards.ts';
import { CantripError } from '../errors.ts';

/**
 * Child-circle wards: limits, fixed when a circle is built, on the circle any child spawned from it may
 * get. They are wards on composition: where COMP-1 says a child's circle is a subset of its parent's and
 * WARD-1 says a child's wards only tighten, these say how much tighter, and which parts the parent never
 * hands down. The idea comes from the Elixir runtime's declaration-time child wards (seed 000).
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

const CEILINGS = ['maxTurns', 'timeoutMs', 'maxTokens', 'maxDepth'] as const satisfies readonly (keyof ChildLimits & keyof Wards)[];

/** Why `child` breaks `limits`, or undefined when it keeps to them. */
export function childLimitBreach(limits: ChildLimits, child: Circle): string | undefined {
  if (limits.mediums && !limits.mediums.includes(child.medium.kind)) return `a ${child.medium.kind} circle is not an allowed medium for a child`;
  const gates = [...child.gates.keys()].filter((name) => name !== DONE);
  const denied = gates.find((name) => limits.denyGates?.includes(name));
  if (denied !== undefined) return `gate '${denied}' is denied to children`;
  const unlisted = limits.allowGates && gates.find((name) => !limits.allowGates!.includes(name));
  if (unlisted) return `gate '${unlisted}' is not on the children's allow list`;
  for (const ward of CEILINGS) {
    const ceiling = limits[ward];
    if (ceiling === undefined) continue;
    const value = child.wards[ward];
    if (value === undefined) return `the child has no ${ward} ward, and its ceiling is ${ceiling}`;
    if (value > ceiling) return `the child's ${ward} of ${value} is over its ceiling of ${ceiling}`;
  }
  return undefined;
}

/**
 * Refuses a child circle that breaks its parent's limits, with `child_refused`. Called with the circle
 * the child would get, before any entity exists: a refused child never queries its crystal and leaves
 * no turn in the loom; the parent sees the refusal as the result of its spawning gate call (COMP-8).
 */
export function admitChild(limits: ChildLimits | undefined, child: Circle): void {
  if (!limits) return;
  const breach = childLimitBreach(limits, child);
  if (breach !== undefined) throw new CantripError('child_refused', `child circle refused: ${breach}`);
}

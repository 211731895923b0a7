import type { Circle } from '../circle/circle.ts';
import { DONE } from '../circle/done.ts';
import type { Wards } from '../circle/wards.ts';
import type { ChildLimits } from '../circle/child-limits.ts';
import { CantripError } from '../errors.ts';

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

/**
 * Load-time checks of `snapshot_loom` on crystal steps (feature loom-during-cast, LOOM-1). A step's
 * snapshot is kept under `snapshots.<name>` beside the snapshots the `snapshot_loom` action takes, so a
 * name used twice would let one read silently overwrite the other and a case judge the wrong loom: each
 * name must be new. Problems are JSON pointers into the case, reported by the loader at file:line:col.
 */
import { actionNames } from './expect-paths.ts';
import { placedSteps } from './script-steps.ts';
import type { Case } from './types.ts';

type Problem = [pointer: string, message: string];

/** A step snapshot named like an action of the case or like another step's snapshot. */
export function checkStepSnapshots(c: Case, at: string): Problem[] {
  const problems: Problem[] = [];
  const actions = actionNames(c.act);
  const seen = new Map<string, string>();
  for (const { pointer, step } of placedSteps(c)) {
    const name = step.snapshot_loom;
    if (name === undefined) continue;
    const here = `${at}${pointer}/snapshot_loom`;
    const earlier = seen.get(name);
    if (actions.has(name)) problems.push([here, `the snapshot name '${name}' is already the name of an action of this case (snapshots.${name} would hold two reads)`]);
    else if (earlier !== undefined) problems.push([here, `the snapshot name '${name}' is already used by the step at ${earlier}`]);
    else seen.set(name, pointer);
  }
  return problems;
}

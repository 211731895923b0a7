/**
 * A crystal step's `snapshot_loom` (feature loom-during-cast): the loom read while the cast that asked
 * is still running, before the step's reply goes back. LOOM-1 asks that each turn be in the loom before
 * the next begins, so at the third query of a cast its first two turns must already be there; a loom
 * read only after the cast cannot tell that from an implementation that writes every turn at the end.
 *
 * The read is the adapter's own `loom()`, made while the adapter is in the middle of `cast` (or `send`,
 * `fork`) and waiting on this query. It is bounded: an adapter that cannot answer it then (one that
 * serves one request at a time waits on the cast it is in) is a finding about the adapter, so the case
 * ends errored with the reason, never failed on LOOM-1. Only an answer lacking turns is a LOOM-1 failure,
 * and that is for the case's expectations on `snapshots.<name>` to judge.
 */
import { jsonCopy } from '../values/index.ts';
import type { DriveState } from './drive-state.ts';
import { stretchedForLoad } from '../values/index.ts';

/**
 * How long the mid-cast `loom()` may take. The read is local to the implementation (the reference and
 * the variant answer in well under a millisecond; a process adapter adds one stdio round trip), so a
 * bound of seconds is met on a loaded machine; half the default case time leaves the case its rest to
 * finish. Missing it makes the case errored, never failed: no verdict depends on how fast it was.
 */
export const MID_CAST_LOOM_READ_MS = 5000;

/** Reads the loom into `snapshots.<name>`; a read refused, failed or not answered in `boundMs` becomes an error fault of the drive. */
export async function snapshotMidCast(state: DriveState, name: string, boundMs = stretchedForLoad(MID_CAST_LOOM_READ_MS)): Promise<void> {
  const problem = (what: string): void => {
    state.faults.push({ kind: 'error', message: `snapshot '${name}': loom() read while a cast was running ${what}; the implementation declares loom-during-cast, so its adapter must answer loom() during a crystal query (the case is not judged)` });
  };
  let timer: NodeJS.Timeout | undefined;
  const read = state.adapter.loom();
  // An answer that comes after the bound is dropped; its failure, if any, must not go unhandled.
  read.catch(() => undefined);
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), boundMs);
    timer.unref?.();
  });
  try {
    const result = await Promise.race([read, late]);
    if (result === 'late') return problem(`was not answered within ${boundMs} ms`);
    if (!result.ok) return problem(`was refused (${result.error.code ?? 'no code'})`);
    state.record.snapshots[name] = jsonCopy(result.value.turns);
  } catch (error) {
    problem(`failed (${error instanceof Error ? error.name : 'error'})`);
  } finally {
    clearTimeout(timer);
  }
}

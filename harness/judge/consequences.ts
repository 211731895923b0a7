/**
 * Which of a case's expectations a departure found while driving leaves unjudged. A fault that names its
 * rule (harness/drive/mock-crystal.ts, harness/drive/course.ts) says what it departed: by default the
 * whole run (the script's replies went astray, so every later read is of a run that is not the case's);
 * a loom departure (a turn stored that did not happen, or a reply's turn never written) only the loom's
 * record, while the requests, outcomes and errors are still what the case scripted. An expectation that
 * reads a departed part is the departure's consequence: its rule is not blamed, and a pass there is no
 * evidence either. Every other expectation is still judged, so a departure never hides a rule broken
 * elsewhere.
 */
import type { DepartedPart } from '../drive/mock-crystal.ts';

/** What a fault needs to say for its consequences to be found. */
export interface Departure {
  rules?: string[];
  departs?: DepartedPart[];
}

/** The run record's roots each part covers: the loom itself, the threads and mid-cast snapshots read from it. */
const ROOTS_OF: Record<DepartedPart, readonly string[]> = { loom: ['loom', 'threads', 'snapshots'] };

/** The root of a path (`loom.cast(a)[0]` → `loom`). */
function rootOf(path: string): string {
  return /^[A-Za-z_][\w-]*/.exec(path.trim())?.[0] ?? '';
}

/** Every path an expectation reads: its own, and the one a `same_as` compares it with. */
function pathsRead(e: { path: string; matcher: string; expected: unknown }): string[] {
  const other = e.matcher === 'same_as' && typeof e.expected === 'object' && e.expected !== null ? (e.expected as Record<string, unknown>).same_as : undefined;
  return typeof other === 'string' ? [e.path, other] : [e.path];
}

/**
 * The faults an expectation is a consequence of: every named fault that departed the whole run, and every
 * one that departed a part the expectation reads. Empty: the expectation is judged.
 */
export function consequenceOf<F extends Departure>(e: { path: string; matcher: string; expected: unknown }, faults: readonly F[]): F[] {
  return faults.filter((f) => {
    if (f.rules === undefined || f.rules.length === 0) return false;
    if (f.departs === undefined) return true;
    const roots = new Set(f.departs.flatMap((p) => ROOTS_OF[p]));
    return pathsRead(e).some((p) => roots.has(rootOf(p)));
  });
}

/**
 * The rules of a departure that left the loom's record unreliable while the script held, or undefined:
 * the ambient checks that read the loom are then not judged (harness/judge/invariants.ts).
 */
export function loomDeparture(faults: readonly Departure[]): string[] | undefined {
  const f = faults.find((x) => x.rules !== undefined && x.rules.length > 0 && x.departs?.includes('loom') === true);
  return f?.rules;
}

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
import type { DepartedPart } from '../drive/index.ts';

/** What a fault needs to say for its consequences to be found. */
export interface Departure {
  rules?: string[];
  departs?: DepartedPart[];
}

/** The loom's roots: the loom itself, the threads and mid-cast snapshots read from it. */
const LOOM_ROOTS: ReadonlySet<string> = new Set(['loom', 'threads', 'snapshots']);
/** Roots whose next segment names an action: what that action came back with. */
const ACTION_ROOTS: ReadonlySet<string> = new Set(['outcomes', 'errors', 'failures', 'entities', 'forks']);
/** Roots whose next segment names a lane, each entry one query in arrival order. */
const LANE_ROOTS: ReadonlySet<string> = new Set(['requests', 'replies']);

/** The root of a path, the segment after it, and the index right after that (`requests.parent[-1].x` → requests, parent, -1). */
function partsOf(path: string): { root: string; name?: string; index?: number } {
  const m = /^([A-Za-z_][\w-]*)(?:\.([^.[\s]+))?(?:\[(-?\d+)\])?/.exec(path.trim());
  return { root: m?.[1] ?? '', ...(m?.[2] !== undefined && { name: m[2] }), ...(m?.[3] !== undefined && { index: Number(m[3]) }) };
}

/** What the judge needs of the run to place an index counted from the end: how many requests a lane holds. */
export interface RunCounts {
  requestsIn(lane: string): number;
}

/** Whether a path reads something the departed part left unreliable. */
function readsDeparted(path: string, part: DepartedPart, counts: RunCounts | undefined): boolean {
  const { root, name, index } = partsOf(path);
  if (part === 'requests') return root === 'requests';
  // A loom with no call turn: what reads the call turn by its role, the loom's roots (where it should be) or a thread (which starts from it).
  if (part === 'call-turn') return root === 'threads' || (LOOM_ROOTS.has(root) && /\[(?:role=(?:call|identity)|parent_id=null)\]/.test(path));
  if (LOOM_ROOTS.has(root)) return true;
  if (part === 'loom') return false;
  if (ACTION_ROOTS.has(root)) return name === undefined || name === part.action;
  if (!LANE_ROOTS.has(root)) return true;
  if (name !== part.lane) return name === undefined;
  // One query of the lane: as scripted if it came up to the departed action, or, counted from the end, after it.
  if (index === undefined) return true;
  if (index >= 0) return index > part.through;
  return counts === undefined || counts.requestsIn(part.lane) + index <= part.through;
}

/** Every path an expectation reads: its own, and each one its matchers name (a `same_as`, a path inside `any_of`). */
export function pathsRead(expectation: unknown): string[] {
  const found: string[] = [];
  const walk = (v: unknown, key?: string): void => {
    if (typeof v === 'string' && (key === 'path' || key === 'same_as')) found.push(v);
    else if (Array.isArray(v)) v.forEach((x) => walk(x));
    else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  walk(expectation);
  return found;
}

/**
 * The faults an expectation reading `paths` (pathsRead) is a consequence of: every named fault that
 * departed the whole run, and every one that departed a part it reads. Empty: the expectation is judged.
 */
export function consequenceOf<F extends Departure>(paths: readonly string[], faults: readonly F[], counts?: RunCounts): F[] {
  return faults.filter((f) => {
    if (f.rules === undefined || f.rules.length === 0) return false;
    if (f.departs === undefined) return true;
    return paths.some((p) => f.departs!.some((part) => readsDeparted(p, part, counts)));
  });
}

/**
 * The rules of a departure that left the loom's record unreliable while the script held, or undefined:
 * the ambient checks that read the loom are then not judged (harness/judge/invariants.ts).
 */
export function loomDeparture(faults: readonly Departure[]): string[] | undefined {
  const f = faults.find((x) => x.rules !== undefined && x.rules.length > 0 && x.departs !== undefined && x.departs.some((p) => p !== 'call-turn' && p !== 'requests'));
  return f?.rules;
}

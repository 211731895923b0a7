/**
 * Bounds on how long a test of this project may take before it counts as hung. No verdict is a timing
 * (issue 23, item 9): a bound only has to be wide enough that a working test on a loaded machine never
 * reaches it. The widths below were measured on an idle 2-core machine; a loaded machine runs the same
 * test up to (1-minute load average / cores) times slower (at load 14 on 2 cores `npm test` took 4.5x its
 * idle time, below the factor 7 this gives), so every bound is stretched by that factor, read once when
 * the test process starts. A hung test still ends, later.
 */
import { loadFactor, stretchedForLoad } from '../values/index.ts';

/** How much slower than idle this machine is likely to run a test right now: at least 1. */
export const LOAD_FACTOR = loadFactor();

/** `idleMs` (a bound that holds on an idle machine) stretched by {@link LOAD_FACTOR}. */
export function hangBound(idleMs: number): number {
  return stretchedForLoad(idleMs, LOAD_FACTOR);
}

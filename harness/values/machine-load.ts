/**
 * The kit's time limits are bounds on a hang, not deadlines under test: a case limit says "a working
 * implementation is done long before this", measured on an idle machine. A loaded machine (a shared CI
 * runner, a laptop building something else) runs the same work up to (1-minute load average / cores) times
 * slower, so each limit is stretched by that factor when it is applied. No verdict then depends on the
 * machine's speed, and a hang still ends, later. Where a real deadline is the subject of a case, the case
 * scales its own times (harness/run/timing-premise.ts).
 */
import { cpus, loadavg } from 'node:os';

/**
 * The machine's cores, read once: `cpus()` reads every core's times from the system on each call, and a
 * limit is stretched for every case (it was about a tenth of a run's own CPU time); the count does not
 * change while the kit runs.
 */
const CORES = Math.max(1, cpus().length);

/** How much slower than idle this machine is likely to run right now: at least 1. */
export function loadFactor(): number {
  return Math.max(1, loadavg()[0]! / CORES);
}

/** A limit that holds on an idle machine, stretched by `factor` (by default the machine's load now). */
export function stretchedForLoad(idleMs: number, factor: number = loadFactor()): number {
  return Math.ceil(idleMs * factor);
}

import { Worker } from 'node:worker_threads';

const BOOT_URL = new URL('./worker-boot.mjs', import.meta.url);

/**
 * Bounds of every sandbox worker (CIRCLE-6). The stack is the point of the worker: asyncify suspends
 * and resumes the whole QuickJS stack through the host stack, and the main thread's ~1 MB is not
 * enough once V8 has optimised the wasm. The heap bound covers the worker's own JS (messages, JSON
 * copies); QuickJS's heap is wasm memory, bounded by `memoryLimitBytes` instead.
 */
export const WORKER_LIMITS = Object.freeze({ stackSizeMb: 32, maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32 });

/** A started worker thread; it may still be loading its modules. */
export interface PooledWorker {
  readonly worker: Worker;
  /** Set once the thread has died or emitted an error; such a worker is never handed out. */
  readonly dead: () => boolean;
  /** How many sandboxes it has served. */
  uses: number;
}

/** Most idle workers kept per process: the warm spare and one recycled from a disposed sandbox. */
const MAX_IDLE = 2;
/** A worker serves at most this many sandboxes, so nothing can accumulate in one thread forever. */
const MAX_USES = 100;

const idle: PooledWorker[] = [];

function spawn(): PooledWorker {
  const worker = new Worker(BOOT_URL, { execArgv: [], resourceLimits: WORKER_LIMITS });
  let dead = false;
  const pooled: PooledWorker = { worker, dead: () => dead, uses: 0 };
  const die = (): void => {
    dead = true;
    const at = idle.indexOf(pooled);
    if (at !== -1) idle.splice(at, 1);
  };
  // Without an 'error' listener a crash of an idle worker would be rethrown on the main thread.
  worker.on('error', die);
  worker.on('exit', die);
  // An idle worker must never keep the process alive; the handle refs it while it waits for an answer.
  worker.unref();
  return pooled;
}

/**
 * Hands out a worker for a new sandbox or a restart. Starting a thread and loading QuickJS takes far
 * longer than the 30 ms a sandbox may take to create, so idle workers are kept ready: the most recently
 * returned one first (its engine module is already compiled); see {@link keepSpare}.
 */
export function takeWorker(): PooledWorker {
  let taken: PooledWorker | undefined;
  while ((taken = idle.pop()) && taken.dead());
  taken ??= spawn();
  taken.uses += 1;
  return taken;
}

/** Starts a spare in the background when none is idle; called once a taken worker is up, so the two boots do not compete. */
export function keepSpare(): void {
  if (idle.length === 0) idle.push(spawn());
}

/**
 * Takes back the worker of a disposed sandbox. The caller has already told it to `reset` (drop its
 * engine); it is kept if there is room and it has not served too many sandboxes, else terminated.
 */
export function returnWorker(pooled: PooledWorker): void {
  if (pooled.dead()) return;
  if (idle.length < MAX_IDLE && pooled.uses < MAX_USES) {
    pooled.worker.unref();
    idle.push(pooled);
  } else void pooled.worker.terminate();
}

/** Ends every idle worker (e.g. to measure a cold start); the next sandbox then starts cold. */
export function dropIdleWorkers(): void {
  for (const pooled of idle.splice(0)) void pooled.worker.terminate();
}

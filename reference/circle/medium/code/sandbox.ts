import { CantripError } from '../../../errors.ts';
import { resolveOptions } from './options.ts';
import type { ToWorker } from './protocol.ts';
import type { Evaluation, EvaluationError, Sandbox, SandboxOptions } from './types.ts';
import { WorkerHandle, type WorkerOutcome } from './worker-handle.ts';

/** Test access to a sandbox's worker (to crash it on purpose); not part of the public interface. */
const handles = new WeakMap<Sandbox, () => Promise<WorkerHandle>>();

/**
 * Creates one entity's code medium: a QuickJS sandbox on its own asyncify wasm module, running in its
 * own worker thread (§4.1, §4.7).
 *
 * - CIRCLE-9: evaluations share one global scope, so top-level `var`/`let`/`const` and functions
 *   from one turn are there in the next.
 * - CIRCLE-3: gates are plain synchronous functions inside; their async host sides run on this thread
 *   and are awaited by suspending the sandbox. Arguments and results cross as JSON copies.
 * - CIRCLE-5 / CIRCLE-7: every gate call becomes one ordered record, failures included.
 * - LOOP-3: `done(answer)` records its call and ends the evaluation at once, through try/catch.
 * - CIRCLE-6: deadline, memory, stack and output limits are enforced by the sandbox, not the entity;
 *   the deadline bounds the program's own running time, so a gate or a child entity may keep it
 *   waiting longer (COMP-2); such waits end with the cast (its `signal`) or the gate budget;
 *   no `require`, no module loader, no `process`, no timers, no network. The worker thread contains
 *   what the engine cannot: a crash of the wasm module or of the worker's native stack, or native work
 *   that ignores the deadline, ends that evaluation and never this process.
 * - LOOP-1: every such failure is still an Evaluation, so the loop goes on with an observation.
 *
 * State survives ordinary failures (throws, timeouts, stack overflows, memory errors). When the engine
 * had to be rebuilt, or the worker crashed (`SandboxCrashed`) or missed the hard deadline
 * (`evalTimeoutMs` + `hardDeadlineGraceMs`, then `TimeoutError`) and was replaced, the evaluation says
 * `reset: true`: earlier variables are gone, injected globals are back.
 */
export async function createSandbox(options: SandboxOptions): Promise<Sandbox> {
  const resolved = resolveOptions(options);
  const init: Extract<ToWorker, { type: 'init' }> = {
    type: 'init',
    gateNames: resolved.gateNames,
    hostGates: [...resolved.gates.keys()],
    globalsJson: resolved.globalsJson,
    limits: resolved.limits,
  };
  const start = (): Promise<WorkerHandle> => WorkerHandle.start(init, resolved.gates);
  let current: Promise<WorkerHandle> = start();
  await current;
  let disposed = false;
  // One evaluation at a time: the asyncify stack of a module cannot interleave two runs.
  let queue: Promise<unknown> = Promise.resolve();

  const replace = (old: WorkerHandle): void => {
    old.terminate();
    if (disposed) return;
    current = start();
    // A failed restart surfaces at the next evaluate; it must not be an unhandled rejection meanwhile.
    current.catch(() => undefined);
  };

  const evaluateNow = async (code: string, idPrefix: string, signal: AbortSignal | undefined): Promise<Evaluation> => {
    if (disposed) throw disposedError();
    let handle: WorkerHandle;
    try {
      handle = await current;
    } catch {
      // The last restart failed: try once more for this evaluation.
      current = start();
      handle = await current;
    }
    const outcome = await handle.evaluate(code, idPrefix, {
      runMs: resolved.limits.evalTimeoutMs,
      graceMs: resolved.hardDeadlineGraceMs,
      gateWaitMs: resolved.limits.gateWaitMs,
      ...(signal ? { signal } : {}),
    });
    if (disposed) throw disposedError();
    if (outcome.kind === 'evaluation') return outcome.evaluation;
    replace(handle);
    return { gate_calls: outcome.gateCalls, output: '', error: lostWorkerError(outcome, resolved.limits.evalTimeoutMs), reset: true };
  };

  const sandbox: Sandbox = {
    evaluate(code, evalOptions) {
      if (typeof code !== 'string') return Promise.reject(new CantripError('sandbox_error', 'evaluate: code must be a string'));
      const idPrefix = evalOptions?.idPrefix;
      if (typeof idPrefix !== 'string' || idPrefix === '') {
        return Promise.reject(new CantripError('sandbox_error', 'evaluate: options.idPrefix must be a non-empty string'));
      }
      const signal = evalOptions?.signal;
      if (signal !== undefined && !(signal instanceof AbortSignal)) {
        return Promise.reject(new CantripError('sandbox_error', 'evaluate: options.signal must be an AbortSignal'));
      }
      const next = queue.then(() => evaluateNow(code, idPrefix, signal));
      queue = next.catch(() => undefined);
      return next;
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      current.then((handle) => handle.release(), () => undefined);
    },
  };
  handles.set(sandbox, () => current);
  return sandbox;
}

/** Test hook: makes the sandbox's current worker die as a crash would ('exit' or an uncaught 'throw'). */
export async function crashSandboxWorker(sandbox: Sandbox, how: 'exit' | 'throw'): Promise<void> {
  const handle = handles.get(sandbox);
  if (!handle) throw new CantripError('sandbox_error', 'crashSandboxWorker: not a sandbox made by createSandbox');
  (await handle()).crash(how);
}

function lostWorkerError(outcome: Exclude<WorkerOutcome, { kind: 'evaluation' }>, evalTimeoutMs: number): EvaluationError {
  if (outcome.kind === 'timeout') {
    return { name: 'TimeoutError', message: `the program ran past its ${evalTimeoutMs} ms deadline and did not stop, so the sandbox was restarted and its state reset` };
  }
  return { name: 'SandboxCrashed', message: `the sandbox crashed (${outcome.message}), so it was restarted and its state reset` };
}

function disposedError(): CantripError {
  return new CantripError('sandbox_error', 'evaluate: the sandbox has been disposed');
}

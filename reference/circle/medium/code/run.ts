import type { QuickJSHandle } from 'quickjs-emscripten';
import type { Engine } from './engine.ts';
import { createGateHandler, type GateLedger } from './gate-bridge.ts';
import type { ResolvedLimits } from './limits.ts';
import { capText, OutputBuffer } from './output.ts';
import type { Evaluation, EvaluationError, SandboxGate } from './types.ts';

/** Budget for reading results back (describing the value or error) after the code has stopped. */
const POST_BUDGET_MS = 250;
/** Bound on job-queue passes, so a job queue that refills itself cannot keep the host busy. */
const MAX_JOB_PASSES = 10_000;

/** One evaluation's outcome, plus whether the engine must be rebuilt before the next one. */
export interface RunResult {
  evaluation: Evaluation;
  unhealthy: boolean;
}

/**
 * Runs one snippet as global script code, so top-level declarations persist into later evaluations
 * (CIRCLE-9). Code that uses top-level `await` cannot be a script; it runs as the body of an async
 * function instead (its declarations are then local: the presentation tells the entity so).
 * Promise jobs run within the same deadline, which counts the program's own running time only (time
 * blocked in gates is excluded, CIRCLE-6, COMP-2); a promise that is still pending when nothing is left to
 * settle it is reported, never awaited forever. Leftover jobs after a stop are drained with every
 * gate closed and output ignored, so nothing they do is observed.
 */
export async function runEvaluation(
  engine: Engine,
  code: string,
  idPrefix: string,
  gates: ReadonlyMap<string, SandboxGate>,
  limits: ResolvedLimits,
  clock: () => number,
): Promise<RunResult> {
  const { context, runtime, state } = engine;
  const ledger: GateLedger = { records: [] };
  const output = new OutputBuffer(limits.maxOutputChars);
  state.gate = createGateHandler(gates, idPrefix, state, clock, ledger);
  state.output = (level, line, length) => {
    if (state.phase === 'run' && !state.stopReason) output.add(level, line, length);
  };
  state.stopReason = undefined;
  state.halt = undefined;
  state.gateBudgetMs = limits.gateWaitMs;
  // Pushed back by every gate wait (see gate-bridge.ts): it bounds the program's own running time.
  state.deadline = clock() + limits.evalTimeoutMs;
  state.phase = 'run';

  const handles: QuickJSHandle[] = [];
  let outcome: { value?: QuickJSHandle; error?: QuickJSHandle; pending?: true } = {};
  let unhealthy = false;
  let hostStackOverflow = false;
  try {
    let result = await context.evalCodeAsync(code, 'entity.js', { type: 'global' });
    if (result.error && /\bawait\b/.test(code) && isSyntaxError(engine, result.error)) {
      const retry = await context.evalCodeAsync(`(async () => {\n${code}\n})()`, 'entity.js', { type: 'global' });
      if (retry.error) retry.error.dispose();
      else {
        result.error.dispose();
        result = retry;
      }
    }
    if (result.error) outcome = { error: result.error };
    else outcome = { value: result.value };
    handles.push(result.error ?? result.value);
    for (let pass = 0; pass < MAX_JOB_PASSES && !state.stopReason && runtime.hasPendingJob(); pass++) await engine.runJobs();
    if (outcome.value && !state.stopReason) outcome = settledOutcome(engine, outcome.value, handles);
  } catch (error) {
    // The engine itself failed (a wasm trap or a broken asyncify stack): only a rebuild is safe.
    // Measured on Node 20: once V8 has optimised the asyncify build, its frames are so large that
    // ~30 levels of JS recursion overflow the host stack before QuickJS's own stack limit trips.
    unhealthy = true;
    hostStackOverflow = error instanceof RangeError;
  }

  state.phase = 'post';
  state.postDeadline = performance.now() + POST_BUDGET_MS;
  const evaluation: Evaluation = { gate_calls: ledger.records, output: '' };
  if (ledger.done) evaluation.done = ledger.done;
  else if (hostStackOverflow) evaluation.error = { name: 'RangeError', message: 'recursion too deep: the host stack overflowed, so the sandbox was rebuilt and its state reset' };
  else if (unhealthy) evaluation.error = { name: 'SandboxError', message: 'the sandbox engine failed, so it was rebuilt and its state reset' };
  else if (state.stopReason === 'deadline') evaluation.error = deadlineError(limits.evalTimeoutMs);
  else if (state.stopReason === 'halted') evaluation.error = haltError(state);
  else if (outcome.pending) evaluation.error = { name: 'TimeoutError', message: 'the returned promise can never settle: nothing is left that could resolve it' };
  else if (outcome.error) evaluation.error = readError(engine, outcome.error);
  else if (outcome.value) {
    const value = readValue(engine, outcome.value, limits.maxOutputChars);
    if (value !== undefined) evaluation.value = value;
  }
  evaluation.output = output.toString();
  for (const h of handles) if (h.alive) h.dispose();

  if (!unhealthy) unhealthy = !(await drain(engine)) || (evaluation.error?.name === 'MemoryError' && !probe(engine));
  state.phase = 'idle';
  return { evaluation, unhealthy };
}

function isSyntaxError(engine: Engine, error: QuickJSHandle): boolean {
  const { context } = engine;
  const name = context.getProp(error, 'name');
  const isSyntax = context.typeof(name) === 'string' && context.getString(name) === 'SyntaxError';
  name.dispose();
  return isSyntax;
}

/** A returned promise is unwrapped: its value, its rejection, or `pending` when it can never settle. */
function settledOutcome(engine: Engine, value: QuickJSHandle, handles: QuickJSHandle[]): { value?: QuickJSHandle; error?: QuickJSHandle; pending?: true } {
  const promiseState = engine.context.getPromiseState(value);
  if (promiseState.type === 'fulfilled') {
    if (promiseState.notAPromise) return { value };
    handles.push(promiseState.value);
    return { value: promiseState.value };
  }
  if (promiseState.type === 'rejected') {
    handles.push(promiseState.error);
    return { error: promiseState.error };
  }
  return { pending: true };
}

/** Why the host gave up on a gate call and stopped the program (read through a function: set by the bridge). */
function haltError(state: Engine['state']): EvaluationError {
  return state.halt ? { ...state.halt } : { name: 'TimeoutError', message: 'the program was stopped while it waited for a gate' };
}

function deadlineError(ms: number): EvaluationError {
  return { name: 'TimeoutError', message: `the program ran longer than its ${ms} ms deadline (time waiting in gates not counted) and was interrupted` };
}

function readError(engine: Engine, error: QuickJSHandle): EvaluationError {
  const parsed = callHelper(engine, engine.describeError, error) as { name?: unknown; message?: unknown } | undefined;
  if (!parsed || typeof parsed.name !== 'string' || typeof parsed.message !== 'string') {
    return { name: 'Error', message: 'the code threw a value that could not be read' };
  }
  // QuickJS reports an exhausted heap as InternalError "out of memory"; name it for the entity.
  if (parsed.name === 'InternalError' && parsed.message === 'out of memory') {
    return { name: 'MemoryError', message: 'the sandbox ran out of memory (its heap limit was reached)' };
  }
  return { name: parsed.name, message: parsed.message.slice(0, 2000) };
}

function readValue(engine: Engine, value: QuickJSHandle, cap: number): unknown {
  const parsed = callHelper(engine, engine.describeValue, value) as { json?: string; text?: string } | undefined;
  if (!parsed) return '[value could not be read]';
  if (typeof parsed.json === 'string') return parsed.json.length > cap ? capText(parsed.json, cap) : (JSON.parse(parsed.json) as unknown);
  if (typeof parsed.text === 'string') return capText(parsed.text, cap);
  return undefined;
}

/** Calls a prelude helper under the post-phase budget; undefined when it fails or is interrupted. */
function callHelper(engine: Engine, helper: QuickJSHandle, arg: QuickJSHandle): unknown {
  const { context } = engine;
  const result = context.callFunction(helper, context.undefined, arg);
  if (result.error) {
    result.error.dispose();
    return undefined;
  }
  const text = context.typeof(result.value) === 'string' ? context.getString(result.value) : undefined;
  result.value.dispose();
  return text === undefined ? undefined : (JSON.parse(text) as unknown);
}

/**
 * Discards jobs left queued after a stop (done, deadline, error). In the drain phase the interrupt
 * handler answers "stop" at every poll, so each job ends at its first interrupt check; returns false
 * when the queue still refills itself after the bound.
 */
async function drain(engine: Engine): Promise<boolean> {
  engine.state.phase = 'drain';
  for (let pass = 0; pass < MAX_JOB_PASSES && engine.runtime.hasPendingJob(); pass++) await engine.runJobs();
  return !engine.runtime.hasPendingJob();
}

/** After a memory blow-up: can the engine still run a trivial script? */
function probe(engine: Engine): boolean {
  const { context, state } = engine;
  state.phase = 'post';
  state.postDeadline = performance.now() + POST_BUDGET_MS;
  try {
    const result = context.evalCode('1 + 1', 'probe.js', { type: 'global' });
    if (result.error) {
      result.error.dispose();
      return false;
    }
    const ok = context.typeof(result.value) === 'number' && context.getNumber(result.value) === 2;
    result.value.dispose();
    return ok;
  } catch {
    return false;
  }
}

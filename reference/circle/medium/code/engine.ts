import { newQuickJSAsyncWASMModule } from 'quickjs-emscripten';
import type { QuickJSAsyncContext, QuickJSAsyncRuntime, QuickJSAsyncWASMModule, QuickJSHandle } from 'quickjs-emscripten';
import { createJobRunner, type JobRunner } from './pending-jobs.ts';
import { PRELUDE_SOURCE } from './prelude.ts';
import type { ResolvedLimits } from './limits.ts';

/**
 * Least bound on running the prelude when an engine is built. The prelude is the sandbox's own code, not
 * the entity's, so the bound only guards against a broken build; it is at least the evaluation deadline
 * the circle gives, so a machine slow enough to need a longer deadline has it for the build too (a fixed
 * second cut the build at a load of about 17 per core, and the cast ended truncated with no program run).
 */
const SETUP_BUDGET_MS = 1000;

/** Where an evaluation is: entity code runs only in `run`; `post` reads results; `drain` discards leftover jobs. */
export type Phase = 'idle' | 'run' | 'post' | 'drain';

/** Answers a gate call from inside QuickJS with a JSON envelope (see `prelude.ts`). */
export type GateHandler = (name: string, json: string, problem: string) => string | Promise<string>;

/** Mutable per-evaluation state the host functions and the interrupt handler consult. */
export interface EngineState {
  phase: Phase;
  /**
   * End of the `run` phase (clock ms). The gate bridge pushes it back by every wait in a host gate, so
   * it bounds the program's own running time, not the time it is blocked on a gate or a child entity
   * (CIRCLE-6, COMP-2).
   */
  deadline: number;
  /** What is left of the evaluation's budget for waiting in host gates (ms; see `SandboxLimits.gateWaitMs`). */
  gateBudgetMs: number;
  /** End of the `post` phase, in real `performance.now()` ms: a host safety bound, not a ward. */
  postDeadline: number;
  /**
   * Why the run must end now: `done` was called, the deadline passed, or the host gave up on a gate
   * call (`halted`: the gate budget ran out or the cast was stopped; `halt` says why).
   */
  stopReason: 'done' | 'deadline' | 'halted' | undefined;
  halt?: { name: string; message: string };
  gate: GateHandler;
  output: (level: string, line: string, fullLength: number) => void;
}

/** One QuickJS instance with the prelude installed: the part of a sandbox that a reset replaces. */
export interface Engine {
  readonly context: QuickJSAsyncContext;
  readonly runtime: QuickJSAsyncRuntime;
  readonly runJobs: JobRunner;
  /** Prelude helpers, held by the host only (entity code cannot reach them). */
  readonly describeValue: QuickJSHandle;
  readonly describeError: QuickJSHandle;
  readonly state: EngineState;
  dispose(): void;
}

/**
 * Builds a fresh engine: its own asyncify wasm module (one module runs one evaluation at a time, so
 * every entity gets its own), memory and stack limits, the interrupt handler that enforces the
 * deadline and `done` (CIRCLE-6, LOOP-3), and the prelude that defines gates, console and globals.
 * No module loader is installed, so `import()` always fails inside the sandbox. A `module` made in
 * advance (a fresh one, never used by another engine) saves its compile time.
 */
export async function createEngine(
  gateNames: readonly string[],
  globalsJson: string,
  limits: ResolvedLimits,
  clock: () => number,
  premade?: QuickJSAsyncWASMModule,
): Promise<Engine> {
  const module = premade ?? (await newQuickJSAsyncWASMModule());
  const runtime = module.newRuntime();
  runtime.setMemoryLimit(limits.memoryLimitBytes);
  runtime.setMaxStackSize(limits.stackLimitBytes);
  const context = runtime.newContext();
  const state: EngineState = {
    phase: 'idle',
    deadline: 0,
    gateBudgetMs: limits.gateWaitMs,
    postDeadline: 0,
    stopReason: undefined,
    gate: () => JSON.stringify({ ok: false, name: 'Error', message: 'no evaluation is running' }),
    output: () => {},
  };
  runtime.setInterruptHandler(() => {
    switch (state.phase) {
      case 'run':
        if (state.stopReason) return true;
        if (clock() >= state.deadline) {
          state.stopReason = 'deadline';
          return true;
        }
        return false;
      case 'post':
        return performance.now() >= state.postDeadline;
      default:
        return true;
    }
  });

  // Returning a plain string (not a promise) outside the run phase keeps asyncify from suspending
  // under a synchronous caller, e.g. a toJSON that calls a gate while the host reads the value.
  const gateHost = context.newAsyncifiedFunction('gate', ((nameH: QuickJSHandle, jsonH: QuickJSHandle, problemH: QuickJSHandle) => {
    const reply = state.gate(context.getString(nameH), context.getString(jsonH), context.getString(problemH));
    return typeof reply === 'string' ? context.newString(reply) : reply.then((text) => context.newString(text));
  }) as unknown as Parameters<QuickJSAsyncContext['newAsyncifiedFunction']>[1]);
  const outHost = context.newFunction('out', (levelH, lineH, lengthH) => {
    state.output(context.getString(levelH), context.getString(lineH), context.getNumber(lengthH));
  });

  const engine = { context, runtime } as { context: QuickJSAsyncContext; runtime: QuickJSAsyncRuntime };
  // The prelude runs under the same bounded phase the host uses to read results. If it fails, the
  // engine is simply dropped (see `dispose`).
  state.phase = 'post';
  state.postDeadline = performance.now() + Math.max(SETUP_BUDGET_MS, limits.evalTimeoutMs);
  const factory = context.unwrapResult(context.evalCode(PRELUDE_SOURCE, 'prelude.js', { type: 'global', strict: true }));
  const names = context.unwrapResult(context.evalCode(JSON.stringify(gateNames)));
  const globals = context.newString(globalsJson);
  const cap = context.newNumber(limits.maxOutputChars);
  const helpers = context.unwrapResult(
    context.callFunction(factory, context.undefined, gateHost, outHost, names, globals, cap),
  );
  for (const h of [factory, names, globals, cap, gateHost, outHost]) h.dispose();
  const describeValue = context.getProp(helpers, 'describeValue');
  const describeError = context.getProp(helpers, 'describeError');
  helpers.dispose();
  state.phase = 'idle';
  const runJobs = createJobRunner(module, runtime, context);
  return {
    ...engine,
    runJobs,
    describeValue,
    describeError,
    state,
    /**
     * Ends the engine without freeing anything inside its wasm module. Every engine owns its module, so
     * once the engine is no longer referenced the garbage collector reclaims the module whole (150
     * engines built and dropped in a row keep the process's memory flat). Freeing the runtime instead
     * is unsafe with the async build of quickjs-emscripten 0.32: it unregisters the runtime's callbacks
     * before JS_FreeRuntime, which then throws as it finalizes our host functions; and after a host
     * exception (a host stack overflow) tore an evaluation out of the wasm, objects are still alive, so
     * JS_FreeRuntime fails its `list_empty(&rt->gc_obj_list)` assertion and prints `Aborted(...)`.
     */
    dispose() {
      state.phase = 'idle';
    },
  };
}

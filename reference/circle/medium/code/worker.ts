import { parentPort } from 'node:worker_threads';
import { newQuickJSAsyncWASMModule, type QuickJSAsyncWASMModule } from 'quickjs-emscripten';
import { createEngine, type Engine } from './engine.ts';
import { GateStop } from './gate-bridge.ts';
import type { FromWorker, GateReply, ToWorker } from './protocol.ts';
import { runEvaluation } from './run.ts';
import type { SandboxGate } from './types.ts';

/**
 * The worker-thread side of a sandbox (CIRCLE-6): it owns the QuickJS engine, so whatever the entity's
 * code does to the wasm module or to the native stack stays in this thread. Gate calls go to the main
 * thread as messages and the asyncified host function waits for the answer (CIRCLE-3). The engine
 * rebuild after an unhealthy evaluation (the existing `reset` path) happens here; a dead or stuck
 * worker is the main thread's to replace (see `worker-handle.ts`).
 */
if (!parentPort) throw new Error('code/worker.ts must run in a worker thread');
const port = parentPort;
const post = (message: FromWorker): void => port.postMessage(message);
const clock = (): number => performance.now();

// Compiling the wasm module is most of an engine's start-up; a spare worker does it before it is needed.
let warmModule: Promise<QuickJSAsyncWASMModule> | undefined = newQuickJSAsyncWASMModule();
let config: Extract<ToWorker, { type: 'init' }> | undefined;
let engine: Engine | undefined;
const gates = new Map<string, SandboxGate>();
const waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: unknown) => void }>();
let lastCallId = 0;

async function build(): Promise<Engine> {
  if (!config) throw new Error('the worker was not initialised');
  const premade = warmModule ? await warmModule : undefined;
  warmModule = undefined;
  return createEngine(config.gateNames, config.globalsJson, config.limits, clock, premade);
}

/** A gate's host side as seen from here: one message out, the main thread's reply back. */
function callHost(name: string, args: unknown[]): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const callId = ++lastCallId;
    waiting.set(callId, { resolve, reject });
    // Calls are made only while an evaluation runs, so the engine's deadline is this evaluation's.
    const remainingMs = engine ? Math.max(0, engine.state.deadline - clock()) : 0;
    post({ type: 'gate', callId, name, argsJson: JSON.stringify(args), remainingMs });
  });
}

function settle(reply: GateReply): void {
  const entry = waiting.get(reply.callId);
  // Unknown ids are answers that came after their evaluation ended: nobody waits for them any more.
  if (!entry) return;
  waiting.delete(reply.callId);
  if (reply.ok) entry.resolve(reply.json === undefined ? undefined : (JSON.parse(reply.json) as unknown));
  else if (reply.stop) entry.reject(new GateStop(reply.error));
  else entry.reject(Object.assign(new Error(reply.error.message), { name: reply.error.name }, reply.error.code ? { code: reply.error.code } : {}));
}

async function init(message: Extract<ToWorker, { type: 'init' }>): Promise<void> {
  config = message;
  for (const name of message.hostGates) gates.set(name, { name, call: (args) => callHost(name, args) });
  try {
    engine = await build();
    post({ type: 'ready' });
  } catch (error) {
    post({ type: 'init-failed', message: describe(error) });
  }
}

async function evaluate(code: string, idPrefix: string): Promise<void> {
  try {
    if (!config) throw new Error('the worker was not initialised');
    engine ??= await build();
    const { evaluation, unhealthy } = await runEvaluation(engine, code, idPrefix, gates, config.limits, clock);
    waiting.clear();
    if (unhealthy) {
      engine.dispose();
      engine = undefined;
      engine = await build();
      evaluation.reset = true;
    }
    post({ type: 'evaluation', evaluation });
  } catch (error) {
    post({ type: 'failed', message: describe(error) });
  }
}

/** Back to the state of a fresh worker, so a disposed sandbox's worker can serve the next sandbox. */
function reset(): void {
  engine?.dispose();
  engine = undefined;
  config = undefined;
  gates.clear();
  waiting.clear();
  warmModule ??= newQuickJSAsyncWASMModule();
}

port.on('message', (message: ToWorker) => {
  switch (message.type) {
    case 'init':
      void init(message);
      break;
    case 'evaluate':
      void evaluate(message.code, message.idPrefix);
      break;
    case 'gate-reply':
      settle(message);
      break;
    case 'reset':
      reset();
      break;
    case 'crash':
      if (message.how === 'exit') process.exit(70);
      setImmediate(() => {
        throw new Error('the worker was told to crash');
      });
      break;
  }
});

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

import type { GateCallRecord, GateError } from '../../../../schemas/index.ts';
import { CantripError } from '../../../errors.ts';
import { gateBudgetError, toGateError } from './gate-bridge.ts';
import type { FromWorker, GateReply, ToWorker } from './protocol.ts';
import { keepSpare, returnWorker, takeWorker, type PooledWorker } from './worker-pool.ts';
import type { Evaluation, SandboxGate } from './types.ts';

/** Bound on a worker's start-up (thread, tsx, QuickJS, prelude); generous because the machine may be busy. */
const BOOT_TIMEOUT_MS = 30_000;

/** How one evaluation in a worker ended, seen from the main thread. */
export type WorkerOutcome =
  | { kind: 'evaluation'; evaluation: Evaluation }
  /** The worker died, emitted an error, or could not run the evaluation. */
  | { kind: 'crashed'; message: string; gateCalls: GateCallRecord[] }
  /** The worker did not answer by the hard deadline and was terminated. */
  | { kind: 'timeout'; gateCalls: GateCallRecord[] };

type Waiter = (event: { kind: 'message'; message: FromWorker } | { kind: 'dead'; message: string }) => void;

/** The bounds of one evaluation as the main thread enforces them. */
export interface EvaluationBounds {
  /** The program's own running time (`evalTimeoutMs`); gate waits do not count. */
  runMs: number;
  /** Time past `runMs` before the worker is terminated (`hardDeadlineGraceMs`). */
  graceMs: number;
  /** Total time this evaluation's gate calls may keep the program waiting (`gateWaitMs`). */
  gateWaitMs: number;
  /** The cast's signal: once aborted, a gate call in progress or made later ends the evaluation. */
  signal?: AbortSignal;
}

/** The hard-deadline timer of the answer being waited for, which serving a gate call pauses. */
interface HardTimer {
  pause(): void;
  /** Starts counting again, `ms` from now. */
  resume(ms: number): void;
}

/**
 * The main thread's end of one sandbox worker (CIRCLE-6: the circle contains the code, whatever it
 * does). It runs the host side of every gate call the worker asks for, passes one evaluation at a time,
 * and turns a dead worker or a missed hard deadline into an outcome instead of an exception. While an
 * evaluation is running it also records the gate calls it served, so that if the worker's own records
 * are lost with it, the host-side effects still appear in the observation (CIRCLE-5).
 */
export class WorkerHandle {
  private waiter: Waiter | undefined;
  private deathMessage: string | undefined;
  private served: GateCallRecord[] = [];
  private idPrefix = '';
  /** Counts evaluations, so a gate call that outlives its evaluation cannot touch the next one. */
  private epoch = 0;
  private bounds: EvaluationBounds = { runMs: 0, graceMs: 0, gateWaitMs: 0 };
  /** What is left of this evaluation's gate budget (ms). */
  private gateBudgetMs = 0;
  private hardTimer: HardTimer | undefined;

  private constructor(
    private readonly pooled: PooledWorker,
    private readonly gates: ReadonlyMap<string, SandboxGate>,
  ) {
    const { worker } = pooled;
    worker.on('message', this.onMessage);
    worker.on('error', this.onError);
    worker.on('exit', this.onExit);
    if (pooled.dead()) this.deathMessage = 'the worker died before it was used';
  }

  private readonly onMessage = (message: FromWorker): void => {
    if (message.type === 'gate') this.serveGate(message.callId, message.name, message.argsJson, message.remainingMs);
    else this.waiter?.({ kind: 'message', message });
  };
  private readonly onError = (error: unknown): void => this.die(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
  private readonly onExit = (code: number): void => this.die(`the worker exited with code ${code}`);

  /** Takes a worker, installs the engine in it and waits until it is ready (bounded). */
  static async start(init: Extract<ToWorker, { type: 'init' }>, gates: ReadonlyMap<string, SandboxGate>): Promise<WorkerHandle> {
    try {
      return await WorkerHandle.startOnce(init, gates);
    } catch {
      // A pooled worker can die just as it is handed out; one more try gets another (or a new) one.
      return WorkerHandle.startOnce(init, gates);
    }
  }

  private static async startOnce(init: Extract<ToWorker, { type: 'init' }>, gates: ReadonlyMap<string, SandboxGate>): Promise<WorkerHandle> {
    const handle = new WorkerHandle(takeWorker(), gates);
    handle.send(init);
    const answer = await handle.wait(BOOT_TIMEOUT_MS);
    if (answer.kind === 'message' && answer.message.type === 'ready') {
      keepSpare();
      return handle;
    }
    handle.terminate();
    const why =
      answer.kind === 'timeout' ? `it did not start within ${BOOT_TIMEOUT_MS} ms`
      : answer.kind === 'dead' ? answer.message
      : answer.message.type === 'init-failed' ? answer.message.message
      : `unexpected message ${answer.message.type}`;
    throw new CantripError('sandbox_error', `createSandbox: the sandbox worker could not start: ${why}`);
  }

  /**
   * Runs one evaluation under the main thread's own hard deadline, `runMs + graceMs`, past which the
   * worker is terminated (CIRCLE-6). Like the worker's deadline it counts only the program's own time:
   * it is paused while this thread serves one of the worker's gate calls (a child entity may take far
   * longer than the deadline, COMP-2) and restarts from the worker's remaining time when the call is
   * answered. Serving is itself bounded, by the gate budget and by the cast's signal.
   */
  async evaluate(code: string, idPrefix: string, bounds: EvaluationBounds): Promise<WorkerOutcome> {
    this.served = [];
    this.idPrefix = idPrefix;
    this.epoch += 1;
    this.bounds = bounds;
    this.gateBudgetMs = bounds.gateWaitMs;
    this.send({ type: 'evaluate', code, idPrefix });
    const answer = await this.wait(bounds.runMs + bounds.graceMs, true);
    const gateCalls = settledCopies(this.served, answer.kind === 'timeout' ? 'TimeoutError' : 'SandboxCrashed');
    this.served = [];
    if (answer.kind === 'timeout') {
      this.terminate();
      return { kind: 'timeout', gateCalls };
    }
    if (answer.kind === 'dead') return { kind: 'crashed', message: answer.message, gateCalls };
    const { message } = answer;
    if (message.type === 'evaluation') return { kind: 'evaluation', evaluation: message.evaluation };
    this.terminate();
    return { kind: 'crashed', message: message.type === 'failed' ? message.message : `unexpected message ${message.type}`, gateCalls };
  }

  /** Test hook: makes the worker die as a crash would. */
  crash(how: 'exit' | 'throw'): void {
    this.send({ type: 'crash', how });
  }

  /**
   * Ends this sandbox's use of the worker. An idle, healthy worker drops its engine and goes back to
   * the pool for the next sandbox; one that is busy (an evaluation still running) is terminated.
   */
  release(): void {
    if (this.deathMessage !== undefined || this.waiter) return this.terminate();
    this.die('the sandbox was disposed');
    const { worker } = this.pooled;
    worker.off('message', this.onMessage);
    worker.off('error', this.onError);
    worker.off('exit', this.onExit);
    worker.postMessage({ type: 'reset' } satisfies ToWorker);
    returnWorker(this.pooled);
  }

  terminate(): void {
    this.die('the worker was terminated');
    void this.pooled.worker.terminate();
  }

  private send(message: ToWorker): void {
    if (this.deathMessage === undefined) this.pooled.worker.postMessage(message);
  }

  /**
   * Waits for the next answer, the worker's death, or `ms`, whichever comes first. With `pausable`,
   * the timer is the evaluation's hard deadline, which `serveGate` pauses and resumes.
   */
  private wait(ms: number, pausable = false): Promise<{ kind: 'message'; message: FromWorker } | { kind: 'dead'; message: string } | { kind: 'timeout' }> {
    if (this.deathMessage !== undefined) return Promise.resolve({ kind: 'dead', message: this.deathMessage });
    const { worker } = this.pooled;
    worker.ref();
    return new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const arm = (after: number): void => {
        clearTimeout(timer);
        timer = setTimeout(() => finish({ kind: 'timeout' }), after);
      };
      const finish = (result: Parameters<Waiter>[0] | { kind: 'timeout' }): void => {
        clearTimeout(timer);
        this.waiter = undefined;
        this.hardTimer = undefined;
        worker.unref();
        resolve(result);
      };
      this.waiter = finish;
      if (pausable) this.hardTimer = { pause: () => clearTimeout(timer), resume: arm };
      arm(ms);
    });
  }

  private die(message: string): void {
    if (this.deathMessage !== undefined) return;
    this.deathMessage = message;
    this.waiter?.({ kind: 'dead', message });
  }

  /**
   * The host side of one gate call (CIRCLE-3): results go back as JSON text, failures as name, message,
   * code. While the call is served the hard deadline is paused (the program is blocked, not running;
   * the worker suspends one gate call at a time, so at most one call of an evaluation is in service).
   * The wait ends at the latest when the evaluation's gate budget is spent or the cast's signal aborts
   * (a ward fired or the parent stopped the entity, CIRCLE-6, COMP-9): the worker is then told to stop
   * the program, and the gate's own late answer is dropped.
   */
  private serveGate(callId: number, name: string, argsJson: string, remainingMs: number): void {
    // A call from an evaluation that already ended: the worker no longer waits for it.
    if (!this.hardTimer) return;
    const args = JSON.parse(argsJson) as unknown[];
    const record: GateCallRecord = { tool_call_id: `${this.idPrefix}.${this.served.length + 1}`, gate: name, arguments: args, ok: false };
    const served = this.served;
    served.push(record);
    const { epoch, bounds } = this;
    const began = performance.now();
    let open = true;
    let budgetTimer: ReturnType<typeof setTimeout> | undefined;
    const reply = (answer: GateReply): void => {
      if (!open) return;
      open = false;
      clearTimeout(budgetTimer);
      bounds.signal?.removeEventListener('abort', onAbort);
      if (answer.ok) {
        record.ok = true;
        if (answer.json !== undefined) record.result = JSON.parse(answer.json) as unknown;
      } else record.error = answer.error;
      if (epoch === this.epoch) {
        this.gateBudgetMs -= performance.now() - began;
        // The program runs again: it has what it had left, and the grace on top, as at the start.
        this.hardTimer?.resume(remainingMs + bounds.graceMs);
      }
      this.send(answer);
    };
    const stop = (error: GateError): void => reply({ type: 'gate-reply', callId, ok: false, error, stop: true });
    const onAbort = (): void => stop({ name: 'AbortError', message: `${name}() was cut off: the cast was stopped (a ward fired or the parent ended it)` });
    this.hardTimer.pause();
    if (bounds.signal?.aborted) return onAbort();
    if (this.gateBudgetMs <= 0) return stop(gateBudgetError(name));
    budgetTimer = setTimeout(() => stop(gateBudgetError(name)), this.gateBudgetMs);
    bounds.signal?.addEventListener('abort', onAbort, { once: true });
    const gate = this.gates.get(name);
    Promise.resolve()
      .then(() => {
        if (!gate) throw new CantripError('gate_unavailable', `${name} is not a gate of this circle`);
        return gate.call(JSON.parse(argsJson) as unknown[]);
      })
      .then(
        (value) => {
          let json: string | undefined;
          try {
            json = value === undefined ? undefined : JSON.stringify(value);
          } catch (error) {
            const why = error instanceof Error ? error.message : String(error);
            return reply({ type: 'gate-reply', callId, ok: false, error: { name: 'TypeError', message: `${name} returned a value that is not JSON: ${why}`, code: 'sandbox_error' } });
          }
          return reply(json === undefined ? { type: 'gate-reply', callId, ok: true } : { type: 'gate-reply', callId, ok: true, json });
        },
        (error: unknown) => reply({ type: 'gate-reply', callId, ok: false, error: toGateError(error) }),
      );
  }
}

/** Copies of the served records, frozen in time: a call still running when the worker was lost is a failure. */
function settledCopies(records: readonly GateCallRecord[], errorName: string): GateCallRecord[] {
  return records.map((record) =>
    record.ok || record.error
      ? structuredClone(record)
      : { ...structuredClone(record), error: { name: errorName, message: `${record.gate}() had not finished when the sandbox worker was lost` } },
  );
}

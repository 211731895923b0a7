import type { GateCallRecord } from '../../../../schemas/index.ts';
import { CantripError } from '../../../errors.ts';
import { toGateError } from './gate-bridge.ts';
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
    if (message.type === 'gate') this.serveGate(message.callId, message.name, message.argsJson);
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

  /** Runs one evaluation; `hardMs` is the main thread's own deadline, past which the worker is terminated. */
  async evaluate(code: string, idPrefix: string, hardMs: number): Promise<WorkerOutcome> {
    this.served = [];
    this.idPrefix = idPrefix;
    this.send({ type: 'evaluate', code, idPrefix });
    const answer = await this.wait(hardMs);
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

  /** Waits for the next answer, the worker's death, or `ms`, whichever comes first. */
  private wait(ms: number): Promise<{ kind: 'message'; message: FromWorker } | { kind: 'dead'; message: string } | { kind: 'timeout' }> {
    if (this.deathMessage !== undefined) return Promise.resolve({ kind: 'dead', message: this.deathMessage });
    const { worker } = this.pooled;
    worker.ref();
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish({ kind: 'timeout' }), ms);
      const finish = (result: Parameters<Waiter>[0] | { kind: 'timeout' }): void => {
        clearTimeout(timer);
        this.waiter = undefined;
        worker.unref();
        resolve(result);
      };
      this.waiter = finish;
    });
  }

  private die(message: string): void {
    if (this.deathMessage !== undefined) return;
    this.deathMessage = message;
    this.waiter?.({ kind: 'dead', message });
  }

  /** The host side of one gate call (CIRCLE-3): results go back as JSON text, failures as name, message, code. */
  private serveGate(callId: number, name: string, argsJson: string): void {
    const args = JSON.parse(argsJson) as unknown[];
    const record: GateCallRecord = { tool_call_id: `${this.idPrefix}.${this.served.length + 1}`, gate: name, arguments: args, ok: false };
    const served = this.served;
    served.push(record);
    const reply = (answer: GateReply): void => {
      if (answer.ok) {
        record.ok = true;
        if (answer.json !== undefined) record.result = JSON.parse(answer.json) as unknown;
      } else record.error = answer.error;
      this.send(answer);
    };
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

import type { ErrorCode, GateCallRecord, GateError } from '../../../../schemas/index.ts';
import { ERROR_CODES } from '../../../../schemas/index.ts';
import type { EngineState, GateHandler } from './engine.ts';
import type { SandboxGate } from './types.ts';

/** The name the entity's code calls to finish; built into every code circle (CIRCLE-1, CIRCLE-8). */
export const DONE_GATE = 'done';

/**
 * A gate failure that also ends the evaluation: the host gave up on the call because the evaluation's
 * gate budget ran out or the cast was stopped (CIRCLE-6). The entity's code cannot catch it.
 */
export class GateStop extends Error {
  constructor(readonly gateError: GateError) {
    super(gateError.message);
    this.name = gateError.name;
  }
}

/** What the bridge learned during one evaluation. */
export interface GateLedger {
  readonly records: GateCallRecord[];
  done?: { answer: unknown };
}

/**
 * The host side of every gate call in one evaluation (CIRCLE-3, CIRCLE-5, CIRCLE-7, LOOP-3).
 *
 * Each call gets the next id `<idPrefix>.<n>` and one record, in call order. Arguments arrive as JSON
 * text and are parsed here, so the host gate only ever sees plain data. A rejected host call becomes an
 * `ok:false` record and an Error thrown inside the sandbox, which the code may catch. `done` records its
 * answer and tells the sandbox to stop.
 *
 * The evaluation deadline bounds the program's own running time only (CIRCLE-6): while a host gate is
 * being served the program is suspended, so the deadline is pushed back by the whole wait and resumes
 * with what was left when the gate answers. A child entity behind `call_entity` may thus run far longer
 * than the deadline (COMP-2: the parent blocks until the child completes), while time spent running
 * before and after the call still adds up. Waits are bounded instead by the cast's wards (the host ends
 * a call in progress when the cast stops, see `worker-handle.ts`), each gate's own bounds, and the
 * evaluation's gate budget (`gateWaitMs`), checked here too.
 */
export function createGateHandler(
  gates: ReadonlyMap<string, SandboxGate>,
  idPrefix: string,
  state: EngineState,
  clock: () => number,
  ledger: GateLedger,
): GateHandler {
  let counter = 0;
  return (name, json, problem) => {
    if (state.phase !== 'run') return envelope({ ok: false, name: 'Error', message: 'gates are closed: the evaluation has ended' });
    if (state.stopReason) return STOP;
    const id = `${idPrefix}.${++counter}`;
    const fail = (error: GateError, args?: unknown[]): string => {
      ledger.records.push({ tool_call_id: id, gate: name, ...(args ? { arguments: args } : {}), ok: false, error });
      return envelope({ ok: false, ...error });
    };
    if (problem !== '') return fail({ name: 'TypeError', message: `arguments of ${name}() are not JSON: ${problem}`, code: 'invalid_gate_arguments' });
    const parsed: unknown = JSON.parse(json);
    // Entity code can make the argument list serialize as something else (e.g. a polluted toJSON).
    if (!Array.isArray(parsed)) return fail({ name: 'TypeError', message: `arguments of ${name}() did not serialize to a JSON array`, code: 'invalid_gate_arguments' });
    const args: unknown[] = parsed;
    const gate = gates.get(name);
    if (name !== DONE_GATE && !gate) return fail({ name: 'ReferenceError', message: `${name} is not a gate of this circle`, code: 'gate_unavailable' }, args);
    // Time the program ran before this call counts (CIRCLE-6).
    if (state.deadline - clock() <= 0) {
      state.stopReason = 'deadline';
      fail(timeoutError(name), args);
      return STOP;
    }
    const halt = (error: GateError): string => {
      state.stopReason = 'halted';
      state.halt = { name: error.name, message: error.message };
      fail(error, args);
      return STOP;
    };
    if (gate && state.gateBudgetMs <= 0) return halt(gateBudgetError(name));
    const finish = (settled: Settled): string => {
      if (settled.kind === 'timeout') return halt(gateBudgetError(name));
      if (settled.kind === 'error' && settled.error instanceof GateStop) return halt(settled.error.gateError);
      if (settled.kind === 'error') return fail(toGateError(settled.error), args);
      if (name === DONE_GATE) {
        // The record shows the answer, as the spec's example does; the loop ends after this turn.
        const answer = args[0];
        ledger.records.push({ tool_call_id: id, gate: name, arguments: args, ok: true, ...(answer === undefined ? {} : { result: answer }) });
        ledger.done = { answer };
        state.stopReason = 'done';
        return STOP;
      }
      let text: string | undefined;
      try {
        text = settled.value === undefined ? undefined : JSON.stringify(settled.value);
      } catch (error) {
        return fail({ name: 'TypeError', message: `${name} returned a value that is not JSON: ${describe(error)}`, code: 'sandbox_error' }, args);
      }
      const result: unknown = text === undefined ? undefined : JSON.parse(text);
      ledger.records.push({ tool_call_id: id, gate: name, arguments: args, ok: true, ...(text === undefined ? {} : { result }) });
      return text === undefined ? '{"ok":true}' : `{"ok":true,"v":${text}}`;
    };
    // The built-in done has no host side: answer at once, without suspending the sandbox.
    if (!gate) return finish({ kind: 'ok', value: undefined });
    const began = clock();
    return settleWithin(() => gate.call(args), state.gateBudgetMs).then((settled) => {
      // The program was suspended for the whole wait: none of it is the program's own time (COMP-2).
      const waited = clock() - began;
      state.deadline += waited;
      state.gateBudgetMs -= waited;
      return finish(settled);
    });
  };
}

const STOP = '{"stop":true}';

type Settled = { kind: 'ok'; value: unknown } | { kind: 'error'; error: unknown } | { kind: 'timeout' };

/** Waits for a host gate, but never past what is left of the evaluation's gate budget. */
function settleWithin(start: () => Promise<unknown>, ms: number): Promise<Settled> {
  return new Promise<Settled>((resolve) => {
    const timer = setTimeout(() => resolve({ kind: 'timeout' }), ms);
    Promise.resolve()
      .then(start)
      .then(
        (value) => resolve({ kind: 'ok', value }),
        (error: unknown) => resolve({ kind: 'error', error }),
      )
      .finally(() => clearTimeout(timer));
  });
}

function timeoutError(name: string): GateError {
  return { name: 'TimeoutError', message: `${name}() was called after the evaluation deadline had passed` };
}

/** The gate budget ran out while (or before) this call was waiting; the host side says the same. */
export function gateBudgetError(name: string): GateError {
  return { name: 'TimeoutError', message: `${name}() did not answer within the evaluation's budget for waiting in gates` };
}

/** CIRCLE-5: the entity sees the failure's class and message, and its code when it carries one of ours. */
export function toGateError(error: unknown): GateError {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const known = typeof code === 'string' && (ERROR_CODES as readonly string[]).includes(code);
    return { name: error.name || 'Error', message: error.message, ...(known ? { code: code as ErrorCode } : {}) };
  }
  return { name: 'Error', message: describe(error) };
}

function describe(value: unknown): string {
  if (value instanceof Error) return value.message;
  try {
    return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    return String(value);
  }
}

function envelope(body: Record<string, unknown>): string {
  return JSON.stringify(body);
}

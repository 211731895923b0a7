import type { ErrorCode, GateCallRecord, GateError } from '../../../../schemas/index.ts';
import { ERROR_CODES } from '../../../../schemas/index.ts';
import type { EngineState, GateHandler } from './engine.ts';
import type { SandboxGate } from './types.ts';

/** The name the entity's code calls to finish; built into every code circle (CIRCLE-1, CIRCLE-8). */
export const DONE_GATE = 'done';

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
 * answer and tells the sandbox to stop. Host waits are bounded by the evaluation deadline.
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
    const remaining = state.deadline - clock();
    if (remaining <= 0) {
      state.stopReason = 'deadline';
      fail(timeoutError(name), args);
      return STOP;
    }
    const finish = (settled: Settled): string => {
      if (settled.kind === 'timeout') {
        state.stopReason = 'deadline';
        fail(timeoutError(name), args);
        return STOP;
      }
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
    return gate ? settleWithin(() => gate.call(args), remaining).then(finish) : finish({ kind: 'ok', value: undefined });
  };
}

const STOP = '{"stop":true}';

type Settled = { kind: 'ok'; value: unknown } | { kind: 'error'; error: unknown } | { kind: 'timeout' };

/** Waits for a host gate, but never past the evaluation's deadline. */
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
  return { name: 'TimeoutError', message: `${name}() was still running when the evaluation deadline passed` };
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

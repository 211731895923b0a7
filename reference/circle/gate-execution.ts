import type { GateCallRecord, GateError, ToolCall } from '../../schemas/index.ts';
import { CantripError } from '../errors.ts';
import type { Gate, GateContext } from './gate.ts';
import { verifyCall, type Verifier } from './verifiers.ts';

/**
 * Runs one gate call and always returns a record, never throws: a failing gate is an observation the
 * entity must see (CIRCLE-5), and an unknown or warded-off gate is refused the same way
 * (`gate_unavailable`, CIRCLE-6). The circle's verifiers see the call first, in their order; a refusal
 * is a failed record and the gate never runs (CIRCLE-6, CIRCLE-5).
 *
 * The call's arguments text (checked by CRYSTAL-4 to encode an object) is parsed twice: once for the
 * record the loom keeps, once for the gate, so nothing the gate does to its arguments reaches the
 * record. Parsing the short text again costs less than copying the parsed value.
 */
export async function executeGate(
  gates: ReadonlyMap<string, Gate>,
  call: ToolCall,
  context: GateContext,
  verifiers: readonly Verifier[] = [],
): Promise<GateCallRecord> {
  const name = call.gate;
  const args: unknown = JSON.parse(call.arguments);
  const record = { tool_call_id: context.toolCallId, gate: name, arguments: args };
  const gate = gates.get(name);
  if (!gate) {
    return {
      ...record,
      ok: false,
      error: { name: 'GateUnavailable', message: `no gate named '${name}' in this circle`, code: 'gate_unavailable' },
    };
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return {
      ...record,
      ok: false,
      error: { name: 'InvalidArguments', message: `arguments of '${name}' must be an object`, code: 'invalid_gate_arguments' },
    };
  }
  try {
    const copy = JSON.parse(call.arguments) as Record<string, unknown>;
    verifyCall(verifiers, name, copy);
    const result = await gate.execute(copy, context);
    return { tool_call_id: context.toolCallId, gate: name, arguments: args, ok: true, result: result === undefined ? null : result };
  } catch (error) {
    return { ...record, ok: false, error: toGateError(error) };
  }
}

/** Any thrown value as the `{name, message, code?}` shape the entity sees. */
export function toGateError(error: unknown): GateError {
  if (error instanceof CantripError) return { name: error.name, message: error.message, code: error.code };
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}

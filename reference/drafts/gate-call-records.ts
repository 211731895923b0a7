import type { GateCallRecord, GateError } from '../../schemas/index.ts';
import type { Redactor } from '../production/redaction.ts';
import { atLeast, type Draft } from './draft.ts';

/**
 * A gate call record in the shape of 0.2.0 and later (§4.3 of both drafts): one per gate call, in call
 * order, with the arguments and the result as text. The reference adds two medium fields: the call's
 * `tool_call_id`, which links the record to the LLM's tool call (LLM-7) so a fork's context can be
 * rebuilt exactly (LOOM-4), and, on a failure, the `error` it was thrown with, so a code fork's replay
 * throws the same error again (LOOM-13). Mediums may add fields; these add nothing the spec forbids.
 */
export interface GateCallRecordText {
  gate_name: string;
  /** The arguments as JSON text. */
  arguments: string;
  /** The gate's value as JSON text (empty when it returned nothing), or the error's message. */
  result: string;
  is_error: boolean;
  tool_call_id: string;
  error?: GateError;
}

/** A record as a turn stores it: the 0.1.0 shape, or the 0.2.0+ text shape. */
export type StoredGateCallRecord = GateCallRecord | GateCallRecordText;

/**
 * The records a turn stores, by the cantrip's draft. Mediums make every record in one shape, the
 * reference's working one (`{tool_call_id, gate, arguments, ok, result | error}`, values as values);
 * this is where a turn's records take the draft's shape.
 *
 * - 0.1.0: as made. The seed shows `{tool_call_id, gate, ok, result, error}` in §4.3 with no MUST.
 * - 0.2.0 and 0.3.1: `{gate_name, arguments, result, is_error}` with text (CIRCLE-4/CIRCLE-7 and the
 *   observation contract of §4.3), plus the medium fields above. With a redactor (PROD-8) the text
 *   passes through it: a secret does not reach the loom or its exports.
 *
 * The stored type stays the kit's `GateCallRecord` (schemas/records.ts): a text record fits its
 * optional fields only through a cast, done here once.
 */
export function recordsForDraft(draft: Draft, records: readonly GateCallRecord[], redact?: Redactor): GateCallRecord[] {
  if (!atLeast(draft, '0.2.0')) return [...records];
  return records.map((record) => asText(record, redact) as unknown as GateCallRecord);
}

function asText(record: GateCallRecord, redact: Redactor = (text) => text): GateCallRecordText {
  const text: GateCallRecordText = {
    gate_name: record.gate,
    // Stryker disable next-line StringLiteral: equivalent (docs/mutation.md): JSON.stringify of an object is never undefined.
    arguments: redact(JSON.stringify(record.arguments ?? {}) ?? '{}'),
    // Stryker disable next-line ConditionalExpression,StringLiteral,OptionalChaining: equivalent or open (docs/mutation.md): JSON.stringify(undefined) is undefined anyway, a failure always has its error, and the text of a gate that returned nothing is open (docs/OPEN-CHOICES.md, "The record of a gate that returned nothing, and a failure's error name").
    result: redact(record.ok ? (record.result === undefined ? '' : (JSON.stringify(record.result) ?? '')) : (record.error?.message ?? '')),
    is_error: !record.ok,
    tool_call_id: record.tool_call_id,
  };
  // Stryker disable next-line ConditionalExpression,LogicalOperator,BooleanLiteral: not constrained by the spec (docs/OPEN-CHOICES.md, "The record of a gate that returned nothing, and a failure's error name"): without the field a replay throws the recorded message under a generic name.
  if (!record.ok && record.error) text.error = { ...record.error, message: redact(record.error.message) };
  return text;
}

/**
 * A stored record read back in the working shape, whichever draft wrote it: what the reference's own
 * readers (a fork's context, a code fork's replay, fold digests, truncation summaries) use.
 */
export function readRecord(stored: StoredGateCallRecord): GateCallRecord {
  if (!('gate_name' in stored)) return stored;
  const args = parseText(stored.arguments);
  if (stored.is_error) {
    // Stryker disable next-line all: equivalent (docs/mutation.md): the reference writes the error field on every failure; the fallback keeps the message either way, and the error's name is open (docs/OPEN-CHOICES.md).
    return { tool_call_id: stored.tool_call_id, gate: stored.gate_name, arguments: args, ok: false, error: stored.error ?? { name: 'Error', message: stored.result } };
  }
  // Stryker disable next-line ConditionalExpression,StringLiteral: not constrained by the spec (docs/OPEN-CHOICES.md, "The record of a gate that returned nothing, ..."): only a gate that returned nothing is stored as ''.
  return { tool_call_id: stored.tool_call_id, gate: stored.gate_name, arguments: args, ok: true, ...(stored.result === '' ? {} : { result: parseText(stored.result) }) };
}

/** Every record of a turn read back ({@link readRecord}). */
export function readRecords(stored: readonly StoredGateCallRecord[] | readonly GateCallRecord[]): GateCallRecord[] {
  return (stored as readonly StoredGateCallRecord[]).map(readRecord);
}

function parseText(text: string): unknown {
  // Stryker disable BlockStatement: equivalent (docs/mutation.md): the reference stores arguments and results as JSON text, so reading them back never reaches the catch.
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
  // Stryker restore BlockStatement
}

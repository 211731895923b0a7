/**
 * Gate call records per draft (issue 24). The record a turn keeps for each gate call changed at 0.2.0:
 *
 * - 0.1.0 (§4.3) shows `{tool_call_id, gate, ok, result, error: {name, message}}` and makes no MUST of it
 *   (docs/OPEN-CHOICES.md, issue 21); the kit reads it as it is.
 * - 0.2.0 and 0.3.1 (§4.3) ask for `{gate_name, arguments, result, is_error}` per gate call, in call order,
 *   arguments and result as text; mediums may add fields. The catalogs of both drafts place this contract
 *   under CIRCLE-4 (its testability note), the rule the observation serves.
 *
 * This module holds both halves of judging a later draft's records: the contract check
 * ({@link recordContractProblems}, schema gate-call-record-text) and the view through which the case
 * file's paths, written in one vocabulary for every draft (`.gate`, `.ok`, `.result`, `.error`), read a
 * text record ({@link viewedRecord}). A draft's records are never judged by another draft's shape.
 */
import type { Turn } from '../../schemas/records.ts';
import { validate, type SchemaProblem } from '../../schemas/loader.ts';
import { draftVersions } from '../../spec/drafts.ts';
import type { DriveResult } from '../drive/index.ts';

/** The first draft whose gate call records are text records. */
export const TEXT_RECORDS_SINCE = '0.2.0';

/** The schema of the 0.2.0+ record (schemas/gate-call-record-text.schema.json). */
export const TEXT_RECORD_SCHEMA = 'gate-call-record-text';

/** The rule the record contract is judged under at 0.2.0 and 0.3.1 (same ID in both catalogs). */
export const TEXT_RECORD_RULE = 'CIRCLE-4';

/** A gate call record as 0.2.0 and later shape it; other fields are a medium's own. */
export interface TextGateCallRecord {
  gate_name: string;
  /** JSON text of the arguments. */
  arguments: string;
  /** The return value as text, or the error message. */
  result: string;
  is_error: boolean;
  [medium: string]: unknown;
}

/**
 * Whether `draft`'s records are text records. Drafts compare by their place in the registry; a version
 * the registry does not know is judged as the seed (no text contract), which the planner never hands us.
 */
export function hasTextRecords(draft: string | undefined): boolean {
  if (draft === undefined) return false;
  const order = draftVersions();
  const at = order.indexOf(draft);
  return at >= 0 && at >= order.indexOf(TEXT_RECORDS_SINCE);
}

/** One record that breaks the 0.2.0+ contract, with where it sits in the loom. */
export interface RecordContractProblem {
  turn: string;
  /** Index of the turn in the loom and of the record in its turn's gate_calls. */
  turnIndex: number;
  recordIndex: number;
  problems: SchemaProblem[];
}

/** Every gate call record of `turns` that is not a 0.2.0+ text record; empty when all are. */
export function recordContractProblems(turns: readonly Turn[]): RecordContractProblem[] {
  const found: RecordContractProblem[] = [];
  for (const [turnIndex, turn] of turns.entries()) {
    const records: unknown[] = Array.isArray(turn.gate_calls) ? turn.gate_calls : [];
    for (const [recordIndex, record] of records.entries()) {
      const result = validate(TEXT_RECORD_SCHEMA, record);
      if (!result.ok) found.push({ turn: turn.id, turnIndex, recordIndex, problems: result.problems });
    }
  }
  return found;
}

const isTextRecord = (value: unknown): value is TextGateCallRecord =>
  value !== null && typeof value === 'object' && typeof (value as { gate_name?: unknown }).gate_name === 'string' && typeof (value as { is_error?: unknown }).is_error === 'boolean';

/**
 * A text record as the case file's vocabulary reads it: `gate` is `gate_name`, `ok` is `!is_error`, a
 * success's `result` is its text read once as JSON when it is JSON (`'7'` is 7, `'"a"'` is `a`, other
 * text stays text), so a path compares it as it compares a 0.1.0 record's value (`seen_as` still
 * accepts either form), a failure's text is the `error.message`, and the arguments text is read as
 * JSON when it is JSON. One reading, not `seen_as`'s repeated one: the string `"0"` a gate returned
 * stays a string. The medium's own fields stay beside them. A record that is not a text record (a contract breach
 * the contract check reports) is left as it is: the view never makes a record look right.
 */
export function viewedRecord(record: unknown): unknown {
  if (!isTextRecord(record)) return record;
  const { gate_name, arguments: args, result, is_error, error: _ownError, ...medium } = record;
  const parsed = parseJsonText(args);
  const common = { ...medium, gate: gate_name, arguments: parsed };
  return is_error ? { ...common, ok: false, error: { message: result } } : { ...common, ok: true, result: parseJsonText(result) };
}

/** A turn whose gate call records are read through {@link viewedRecord}. */
export function viewedTurn(turn: Turn): Turn {
  if (!Array.isArray(turn.gate_calls)) return turn;
  return { ...turn, gate_calls: turn.gate_calls.map(viewedRecord) as Turn['gate_calls'] };
}

/**
 * The drive as the case's paths read it when judging `draft`: at 0.2.0 and later every loom turn (and
 * every turn an action appended, a thread or a snapshot holds) shows its records through {@link viewedTurn}; at 0.1.0 the drive as it is.
 */
export function driveAsReadAt(drive: DriveResult, draft: string | undefined): DriveResult {
  if (!hasTextRecords(draft)) return drive;
  const actions = new Map([...drive.actions].map(([name, trace]) => [name, trace.appended ? { ...trace, appended: trace.appended.map(viewedTurn) } : trace]));
  return {
    ...drive,
    actions,
    record: {
      ...drive.record,
      loom: { ...drive.record.loom, turns: drive.record.loom.turns.map(viewedTurn) },
      threads: viewedTurnLists(drive.record.threads),
      snapshots: viewedTurnLists(drive.record.snapshots),
    },
  };
}

function viewedTurnLists(lists: Record<string, Turn[]>): Record<string, Turn[]> {
  return Object.fromEntries(Object.entries(lists).map(([name, turns]) => [name, turns.map(viewedTurn)]));
}

function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

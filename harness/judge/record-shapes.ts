/**
 * Record shapes: how the records an implementation presents in its loom differ from the shapes the spec
 * shows (0.1.0 §4.3, the gate record `{tool_call_id, gate, ok, result, error: {name, message}}`; §6.1,
 * the Turn layout). No rule makes those shapes a MUST: the rules about gate results (CIRCLE-4, CIRCLE-5,
 * CIRCLE-7) are about what reaches the entity, which the cases check on the requests (issue 21, class 3).
 * So a difference here is never a failure; this module only notes, per case, which differences it saw,
 * in how many records, and where first. The report gathers them once per run
 * (harness/report/record-shapes.ts, docs/reports.md "Record shapes").
 */
import type { GateCallRecord, Turn } from '../../schemas/records.ts';
import type { DriveResult } from '../drive/index.ts';
import { turnProblems } from './invariants.ts';

/** A kind of difference from the spec's record shapes. */
export type RecordShapeKind = 'gate-record-without-tool-call-id' | 'gate-error-without-name' | 'gate-result-kept-as-shown-text' | 'fold-turn-without-range' | 'call-turn-without-entity' | 'turn-field-outside-the-rules';

/** What a kind of difference is, in the report's words. */
export interface RecordShapeKindInfo {
  /** The record and field that differ, e.g. `gate record: tool_call_id`. */
  field: string;
  /** How it differs from what the spec shows. */
  difference: string;
  /** What the spec shows, and where. */
  spec_shows: string;
  section: string;
}

/** Every kind, in the order the report lists them. */
export const RECORD_SHAPE_KINDS: Readonly<Record<RecordShapeKind, RecordShapeKindInfo>> = {
  'gate-record-without-tool-call-id': {
    field: 'gate record: tool_call_id',
    difference: 'absent',
    spec_shows: 'every GateCallRecord with the tool_call_id of the call it answers',
    section: '§4.3',
  },
  'gate-error-without-name': {
    field: 'gate record: error.name',
    difference: 'absent on a failed call',
    spec_shows: 'a failure as error: { name, message }',
    section: '§4.3',
  },
  'gate-result-kept-as-shown-text': {
    field: 'gate record: result',
    difference: 'kept as the text the entity was shown, not the value the gate returned (e.g. "1" for 1)',
    spec_shows: 'result as the return value',
    section: '§4.3',
  },
  'fold-turn-without-range': {
    field: 'fold turn: fold',
    difference: 'no range of folded sequences (the kit reads one when a turn gives it)',
    spec_shows: 'a fold turn that replaces a range of earlier turns, with no field for the range in the Turn layout',
    section: '§6.1, §6.8',
  },
  'call-turn-without-entity': {
    field: 'call turn: entity_id',
    difference: 'null (one call turn shared by the entities of a cantrip)',
    spec_shows: 'entity_id as a string on every turn',
    section: '§6.1',
  },
  'turn-field-outside-the-rules': {
    field: 'turn: a field no rule asks for',
    difference: 'absent, or of another type or value than the layout shows (the first such field is named in the example)',
    spec_shows: 'the Turn layout (id, parent_id, cantrip_id, entity_id, role, sequence, utterance, observation, gate_calls, metadata with timestamp, reward, terminated, truncated); only some fields are asked for by a rule (LOOM-2, LOOM-7, LOOM-9)',
    section: '§6.1',
  },
};

/** One kind of difference seen in one case's loom. */
export interface RecordShapeObservation {
  kind: RecordShapeKind;
  /** How many records of the loom show it. */
  records: number;
  /** Run-record path of the first record that shows it, e.g. `loom.turns[2].gate_calls[0]`. */
  first: string;
}

/**
 * The differences a case's final loom shows, in {@link RECORD_SHAPE_KINDS} order, for the judged `draft`
 * (gate records only at 0.1.0, where §4.3 shows a shape no rule requires); empty when the loom
 * could not be read. A result kept as text is only recognised on the harness's test gates, where the kit
 * knows the value the gate returned: a string result of any other gate may well be its return value.
 */
export function observeRecordShapes(d: DriveResult, draft = '0.1.0'): RecordShapeObservation[] {
  if (!d.loomAvailable) return [];
  // From 0.2.0 the gate record is a contract (`{gate_name, arguments, result, is_error}`, text, no id), judged
  // as a MUST by the gate-record-contract check (records-per-draft.ts); 0.1.0's canonical record is then no
  // yardstick, so only the Turn layout's fields are compared.
  const gateRecordsShown = draft === '0.1.0';
  const seen = new Map<RecordShapeKind, RecordShapeObservation>();
  const note = (kind: RecordShapeKind, path: string): void => {
    const o = seen.get(kind);
    if (o) o.records++;
    else seen.set(kind, { kind, records: 1, first: path });
  };
  const returned = testGateReturns(d);
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  // A loom the turn schema refuses is the ambient turn-schema check's business: what is not a record here is passed over.
  for (const [i, turn] of (Array.isArray(d.record.loom.turns) ? d.record.loom.turns : []).entries()) {
    if (!isObject(turn)) continue;
    const at = `loom.turns[${i}]`;
    if (turn.role === 'fold' && turn.fold === undefined) note('fold-turn-without-range', at);
    if (turn.role === 'call' && turn.entity_id === null) note('call-turn-without-entity', `${at}.entity_id`);
    // What the turn schema finds that no rule asks for (issue 29): the ambient turn-schema check fails none of it.
    const outside = turnProblems(turn as Turn, draft).outside;
    if (outside.length > 0) note('turn-field-outside-the-rules', `${at}${dotted(outside[0]!.pointer)}`);
    for (const [k, record] of (gateRecordsShown && Array.isArray(turn.gate_calls) ? turn.gate_calls : []).entries()) {
      if (!isObject(record)) continue;
      const path = `${at}.gate_calls[${k}]`;
      // The kit's schema lets the id be left out; the reference's record type always has one.
      if ((record as Partial<GateCallRecord>).tool_call_id === undefined) note('gate-record-without-tool-call-id', path);
      if (record.ok === false && isObject(record.error) && record.error.name === undefined) note('gate-error-without-name', `${path}.error`);
      // Every record is matched to its call, so the n-th record of a gate meets the n-th call of it.
      const returnedValue = returned.valueOf(turn, record);
      if (record.ok && typeof record.result === 'string' && returnedValue.known && returnedValue.value !== undefined && typeof returnedValue.value !== 'string') note('gate-result-kept-as-shown-text', `${path}.result`);
    }
  }
  return (Object.keys(RECORD_SHAPE_KINDS) as RecordShapeKind[]).flatMap((kind) => seen.get(kind) ?? []);
}

/**
 * What each test-gate call returned, as the harness answered it. A record is matched to its call by
 * `tool_call_id` when it has one, else as the n-th record of that gate for that entity in loom order
 * against the n-th logged call of that gate by that entity (CIRCLE-7 keeps records in call order).
 */
function testGateReturns(d: DriveResult): { valueOf(turn: Turn, record: GateCallRecord): { known: boolean; value?: unknown } } {
  const log = d.record.gate_log;
  const byId = new Map(log.map((e) => [e.tool_call_id, e]));
  const nth = new Map<string, number>();
  const replyValue = (e: (typeof log)[number] | undefined): { known: boolean; value?: unknown } => (e?.reply?.ok ? { known: true, value: e.reply.result } : { known: false });
  return {
    valueOf(turn, record) {
      const id = (record as Partial<GateCallRecord>).tool_call_id;
      if (id !== undefined) return replyValue(byId.get(id));
      const key = `${turn.entity_id ?? ''}\u0000${record.gate}`;
      const n = nth.get(key) ?? 0;
      nth.set(key, n + 1);
      return replyValue(log.filter((e) => e.entity_id === turn.entity_id && e.gate === record.gate)[n]);
    },
  };
}

/** `/metadata/timestamp` -> `.metadata.timestamp`, `/gate_calls/0/x` -> `.gate_calls[0].x`. */
function dotted(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((seg) => (/^\d+$/.test(seg) ? `[${seg}]` : `.${seg.replace(/~1/g, '/').replace(/~0/g, '~')}`))
    .join('');
}

/**
 * Record shapes (issue 21, class 3): a loom whose records differ from the shapes the spec shows (§4.3,
 * §6.1) gives one informational finding per kind of difference for the run, and nothing of it counts in
 * a case, a rule or a level. These tests build looms by hand; harness/run/record-shapes.test.ts runs real
 * implementations and reads the written outputs.
 */
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GateCallRecord, Turn } from '../../schemas/records.ts';
import { validate } from '../../schemas/loader.ts';
import type { DriveResult } from '../drive/index.ts';
import type { GateCallLog } from '../drive/test-gates.ts';
import { PACKAGE_ROOT } from '../case-file/package-root.ts';
import { observeRecordShapes, RECORD_SHAPE_KINDS } from '../judge/record-shapes.ts';
import { INVARIANTS } from '../judge/invariants.ts';
import type { LoadedCase } from '../case-file/types.ts';
import type { CaseResult, SuiteResult } from '../run/run.ts';
import { assertReportValid, buildReport, exitCode } from './report.ts';
import { recordShapeFindings } from './record-shapes.ts';
import { renderMarkdown } from './markdown.ts';
import { recordShapeHtmlSection, recordShapeMarkdownSection } from './record-shapes-render.ts';

const metadata = { tokens_prompt: 1, tokens_completion: 1, tokens_cached: 0, duration_ms: 1, timestamp: '2026-01-01T00:00:00Z' };
const turn = (id: string, parent: string | null, role: Turn['role'], extra: Partial<Turn> = {}): Turn => ({
  id,
  parent_id: parent,
  cantrip_id: 'c1',
  entity_id: 'e1',
  role,
  sequence: role === 'call' ? 0 : Number(id.slice(1)),
  utterance: '',
  observation: '',
  gate_calls: [],
  metadata,
  reward: null,
  terminated: false,
  truncated: false,
  ...(role === 'call' && { call: { system_prompt: null, hyperparameters: {} } }),
  ...extra,
});
const echo: GateCallRecord = { tool_call_id: 'tc1', gate: 'echo', arguments: { text: 'a' }, ok: true, result: 'a' };
/** A loom in the spec's shapes: a call turn, a crystal turn with a gate record, a fold turn with its range. */
const canonical = (): Turn[] => [turn('t0', null, 'call'), turn('t1', 't0', 'crystal', { gate_calls: [echo] }), turn('t2', 't1', 'fold', { utterance: 'summary', fold: { from_sequence: 1, to_sequence: 1 } })];
const drive = (turns: Turn[], log: Partial<GateCallLog>[] = []): DriveResult => ({ loomAvailable: true, record: { loom: { turns }, gate_log: log } }) as unknown as DriveResult;

/** The ambient turn-schema check on a drive, judged at 0.2.0. */
const turnSchema = (d: DriveResult) => INVARIANTS.find((i) => i.id === 'turn-schema')!.check({ judged_draft: '0.2.0' } as LoadedCase, d);

const caseResult = (id: string, turns: Turn[], log: Partial<GateCallLog>[] = []): CaseResult => ({
  id,
  rules: ['LOOM-5'],
  level: 'MUST',
  requires: [],
  description: id,
  status: 'pass',
  duration_ms: 1,
  failures: [],
  expectations: 1,
  invariants: [{ id: 'turn-schema', rules: ['LOOM-2'], status: 'pass' }],
  problems: [],
  failed_rules: [],
  record_shapes: observeRecordShapes(drive(turns, log)),
  position: { file: 'tests.yaml', line: 1, column: 1 },
});
const suite = (cases: CaseResult[]): SuiteResult => ({ description: { name: 'hand-made', version: '0', spec_version: '0.1.0', protocol_version: 1, features: [] } as unknown as SuiteResult['description'], file: 'tests.yaml', spec_version: '0.1.0', draft: '0.1.0', format_version: 1, started_at: '2026-01-01T00:00:00Z', duration_ms: 1, cases });

describe('observeRecordShapes: one case\'s loom against the spec\'s shapes', () => {
  it('a loom in the spec\'s shapes shows no difference', () => {
    expect(observeRecordShapes(drive(canonical()))).toEqual([]);
  });

  it('a loom that could not be read shows none either (nothing was looked at)', () => {
    expect(observeRecordShapes({ ...drive(canonical().map((t) => ({ ...t, role: 'fold' as const }))), loomAvailable: false })).toEqual([]);
  });

  it('sees each kind, counts its records and keeps the path of the first', () => {
    const turns = canonical();
    const { tool_call_id: _id, ...noId } = echo;
    turns[1]!.gate_calls = [noId as GateCallRecord, { ...noId, result: '3' } as GateCallRecord, { gate: 'fail', ok: false, error: { message: 'no' } } as GateCallRecord];
    turns[2] = turn('t2', 't1', 'fold', { utterance: 'summary' });
    turns[0]!.entity_id = null;
    const log = [
      { gate: 'echo', entity_id: 'e1', tool_call_id: 'x', reply: { ok: true as const, result: 'a' } },
      { gate: 'echo', entity_id: 'e1', tool_call_id: 'y', reply: { ok: true as const, result: 3 } },
    ];
    expect(observeRecordShapes(drive(turns, log))).toEqual([
      { kind: 'gate-record-without-tool-call-id', records: 3, first: 'loom.turns[1].gate_calls[0]' },
      { kind: 'gate-error-without-name', records: 1, first: 'loom.turns[1].gate_calls[2].error' },
      // The first echo returned text ('a'): its record says nothing about how results are kept. The second returned 3 and is kept as '3'.
      { kind: 'gate-result-kept-as-shown-text', records: 1, first: 'loom.turns[1].gate_calls[1].result' },
      { kind: 'fold-turn-without-range', records: 1, first: 'loom.turns[2]' },
      { kind: 'call-turn-without-entity', records: 1, first: 'loom.turns[0].entity_id' },
    ]);
  });

  it('judged at 0.2.0 or later, gate records are left to the draft\'s record contract: only the Turn layout is compared', () => {
    const turns = canonical();
    const { tool_call_id: _id, ...noId } = echo;
    turns[1]!.gate_calls = [noId as GateCallRecord, { gate: 'fail', ok: false, error: { message: 'no' } } as GateCallRecord];
    turns[0]!.entity_id = null;
    expect(observeRecordShapes(drive(turns), '0.3.1')).toEqual([{ kind: 'call-turn-without-entity', records: 1, first: 'loom.turns[0].entity_id' }]);
    expect(observeRecordShapes(drive(turns), '0.1.0').map((o) => o.kind)).toEqual(['gate-record-without-tool-call-id', 'gate-error-without-name', 'call-turn-without-entity']);
  });

  it('a loom the turn schema refuses does not stop it (that is the turn-schema check\'s finding): what is not a record is passed over', () => {
    const turns = [...canonical(), 'not a turn', { ...turn('t3', 't2', 'crystal'), gate_calls: 'nope' }, { ...turn('t4', 't3', 'crystal'), gate_calls: [null, 7, { gate: 'echo', ok: false, error: 'text' }] }] as unknown as Turn[];
    expect(observeRecordShapes(drive(turns))).toEqual([
      { kind: 'gate-record-without-tool-call-id', records: 1, first: 'loom.turns[5].gate_calls[2]' },
      // What the turn schema finds and no rule asks for is noted here (issue 29), not failed.
      { kind: 'turn-field-outside-the-rules', records: 2, first: 'loom.turns[4].gate_calls' },
    ]);
    expect(observeRecordShapes(drive('no turns' as unknown as Turn[]))).toEqual([]);
  });

  it('a field only the layout shows, absent: one finding naming it, and the turn-schema check passes (issue 29)', () => {
    const turns = canonical();
    turns[1] = { ...turns[1]!, metadata: { ...metadata } };
    delete (turns[1].metadata as Partial<Turn['metadata']>).timestamp;
    expect(observeRecordShapes(drive(turns), '0.2.0')).toEqual([{ kind: 'turn-field-outside-the-rules', records: 1, first: 'loom.turns[1].metadata.timestamp' }]);
    expect(turnSchema(drive(turns))).toEqual({ status: 'pass' });
    // One the rules ask for still fails, under its rule.
    delete (turns[1].metadata as Partial<Turn['metadata']>).duration_ms;
    expect(turnSchema(drive(turns))).toMatchObject({ status: 'fail', rules: ['LOOM-9'] });
  });

  it('a string result is text kept as text unless the kit knows the gate returned something else', () => {
    const turns = canonical();
    turns[1]!.gate_calls = [{ ...echo, result: '3' }];
    // Matched by id: the call with id tc1 returned the string '3'.
    expect(observeRecordShapes(drive(turns, [{ gate: 'echo', entity_id: 'e1', tool_call_id: 'tc1', reply: { ok: true, result: '3' } }]))).toEqual([]);
    // A gate the kit did not answer (a built-in such as done): its return value is unknown.
    expect(observeRecordShapes(drive(turns))).toEqual([]);
    expect(observeRecordShapes(drive(turns, [{ gate: 'echo', entity_id: 'e1', tool_call_id: 'tc1', reply: { ok: true, result: 3 } }]))).toEqual([{ kind: 'gate-result-kept-as-shown-text', records: 1, first: 'loom.turns[1].gate_calls[0].result' }]);
  });
});

describe('a fold turn without a range field: one record-shape finding and no failure', () => {
  const foldWithoutRange = (): Turn[] => {
    const turns = canonical();
    turns[2] = turn('t2', 't1', 'fold', { utterance: 'summary' });
    return turns;
  };

  it('the turn is valid by the kit\'s schema (the spec\'s Turn has no range field)', () => {
    for (const t of foldWithoutRange()) expect(validate('turn', t)).toEqual({ ok: true });
  });

  it('three cases with such a loom make one finding of the run, with the cases and records counted', () => {
    const cases = ['a', 'b', 'c'].map((id) => caseResult(id, foldWithoutRange()));
    const findings = recordShapeFindings(cases);
    expect(findings).toEqual([
      { kind: 'fold-turn-without-range', ...RECORD_SHAPE_KINDS['fold-turn-without-range'], level: 'informational', cases: 3, records: 3, case_ids: ['a', 'b', 'c'], example: { case: 'a', path: 'loom.turns[2]' } },
    ]);
  });

  it('the report lists it and fails nothing: every level passes, no rule fails, exit code 0', () => {
    const report = buildReport(suite([caseResult('folds-without-range', foldWithoutRange()), caseResult('folds-with-range', canonical())]));
    assertReportValid(report);
    expect(report.record_shapes).toHaveLength(1);
    expect(report.record_shapes![0]).toMatchObject({ kind: 'fold-turn-without-range', cases: 1, case_ids: ['folds-without-range'] });
    expect(report.verdict.MUST).toMatchObject({ status: 'pass', fail: 0 });
    expect(report.verdict.MUST.ambient_findings).toBeUndefined();
    expect(report.rules.filter((r) => r.status === 'fail')).toEqual([]);
    expect(report.root_causes).toEqual([]);
    expect(exitCode(report)).toBe(0);
    // Per-case observations are gathered in record_shapes, not repeated on each case.
    expect(report.cases.every((c) => !('record_shapes' in c))).toBe(true);
    const md = renderMarkdown(report);
    expect(md).toContain('## Record shapes');
    expect(md.match(/^\| fold turn: fold \| no range of folded sequences/gm)).toHaveLength(1);
  });

  it('a case that did not run to a verdict adds nothing (its loom was not judged)', () => {
    const errored = { ...caseResult('errored', foldWithoutRange()), status: 'errored' as const };
    expect(recordShapeFindings([errored])).toEqual([]);
  });
});

describe('the report schema and the kinds agree', () => {
  it('report.schema.json lists exactly the kinds the judge knows', () => {
    const schema = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'schemas', 'report.schema.json'), 'utf8')) as { $defs: { record_shape_finding: { properties: { kind: { enum: string[] } } } } };
    expect(schema.$defs.record_shape_finding.properties.kind.enum).toEqual(Object.keys(RECORD_SHAPE_KINDS));
  });

  it('a finding that claims a level other than informational is refused by the schema', () => {
    const report = buildReport(suite([caseResult('x', [turn('t0', null, 'call', { entity_id: null })])]));
    const json = JSON.parse(JSON.stringify(report)) as { record_shapes: { level: string }[] };
    expect(validate('report', json)).toEqual({ ok: true });
    json.record_shapes[0]!.level = 'MUST';
    expect(validate('report', json).ok).toBe(false);
  });
});

describe('the section when there is nothing to list', () => {
  const esc = (t: string | number): string => String(t);
  const link = (id: string): string => id;

  it('says whether the looms read match, or no loom was read, or the report predates record shapes', () => {
    const matching = buildReport(suite([caseResult('canonical', canonical())]));
    expect(recordShapeMarkdownSection(matching).at(-1)).toBe('No record of the looms read differs from the shapes the spec shows.');
    const none = buildReport(suite([{ ...caseResult('skipped', canonical()), status: 'skipped', record_shapes: undefined }]));
    expect(recordShapeMarkdownSection(none).at(-1)).toBe('No case ran to a verdict, so no loom was read.');
    const { record_shapes: _gone, ...old } = matching;
    expect(recordShapeMarkdownSection(old)).toEqual([]);
    expect(recordShapeHtmlSection(old, esc, link)).toContain('written before record shapes were recorded');
    expect(recordShapeHtmlSection(none, esc, link)).toContain('No case ran to a verdict');
  });
});

/**
 * Issue 21, "Must show": two real runs of tests.yaml's gate-result cases, every output written as the
 * CLI writes it, then read back (harness/testing/must-show-reports.ts).
 *
 * 1. An implementation whose loom lacks record ids (the conformant variant, which also keeps no error
 *    names and results as shown text): each kind of record-shape difference is one informational finding
 *    for the run, the missing id among them once; every case passes and nothing fails a level.
 * 2. An implementation that refuses every construction as unsupported: the cases are skipped with its
 *    reason, nothing fails.
 *
 * Both fail when the kit goes back to counting a record-shape difference as a failure, or hides it; and
 * when docs/reports.md no longer shows what such a run writes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Miniature } from '../../fixtures/miniatures/miniature.ts';
import { validate } from '../../schemas/loader.ts';
import { PACKAGE_ROOT } from '../case-file/package-root.ts';
import { caseSummaryLines } from '../report/markdown.ts';
import { exitCode, type Report } from '../report/report.ts';
import { elements, parseXml, textOf, type XmlElement } from '../testing/markup-check.ts';
import { GATE_RESULT_CASES, gateResultReport, mdSection, recordShapesExcerpt, RefusesEverySetup, REFUSAL, refusedExcerpt, writeEveryOutput } from '../testing/must-show-reports.ts';
import { hangBound } from '../testing/hang-bound.ts';

const REGENERATE = 'docs/reports.md no longer shows what this run writes: paste the output of `npx tsx harness/testing/must-show-reports.ts` into its "Record shapes" and "A refused construction" examples';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cantrip-must-show-'));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const read = (run: string, file: string): string => readFileSync(join(dir, run, file), 'utf8');
const testcases = (xml: string): XmlElement[] => elements(parseXml(xml)).flatMap((s) => elements(s).filter((e) => e.name === 'testcase'));
const docs = (): string => readFileSync(join(PACKAGE_ROOT, 'docs', 'reports.md'), 'utf8');

describe('a run where the implementation lacks record ids: one finding per kind of record-shape difference, every case passes', () => {
  let report: Report;
  let md: string;
  beforeAll(async () => {
    report = await gateResultReport(() => new Miniature());
    md = writeEveryOutput(join(dir, 'record-shapes'), report);
  }, hangBound(120_000));

  it('report.json: every case passes, MUST passes, exit code 0; the missing id is one finding over all the cases', () => {
    const json = JSON.parse(read('record-shapes', 'report.json')) as Report;
    expect(validate('report', json)).toEqual({ ok: true });
    expect(json.cases.map((c) => [c.id, c.status]).sort()).toEqual(GATE_RESULT_CASES.map((id) => [id, 'pass']).sort());
    expect(json.verdict.MUST).toMatchObject({ status: 'pass', fail: 0 });
    expect(json.verdict.MUST.ambient_findings).toBeUndefined();
    expect(json.root_causes).toEqual([]);
    expect(json.rules.filter((r) => r.status === 'fail')).toEqual([]);
    expect(exitCode(json)).toBe(0);
    const kinds = json.record_shapes!.map((f) => f.kind);
    expect(new Set(kinds).size).toBe(kinds.length);
    const ids = json.record_shapes!.filter((f) => f.kind === 'gate-record-without-tool-call-id');
    expect(ids).toHaveLength(1);
    expect(ids[0]).toMatchObject({ level: 'informational', cases: GATE_RESULT_CASES.length, section: '§4.3' });
    expect([...ids[0]!.case_ids].sort()).toEqual([...GATE_RESULT_CASES].sort());
    // The variant's other side of the open choices shows too, each once: no error names, results kept as text.
    expect(kinds).toEqual(['gate-record-without-tool-call-id', 'gate-error-without-name', 'gate-result-kept-as-shown-text']);
  });

  it('report.md: a "Record shapes" section with one row for the missing id, no failures, no problem', () => {
    const section = mdSection(md, '## Record shapes');
    expect(section.filter((l) => l.startsWith('| gate record: tool_call_id | absent |'))).toHaveLength(1);
    expect(section.filter((l) => /^\| [^-]/.test(l)).slice(1).every((l) => l.includes('| informational |'))).toBe(true);
    expect(mdSection(md, '## Failures')).toEqual(['## Failures', '', 'None.']);
    expect(md).not.toContain('## Problems');
    expect(md).toContain('| MUST | **pass** | 5 | 5 | 0 |');
  });

  it('junit.xml: one passing test per finding, saying what differs; no failure anywhere', () => {
    const xml = read('record-shapes', 'junit.xml');
    expect(parseXml(xml).attrs).toMatchObject({ failures: '0', errors: '0' });
    const tests = testcases(xml);
    expect(tests.filter((t) => elements(t).some((e) => e.name === 'failure' || e.name === 'error'))).toEqual([]);
    const shape = tests.filter((t) => t.attrs.name?.startsWith('record shape: '));
    expect(shape.map((t) => t.attrs.name)).toEqual(report.record_shapes!.map((f) => `record shape: ${f.field} ${f.difference}`));
    // Passing, not skipped: only the output says what differs.
    for (const t of shape) expect(elements(t).map((e) => e.name)).toEqual(['system-out']);
    const id = shape.find((t) => t.attrs.name === 'record shape: gate record: tool_call_id absent')!;
    expect(id.attrs.classname).toBe('cantrip.chapter-4-the-circle.record-shapes');
    expect(textOf(id)).toContain(`Seen in ${GATE_RESULT_CASES.length} cases`);
  });

  it('report.html, summary.md and the console say it too, as informational', () => {
    const html = read('record-shapes', 'report.html');
    expect(html).toContain('<section id="record-shapes">');
    expect(html).toContain('<tr id="record-shape-gate-record-without-tool-call-id">');
    const summary = read('record-shapes', 'summary.md');
    expect(summary).toContain("### Record shapes: 3 differences from the spec's shapes (informational, not counted)");
    expect(summary).toContain('| MUST | ✅ pass |');
    const console = caseSummaryLines(report);
    expect(console.filter((l) => l.startsWith("record shapes: 3 differences from the spec's shapes (informational"))).toHaveLength(1);
    expect(console.filter((l) => l.startsWith('  gate record: tool_call_id absent in 5 cases'))).toHaveLength(1);
    expect(console.some((l) => /^\s*(FAIL|ERRORED) /.test(l))).toBe(false);
  });

  it('docs/reports.md shows this run\'s report.md', () => {
    expect(docs().includes(recordShapesExcerpt(md)), REGENERATE).toBe(true);
  });
});

describe('a run where the implementation refuses the construction as unsupported: a required setup refused fails, any other is skipped with its reason', () => {
  let md: string;
  beforeAll(async () => {
    md = writeEveryOutput(join(dir, 'refused'), await gateResultReport(() => new RefusesEverySetup()));
  }, hangBound(120_000));

  /** The one case of the five whose setup is more than every implementation must build (a composition gate). */
  const OPTIONAL = 'comp3-batch-results-in-request-order';

  it('report.json: the required setups fail naming no rule, the other is skipped with the implementation\'s reason and code', () => {
    const json = JSON.parse(read('refused', 'report.json')) as Report;
    expect(validate('report', json)).toEqual({ ok: true });
    expect(json.summary).toMatchObject({ total: GATE_RESULT_CASES.length, skipped: 1, fail: GATE_RESULT_CASES.length - 1, errored: 0 });
    for (const c of json.cases) {
      if (c.id === OPTIONAL) expect(c).toMatchObject({ status: 'skipped', failures: [], failed_rules: [] });
      else expect(c).toMatchObject({ status: 'fail', failures: [], failed_rules: [] });
      expect(c.id === OPTIONAL ? c.reason : c.problems[0]).toContain(REFUSAL);
    }
    expect(json.profile.skipped.MUST).toMatchObject({ cases: 1, refused: 1, other: 0 });
    expect(json.verdict.MUST.status).toBe('fail');
    expect(exitCode(json)).toBe(1);
  });

  it('junit.xml: the required setups are failures, the other a skipped test carrying the reason', () => {
    const xml = read('refused', 'junit.xml');
    expect(parseXml(xml).attrs).toMatchObject({ failures: String(GATE_RESULT_CASES.length - 1), errors: '0' });
    const skipped = testcases(xml).filter((t) => t.attrs.name === OPTIONAL);
    expect(skipped).toHaveLength(1);
    expect(elements(skipped[0]!)[0]).toMatchObject({ name: 'skipped', attrs: { message: expect.stringContaining(REFUSAL) } });
  });

  it('docs/reports.md shows this run\'s report.md (durations elided)', () => {
    expect(docs().includes(refusedExcerpt(md)), REGENERATE).toBe(true);
  });
});

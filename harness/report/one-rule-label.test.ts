/**
 * One defect, one rule label, in the judged draft's ids (issue 31 item 2, issue 29 item 3). Broken copies
 * of the conformant variant (a miniature defect, or a loom rewritten to drop a field of the stored call)
 * run at 0.2.0 and 0.3.1 through `buildReport` and every format writer (report.json, report.md, the
 * console, junit.xml, report.html, summary.md, badge.json, `diff` against the clean variant):
 *
 * - no output shows a rule id outside the judged draft's catalog (before: a case's description said
 *   CALL-4 in every 0.2.0 and 0.3.1 report, and an ambient check's detail named CRYSTAL-5);
 * - the report blames exactly the defect's own rule, in that draft's id: every failing case, failed
 *   expectation that is not a consequence, root cause, ambient finding and failing rule (before: a call
 *   record without its system prompt was blamed on CALL-3 beside CALL-4, and the consequences of a loom
 *   with no call turn on LOOM-2 and LOOM-12);
 * - the defect of the stored call is one root cause, not one per case that reads it.
 *
 * The runs are filtered to the cases that read what the defects break, so the test stays cheap.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { catalogOf, mapRuleId } from '../../spec/drafts.ts';
import { conformantVariant } from '../../fixtures/miniatures/miniature.ts';
import { loadCaseFile, PACKAGE_ROOT } from '../case-file/index.ts';
import type { CaseFile } from '../case-file/types.ts';
import { describeAdapter, runSuite } from '../run/index.ts';
import { runProperties } from '../properties/index.ts';
import { hangBound } from '../testing/hang-bound.ts';
import { blamedRules, brokenVariant, declaredRules, everyOutput, ruleIdsIn } from '../testing/rule-labels.ts';
import { buildReport, type Report } from './report.ts';

/**
 * The rules (0.1.0 ids) whose cases read what the defects below break (the case whose description names
 * CALL-4 among them), and two turn-cap cases: one of 0.1.0, and LOOP-7's of 0.2.0 and 0.3.1, whose
 * answerless dones a cap let run past it must be blamed on the cap (LOOP-4, CIRCLE-6), not on LOOP-7;
 * and 0.3.1's circle that names no medium, a conversation, where an entity nobody cast is ENTITY-1's
 * departure as on a named one, not a LOOM-7 finding of the terminal-state check.
 */
const FILTER = ['CALL-3', 'CALL-4', 'LOOM-2', 'LOOM-12', 'CRYSTAL-5', 'CALL-1', 'max-turns-truncates-the-cast', 'loop7-done-that-keeps-failing-ends-truncated', 'medium1-circle-without-medium-is-conversation'];
/** Defects of the stored call, of the loom's root, of past turns, of the turn cap, of the entities, and one found while driving (its fault names CRYSTAL-5). */
const DEFECTS = ['call-prompt-dropped', 'call-prompt-wrapped', 'call-kept-under-another-key', 'no-call-turn', 'mutates-past-turns', 'forcing-not-simulated', 'off-by-one-max-turns', 'turns-under-a-stray-entity'];
const DRAFTS = ['0.1.0', '0.2.0', '0.3.1'] as const;

let file: CaseFile;
const reports = new Map<string, Report>();
const clean = new Map<string, Report>();
beforeAll(async () => {
  file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
  for (const draft of DRAFTS) {
    clean.set(draft, buildReport(await runSuite(file, () => conformantVariant(), { jobs: 4, draft, filter: FILTER })));
    for (const defect of DEFECTS) reports.set(`${draft} ${defect}`, buildReport(await runSuite(file, () => brokenVariant(defect), { jobs: 4, draft, filter: FILTER })));
  }
}, hangBound(240_000));

describe.each(DRAFTS)('judged at %s', (draft) => {
  /** The rule that asks the loom to keep the call as its root, in this draft's id (CALL-4, IDENTITY-4 from 0.2.0). */
  const keepsCall = mapRuleId('CALL-4', '0.1.0', draft)!;
  const catalog = (): Set<string> => new Set(catalogOf(draft).rules.map((r) => r.id));

  it.each(DEFECTS)('%s: no output shows a rule id outside the draft', (defect) => {
    const report = reports.get(`${draft} ${defect}`)!;
    expect(report.cases.length).toBeGreaterThan(5);
    const leaks = Object.entries(everyOutput(report, clean.get(draft))).flatMap(([output, text]) => ruleIdsIn(text).filter((id) => !catalog().has(id)).map((id) => `${id} in ${output}`));
    expect(leaks).toEqual([]);
  });

  it.each(DEFECTS)('%s: blamed on its own rule only, in the draft\'s id', (defect) => {
    const report = reports.get(`${draft} ${defect}`)!;
    const wanted = (declaredRules().get(defect) ?? []).map((id) => mapRuleId(id, '0.1.0', draft)!).sort();
    const blamed = [...blamedRules(report).keys()].sort();
    // Within the defect's rules (the filter runs only some of the cases that show each), and exactly them for the defects of the stored call.
    expect(blamed.filter((r) => !wanted.includes(r))).toEqual([]);
    if (defect.startsWith('call-') || defect === 'no-call-turn') expect(blamed).toEqual(wanted);
    // A defect is seen where it should be: the clean variant passes these cases, and the broken copy (but the permitted one) is blamed.
    expect(clean.get(draft)!.cases.filter((c) => c.status === 'fail').map((c) => c.id)).toEqual([]);
    expect(blamed.length > 0).toBe(wanted.length > 0);
  });

  it("a failing property's outputs (its rules, its reproducer) name only the draft's ids", async () => {
    const factory = () => brokenVariant('system-prompt-dropped-after-first-turn');
    const properties = await runProperties(factory, await describeAdapter(factory), { draft, runs: 3, filter: ['call-and-intent-lead-every-request'] });
    expect(properties.map((p) => [p.id, p.status])).toEqual([['call-and-intent-lead-every-request', 'fail']]);
    const report = buildReport(await runSuite(file, factory, { jobs: 4, draft, filter: ['CALL-2'] }), { properties });
    const leaks = Object.entries(everyOutput(report)).flatMap(([output, text]) => ruleIdsIn(text).filter((id) => !catalog().has(id)).map((id) => `${id} in ${output}`));
    expect(leaks).toEqual([]);
    expect(properties[0]!.failed_rules).toEqual([mapRuleId('CALL-2', '0.1.0', draft)]);
  }, hangBound(120_000));

  it('the stored call without its prompt is one root cause, under CALL-4 (IDENTITY-4), in every case that reads it', () => {
    const report = reports.get(`${draft} call-prompt-dropped`)!;
    const failing = report.cases.filter((c) => c.status === 'fail');
    expect(failing.length).toBeGreaterThanOrEqual(3);
    expect(failing.map((c) => [c.id, c.failed_rules])).toEqual(failing.map((c) => [c.id, [keepsCall]]));
    expect(report.root_causes.map((g) => g.rules)).toEqual([[keepsCall]]);
    expect(report.root_causes[0]!.count).toBe(failing.length);
  });

  it('a loom with no call turn is one root cause, under CALL-4 (IDENTITY-4): what reads the roots is its consequence', () => {
    const report = reports.get(`${draft} no-call-turn`)!;
    expect(report.root_causes.map((g) => g.rules)).toEqual([[keepsCall]]);
  });

  it('a prompt kept wrapped fails the turn-schema check under CALL-4 (IDENTITY-4) alone, not under the LOOM-2 and LOOM-9 it also reads', () => {
    const check = reports.get(`${draft} call-prompt-wrapped`)!.ambient_checks.find((a) => a.id === 'turn-schema')!;
    expect([check.status, check.rules, check.findings.map((f) => f.rules)]).toEqual(['fail', [keepsCall], [[keepsCall]]]);
  });
});

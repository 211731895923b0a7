/**
 * Incomplete is not fail (issue 23, item 3): a case or property that errored (a time limit, an adapter
 * that threw, an interruption) checked nothing, so it makes its level `incomplete` with exit code 3,
 * never `fail`; a level fails only when something failed or an expected failure is stale.
 */
import { describe, expect, it } from 'vitest';
import type { CaseResult, SuiteResult } from '../run/run.ts';
import type { PropertyResult } from '../properties/run-properties.ts';
import { propertyLines, verdictLines } from './markdown.ts';
import { assertReportValid, buildReport, exitCode, INCOMPLETE_EXIT } from './report.ts';
import { renderBadge, renderJobSummary } from './summary.ts';

const result = (id: string, status: CaseResult['status'], extra: Partial<CaseResult> = {}): CaseResult => ({
  id,
  rules: ['LOOP-3'],
  level: 'MUST',
  requires: [],
  description: id,
  status,
  duration_ms: 1,
  failures: [],
  expectations: status === 'skipped' ? 0 : 1,
  invariants: [],
  problems: [],
  failed_rules: status === 'fail' ? ['LOOP-3'] : [],
  position: { file: 'tests.yaml', line: 1, column: 1 },
  ...extra,
});

const suiteOf = (cases: CaseResult[]): SuiteResult => ({
  description: { name: 'impl', version: '1', spec_version: '0.1.0-draft', protocol_version: 1, features: [] },
  file: 'tests.yaml',
  spec_version: '0.1.0-draft',
  draft: '0.1.0',
  format_version: 1,
  started_at: '2026-01-01T00:00:00.000Z',
  duration_ms: 10,
  cases,
});

const property = (id: string, status: PropertyResult['status'], extra: Partial<PropertyResult> = {}): PropertyResult => ({
  id,
  rules: ['LOOP-3'],
  level: 'MUST',
  title: id,
  status,
  runs: 3,
  seed: 1,
  duration_ms: 1,
  failed_rules: [],
  ...extra,
});

const passing = Array.from({ length: 3 }, (_, i) => result(`ok-${i}`, 'pass'));
const slow = result('slow', 'errored', { reason: 'case slow did not finish within 10 ms', timed_out: true });

describe('level verdicts', () => {
  it('a case that ran out of its time limit makes MUST incomplete (exit 3), not fail', () => {
    const report = buildReport(suiteOf([...passing, slow]));
    assertReportValid(report);
    expect(report.verdict.MUST).toMatchObject({ status: 'incomplete', applicable: 4, pass: 3, errored: 1, fail: 0 });
    expect(exitCode(report)).toBe(INCOMPLETE_EXIT);
    expect(INCOMPLETE_EXIT).toBe(3);
    expect(verdictLines(report)).toContain('MUST   INCOMPLETE  (3/3 run pass; 1 errored)');
    expect(renderBadge(report)).toMatchObject({ message: 'MUST incomplete (1 errored)', color: 'yellow' });
    expect(renderJobSummary(report)).toContain('| MUST | ⚠️ **incomplete** |');
  });

  it('a failure fails the level whatever else errored; the errored ones are named beside it', () => {
    const report = buildReport(suiteOf([...passing, slow, result('broken', 'fail')]));
    expect(report.verdict.MUST.status).toBe('fail');
    expect(exitCode(report)).toBe(1);
    expect(verdictLines(report)).toContain('MUST   FAIL        (3/5 applicable pass; 1 fail; 1 errored)');
    expect(renderBadge(report)).toMatchObject({ message: 'MUST failing (1) · 1 errored', color: 'red' });
  });

  it('an errored property makes its level incomplete, a failing one fails it', () => {
    const errored = buildReport(suiteOf(passing), { properties: [property('p1', 'pass'), property('p2', 'errored', { reason: 'adapter threw' })] });
    expect(errored.verdict.MUST.status).toBe('incomplete');
    expect(exitCode(errored)).toBe(INCOMPLETE_EXIT);
    const failed = buildReport(suiteOf(passing), { properties: [property('p1', 'fail', { failed_rules: ['LOOP-3'] }), property('p2', 'errored')] });
    expect(failed.verdict.MUST.status).toBe('fail');
    expect(exitCode(failed)).toBe(1);
  });

  it('an errored case listed as an expected failure stays xfail: the level passes', () => {
    const report = buildReport(suiteOf([...passing, { ...slow, status: 'xfail' }]));
    expect(report.verdict.MUST.status).toBe('pass');
    expect(exitCode(report)).toBe(0);
  });

  it('an interrupted run: every unfinished case and property errored, the verdict incomplete, no counterexample printed', () => {
    const cut = result('cut', 'errored', { reason: 'the run was interrupted (SIGINT) while this case ran' });
    const properties = [
      property('p1', 'pass'),
      property('p2', 'errored', { interrupted: true, reason: 'the run was interrupted (SIGINT) while this property ran (after 3 runs)' }),
      property('p3', 'errored', { interrupted: true, runs: 0, reason: 'not run: the run was interrupted (SIGINT)' }),
    ];
    const report = buildReport(suiteOf([...passing, cut]), { properties, interrupted: 'SIGINT' });
    assertReportValid(report);
    expect(report.verdict.MUST.status).toBe('incomplete');
    expect(exitCode(report)).toBe(INCOMPLETE_EXIT);
    const lines = [...propertyLines(report), ...verdictLines(report)];
    expect(lines).toContain('MUST   INCOMPLETE  (3/3 run pass; 1 errored; properties 1/3 pass, 2 errored)');
    expect(lines).toContain('  INTERRUPTED property p2 [LOOP-3] after 3 runs');
    expect(lines.some((l) => l.includes('shrunk'))).toBe(false);
  });
});

/**
 * A verdict cannot be had by refusing (issue 32, item 2). Refusing a conversation circle with done and a
 * turn cap, which every draft requires every implementation to build (§4.5), fails the case, blaming no
 * rule of the case; a run that judged nothing or almost nothing of a level is incomplete, in its verdict,
 * its badge and its exit status, never a plain pass.
 */
import { describe, it, expect } from 'vitest';
import { join } from 'node:path';
import type { CantripSetup, Description, Host, Result } from '../../schemas/adapter.ts';
import { Miniature, VARIANT_DRAFTS } from '../../fixtures/miniatures/miniature.ts';
import { loadCaseFile, loadCaseText, PACKAGE_ROOT } from '../case-file/index.ts';
import { buildReport, exitCode, verdictLines } from '../report/index.ts';
import { INCOMPLETE_EXIT } from '../report/report.ts';
import { renderBadge } from '../report/summary.ts';
import { hangBound } from '../testing/hang-bound.ts';
import { runSuite } from './run.ts';

/** The conformant variant (declaring every draft it builds), refusing every construction as unsupported. */
class RefusesEverySetup extends Miniature {
  constructor() {
    super(undefined, { drafts: VARIANT_DRAFTS });
  }

  override async construct(_setup: CantripSetup, _host: Host): Promise<Result<{ cantrip: string }>> {
    return { ok: false, error: { code: 'unsupported', message: 'this implementation builds nothing' } };
  }
}

const FILE = loadCaseText(
  `format_version: 1
spec_version: 0.1.0-draft
cases:
  - id: echo-then-done
    rules: [CIRCLE-4, LOOP-3]
    level: MUST
    description: a conversation circle with done, a test gate and a turn cap
    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done, echo], wards: { max_turns: 3 } } }
    crystals:
      parent: { script: [{ tool_calls: [{ gate: echo, args: { text: a } }] }, { tool_calls: [{ gate: done, args: { answer: z } }] }] }
    act: [{ cast: { intent: go, as: first } }]
    expect: [{ path: outcomes.first.result, equals: z, rule: LOOP-3 }]
  - id: with-a-timeout-ward
    rules: [LOOP-3]
    level: MUST
    description: the same with an optional ward besides the turn cap
    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done], wards: { max_turns: 3, timeout_ms: 60000 } } }
    crystals:
      parent: { script: [{ tool_calls: [{ gate: done, args: { answer: z } }] }] }
    act: [{ cast: { intent: go, as: first } }]
    expect: [{ path: outcomes.first.result, equals: z }]
`,
  'refusing.yaml',
);

describe('refusing a setup every implementation must build', () => {
  it('fails the case, naming none of its rules; a setup with an optional ward refused is still a skip', async () => {
    const suite = await runSuite(FILE, () => new RefusesEverySetup());
    const [required, optional] = suite.cases;
    expect(required).toMatchObject({ id: 'echo-then-done', status: 'fail', failed_rules: [] });
    expect(required!.problems).toHaveLength(1);
    expect(required!.failures).toEqual([]);
    expect(optional).toMatchObject({ id: 'with-a-timeout-ward', status: 'skipped', failed_rules: [] });
    const report = buildReport(suite);
    expect(report.verdict.MUST.status).toBe('fail');
    expect(exitCode(report)).toBe(1);
  });

  it('the conformant variant builds both and passes them', async () => {
    const suite = await runSuite(FILE, () => new Miniature());
    expect(suite.cases.map((c) => c.status)).toEqual(['pass', 'pass']);
  });
});

describe('a level that judged nothing or almost nothing', () => {
  it('refusing every construction in the whole suite at 0.1.0 and 0.2.0: never MUST PASS, never exit 0', async () => {
    const file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
    for (const draft of ['0.1.0', '0.2.0']) {
      const report = buildReport(await runSuite(file, () => new RefusesEverySetup(), { draft }));
      expect(report.verdict.MUST.status).not.toBe('pass');
      expect(exitCode(report)).not.toBe(0);
    }
  }, hangBound(240_000));

  it('a filter whose every case needs a feature not declared: MUST incomplete with nothing judged, exit 3, badge and verdict line say so', async () => {
    class NoAcp extends Miniature {
      constructor() {
        super(undefined, { drafts: VARIANT_DRAFTS });
      }
      override async describe(): Promise<Description> {
        const d = await super.describe();
        return { ...d, features: d.features.filter((f) => f !== 'acp') };
      }
    }
    const suite = await runSuite(loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml')), () => new NoAcp(), { filter: ['acp'] });
    expect(suite.cases.length).toBeGreaterThan(0);
    expect(suite.cases.every((c) => c.status === 'skipped')).toBe(true);
    const report = buildReport(suite, { filter: ['acp'] });
    expect(report.verdict.MUST.status).toBe('incomplete');
    expect(report.verdict.MUST.judged_too_little).toMatchObject({ judged: 0 });
    expect(exitCode(report)).toBe(INCOMPLETE_EXIT);
    expect(renderBadge(report).color).toBe('yellow');
    expect(verdictLines(report).find((l) => l.startsWith('MUST'))).toMatch(/^MUST\s+INCOMPLETE/);
  }, hangBound(60_000));

  it('a run that judged enough stays a pass: the conformant variant on LOOP-3', async () => {
    const report = buildReport(await runSuite(loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml')), () => new Miniature(), { filter: ['LOOP-3'] }));
    expect(report.verdict.MUST.status).toBe('pass');
    expect(report.verdict.MUST.judged_too_little).toBeUndefined();
    expect(exitCode(report)).toBe(0);
  }, hangBound(60_000));
});

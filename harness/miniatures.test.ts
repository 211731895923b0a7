import { describe, it, expect, beforeAll } from 'vitest';
import { join } from 'node:path';
import { DEFECTS, Miniature, type Defect } from '../fixtures/miniatures/miniature.ts';
import { PACKAGE_ROOT } from './cli-main.ts';
import { loadCaseFile } from './load.ts';
import { runSuite, type SuiteResult } from './run.ts';
import type { CaseFile } from './case-types.ts';

/** Each deliberately broken miniature and what the suite must catch: failing case ids and rule ids. */
const EXPECTED: Record<Defect, { cases: string[]; rules: string[] }> = {
  'ignores-done': { cases: ['done-ends-cast-with-answer'], rules: ['LOOP-3', 'CIRCLE-8'] },
  'swallows-gate-errors': { cases: ['gate-failure-returns-as-observation'], rules: ['CIRCLE-5'] },
  'off-by-one-max-turns': { cases: ['max-turns-truncates-the-cast', 'truncated-cast-gets-a-summary'], rules: ['LOOP-4', 'CIRCLE-2'] },
  'drops-usage': { cases: ['usage-tracked-per-turn-and-per-entity'], rules: ['PROD-3', 'LOOM-9'] },
  'mutates-past-turns': { cases: ['stored-turn-cannot-be-edited'], rules: ['LOOM-3'] },
  'intent-not-first': { cases: ['system-prompt-leads-every-request'], rules: ['INTENT-2'] },
  'system-prompt-dropped-after-first-turn': { cases: ['system-prompt-leads-every-request', 'gates-presented-on-every-query'], rules: ['CALL-2'] },
  'text-ends-loop-despite-require-done': { cases: ['require-done-text-reply-continues'], rules: ['LOOP-6'] },
  'no-construction-validation': { cases: ['construct-without-done-gate-refused', 'construct-without-truncation-ward-refused'], rules: ['CANTRIP-3', 'CIRCLE-1', 'CIRCLE-2'] },
  'shared-state-between-casts': { cases: ['casts-of-one-cantrip-are-independent'], rules: ['CANTRIP-2'] },
};

const failing = (suite: SuiteResult) => suite.cases.filter((c) => c.status === 'fail');

describe('broken miniatures are caught by the suite', () => {
  let file: CaseFile;
  beforeAll(() => {
    file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
  });

  it('the table names at least 8 defects and every defect the miniature has', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...DEFECTS].sort());
    expect(DEFECTS.length).toBeGreaterThanOrEqual(8);
  });

  it('the miniature without a defect passes every case it can run', async () => {
    const suite = await runSuite(file, () => new Miniature());
    const bad = suite.cases.filter((c) => c.status !== 'pass' && c.status !== 'skipped');
    expect(bad.map((c) => ({ id: c.id, status: c.status, reason: c.reason, failures: c.failures, problems: c.problems, invariants: c.invariants.filter((i) => i.status === 'fail') }))).toEqual([]);
    expect(suite.cases.filter((c) => c.status === 'pass').length).toBeGreaterThanOrEqual(25);
  });

  for (const defect of DEFECTS) {
    it(`${defect}: fails on ${EXPECTED[defect].rules.join(', ')}`, async () => {
      const suite = await runSuite(file, () => new Miniature(defect));
      const failed = failing(suite);
      expect(failed.map((c) => c.id)).toEqual(expect.arrayContaining(EXPECTED[defect].cases));
      const rules = new Set(failed.flatMap((c) => c.failed_rules));
      for (const rule of EXPECTED[defect].rules) expect(rules, `rule ${rule} should be reported broken`).toContain(rule);
      // A defect is a wrong answer, not a crash: the harness reports failures, never errors.
      expect(suite.cases.filter((c) => c.status === 'errored').map((c) => c.id)).toEqual([]);
    });
  }
});

import { describe, it, expect, beforeAll } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFECTS, Miniature, type Defect } from '../../fixtures/miniatures/miniature.ts';
import { PACKAGE_ROOT } from '../cli/main.ts';
import { loadCaseFile } from '../case-file/load.ts';
import { optionalWards } from '../plan/plan.ts';
import { runSuite, type SuiteResult } from './run.ts';
import type { CaseFile } from '../case-file/types.ts';

/** Each deliberately broken miniature and what the suite must catch: failing case ids and rule ids. */
const EXPECTED: Record<Defect, { cases: string[]; rules: string[] }> = {
  'ignores-done': { cases: ['done-ends-cast-with-answer', 'loop3-done-first-of-three-calls'], rules: ['LOOP-3', 'CIRCLE-8'] },
  'swallows-gate-errors': { cases: ['gate-failure-returns-as-observation', 'circle5-failure-then-recovery'], rules: ['CIRCLE-5'] },
  'off-by-one-max-turns': { cases: ['max-turns-truncates-the-cast', 'truncated-cast-gets-a-summary', 'ward1-child-turn-cap-is-the-smaller'], rules: ['LOOP-4', 'CIRCLE-2', 'WARD-1'] },
  'drops-usage': { cases: ['usage-tracked-per-turn-and-per-entity', 'loop4-token-budget-ward'], rules: ['PROD-3', 'LOOM-9'] },
  'mutates-past-turns': { cases: ['stored-turn-cannot-be-edited', 'loom3-stored-turn-cannot-be-deleted'], rules: ['LOOM-3'] },
  'intent-not-first': { cases: ['system-prompt-leads-every-request', 'intent2-intent-is-first-user-message-after-system'], rules: ['INTENT-2'] },
  'system-prompt-dropped-after-first-turn': { cases: ['system-prompt-leads-every-request', 'gates-presented-on-every-query'], rules: ['CALL-2'] },
  'text-ends-loop-despite-require-done': { cases: ['require-done-text-reply-continues'], rules: ['LOOP-6'] },
  // circle1-done-removed-by-ward-refused needs remove_gates, a ward the variant does not declare.
  'no-construction-validation': { cases: ['construct-without-done-gate-refused', 'construct-without-truncation-ward-refused'], rules: ['CANTRIP-3', 'CIRCLE-1', 'CIRCLE-2'] },
  'shared-state-between-casts': { cases: ['casts-of-one-cantrip-are-independent'], rules: ['CANTRIP-2'] },
  'child-inherits-parent-history': { cases: ['comp4-child-history-stays-out-of-parent', 'child-starts-without-parent-history'], rules: ['COMP-4'] },
  'batch-results-in-completion-order': { cases: ['comp3-batch-results-in-request-order'], rules: ['COMP-3'] },
  'child-gets-every-parent-gate': { cases: ['comp1-child-offered-only-requested-gates', 'comp1-gate-parent-lacks-not-granted'], rules: ['COMP-1'] },
  'skipped-calls-left-unanswered': { cases: ['circle4-every-call-answered-in-a-later-send'], rules: ['CIRCLE-4'] },
  'child-data-before-intent': { cases: ['comp4-child-with-context-sees-its-intent-first'], rules: ['INTENT-2', 'COMP-4'] },
  'forcing-not-simulated': { cases: ['crystal5-required-tool-use-simulated-for-a-crystal-that-cannot-force'], rules: ['CRYSTAL-5'] },
  'child-escapes-token-budget': { cases: ['ward1-child-token-budget-no-looser-than-parent'], rules: ['WARD-1'] },
  'declared-gate-schema-replaced': { cases: ['circle11-declared-gate-schema-presented-and-fixed-result-observed'], rules: ['CIRCLE-11'] },
  'null-tool-calls-rejected': { cases: ['crystal6-null-tool-calls-read-as-none'], rules: ['CRYSTAL-6'] },
  'batch-gate-survives-depth-limit': { cases: ['comp6-child-at-the-depth-limit-has-no-batch-gate'], rules: ['COMP-6'] },
  'later-requests-drop-the-send-intent': { cases: ['intent2-later-send-intent-on-every-request-of-that-send'], rules: ['INTENT-2'] },
  'turn-duration-excludes-crystal-wait': { cases: ['loom9-duration-covers-slow-crystal'], rules: ['LOOM-9'] },
  'batch-children-outlive-parent': { cases: ['comp9-parent-timeout-stops-every-batch-child'], rules: ['COMP-9'] },
  'duplicate-ids-checked-side-by-side': { cases: ['crystal4-duplicate-ids-apart-in-one-reply'], rules: ['CRYSTAL-4'] },
  'fork-onto-other-crystal-starts-fresh': { cases: ['loom4-fork-onto-another-crystal-carries-the-path'], rules: ['LOOM-4'] },
  'turns-under-a-stray-entity': { cases: ['entity1-every-entity-in-the-loom-came-from-a-cast-or-an-invocation'], rules: ['ENTITY-1'] },
};

/**
 * Optional features the variant does not declare, so their cases are skipped on it with the reason: the
 * lineage features (issue 14), and COMP-7's other crystal or call for children (issue 21: its children
 * always use the parent's, and every other composition case runs on that shared crystal).
 */
const UNDECLARED_LINEAGE = ['verifier-wards', 'overlay-file-gates', 'child-circle-wards', 'bounded-events', 'child-crystal', 'child-call'];
/** Cases about delegation in a conversation circle: the variant declares composition, so all of them must run and pass (or be skipped for a ward it does not declare). */
const isConversationComposition = (c: { requires: string[] }): boolean =>
  c.requires.includes('composition') && !c.requires.includes('code-medium') && !c.requires.some((f) => UNDECLARED_LINEAGE.includes(f));
const MINIATURE_DIR = join(PACKAGE_ROOT, 'fixtures', 'miniatures');
/** The table printer is a tool that drives the harness, not part of the miniature. */
const NOT_THE_MINIATURE = new Set(['table.ts']);

const failing = (suite: SuiteResult) => suite.cases.filter((c) => c.status === 'fail');

describe('broken miniatures are caught by the suite', () => {
  let file: CaseFile;
  beforeAll(() => {
    file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
  });

  // Miniature instances share nothing, so the cases that only wait may overlap, as for the reference (npm start).
  const MINIATURE_JOBS = 6;

  it('the table names at least 8 defects and every defect the miniature has', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...DEFECTS].sort());
    expect(DEFECTS.length).toBeGreaterThanOrEqual(8);
  });

  it('the conformant variant (no defect) passes every case it can run, composition (COMP-1..9) included', async () => {
    const suite = await runSuite(file, () => new Miniature(), { jobs: MINIATURE_JOBS });
    const bad = suite.cases.filter((c) => c.status !== 'pass' && c.status !== 'skipped');
    expect(bad.map((c) => ({ id: c.id, status: c.status, reason: c.reason, failures: c.failures, problems: c.problems, invariants: c.invariants.filter((i) => i.status === 'fail') }))).toEqual([]);
    // It declares less than everything (two features, two optional wards), so fewer cases run than for the reference.
    expect(suite.cases.filter((c) => c.status === 'pass').length).toBeGreaterThanOrEqual(140);
    const composition = suite.cases.filter(isConversationComposition);
    expect(composition.length).toBeGreaterThanOrEqual(20);
    expect(composition.filter((c) => c.status === 'pass').length).toBeGreaterThanOrEqual(20);
    // A composition case may be skipped only because it sets a ward the variant does not declare.
    const declared = new Set<string>((await new Miniature().describe()).wards ?? []);
    const needsUndeclaredWard = new Set(file.cases.filter((c) => optionalWards(c).some((w) => !declared.has(w))).map((c) => c.id));
    expect(composition.filter((c) => c.status !== 'pass' && !(c.status === 'skipped' && needsUndeclaredWard.has(c.id))).map((c) => c.id)).toEqual([]);
  });

  it('the miniature is independent of the reference: its modules import only schemas/ and each other', () => {
    const files = readdirSync(MINIATURE_DIR).filter((f) => f.endsWith('.ts') && !NOT_THE_MINIATURE.has(f));
    expect(files).toContain('miniature.ts');
    const imports = files.flatMap((f) => [...readFileSync(join(MINIATURE_DIR, f), 'utf8').matchAll(/^(?:import|export)[^'"]*from '([^']+)'/gm)].map((m) => ({ file: f, from: m[1] })));
    expect(imports.length).toBeGreaterThan(files.length);
    expect(imports.filter((i) => !/^\.\.\/\.\.\/schemas\/[a-z-]+\.ts$|^\.\/[a-z-]+\.ts$/.test(i.from ?? ''))).toEqual([]);
  });

  for (const defect of DEFECTS) {
    it(`${defect}: fails on ${EXPECTED[defect].rules.join(', ')}`, async () => {
      const suite = await runSuite(file, () => new Miniature(defect), { jobs: MINIATURE_JOBS });
      const failed = failing(suite);
      expect(failed.map((c) => c.id)).toEqual(expect.arrayContaining(EXPECTED[defect].cases));
      const rules = new Set(failed.flatMap((c) => c.failed_rules));
      for (const rule of EXPECTED[defect].rules) expect(rules, `rule ${rule} should be reported broken`).toContain(rule);
      // A defect is a wrong answer, not a crash: the harness reports failures, never errors.
      expect(suite.cases.filter((c) => c.status === 'errored').map((c) => c.id)).toEqual([]);
    });
  }
});

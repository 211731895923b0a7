import { describe, it, expect, beforeAll } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFECTS, Miniature, type Defect } from '../../fixtures/miniatures/miniature.ts';
import { PACKAGE_ROOT } from '../cli/main.ts';
import { loadCaseFile } from '../case-file/load.ts';
import { optionalWards } from '../plan/plan.ts';
import { runSuite, type SuiteResult } from './run.ts';
import type { CaseFile } from '../case-file/types.ts';
import { ambientChecks } from '../report/ambient-checks.ts';

/**
 * Each deliberately broken miniature and what the suite must catch: failing case ids, and the rules it
 * breaks (fixtures/miniatures/defects.ts says why each one is broken). The run must show broken exactly
 * `rules`, no other: a run that leaves its script is a driving fault under the rule that was broken
 * (harness/drive/mock-crystal.ts, harness/drive/course.ts), and what the case's expectations and the
 * ambient checks read after it are its consequences, not failures of their own rules.
 */
const EXPECTED: Record<Defect, { cases: string[]; rules: string[] }> = {
  'ignores-done': { cases: ['done-ends-cast-with-answer', 'loop3-done-first-of-three-calls'], rules: ['LOOP-3', 'CIRCLE-8'] },
  'swallows-gate-errors': { cases: ['gate-failure-returns-as-observation', 'circle5-failure-then-recovery'], rules: ['CIRCLE-5'] },
  // One turn past the cap is the circle not enforcing its ward (CIRCLE-6), for children too (WARD-1).
  'off-by-one-max-turns': { cases: ['max-turns-truncates-the-cast', 'truncated-cast-gets-a-summary', 'ward1-child-turn-cap-is-the-smaller'], rules: ['LOOP-4', 'CIRCLE-6', 'WARD-1'] },
  // Zero usage also starves the token-budget ward, the entity's (LOOP-4) and its children's (WARD-1).
  'drops-usage': { cases: ['usage-tracked-per-turn-and-per-entity', 'loop4-token-budget-ward'], rules: ['PROD-3', 'LOOM-9', 'LOOP-4', 'WARD-1'] },
  // Accepted edits leave the loom broken in the ways the edits chose: a dangling parent (LOOM-2), a turn both terminated and truncated (LOOM-7), a chain cut (LOOP-1).
  'mutates-past-turns': { cases: ['stored-turn-cannot-be-edited', 'loom3-stored-turn-cannot-be-deleted'], rules: ['LOOM-3', 'LOOM-2', 'LOOM-7', 'LOOP-1'] },
  'intent-not-first': { cases: ['intent2-intent-is-first-user-message-after-system'], rules: ['INTENT-2'] },
  'system-prompt-dropped-after-first-turn': { cases: ['system-prompt-leads-every-request'], rules: ['CALL-2'] },
  // The cast that ends on text is a LOOP-6 finding of the drive (harness/drive/course.ts): the missing circle message after it is its consequence, not LOOP-1's.
  'text-ends-loop-despite-require-done': { cases: ['require-done-text-reply-continues'], rules: ['LOOP-6'] },
  // circle1-done-removed-by-ward-refused needs remove_gates, a ward the variant does not declare. A circle
  // without a ward accepted is also a configuration that cannot end accepted (LOOP-2).
  'no-construction-validation': { cases: ['construct-without-done-gate-refused', 'construct-without-truncation-ward-refused'], rules: ['CANTRIP-3', 'CIRCLE-1', 'CIRCLE-2', 'LOOP-2'] },
  // The reused entity's requests lead with the first cast's intent (INTENT-2), and its ids are shared (ENTITY-2).
  'shared-state-between-casts': { cases: ['casts-of-one-cantrip-are-independent'], rules: ['CANTRIP-2', 'ENTITY-2', 'INTENT-2'] },
  // The copied history holds the parent's call_entity call, unanswered in the child's context (CIRCLE-4, CIRCLE-7), and leads with the parent's intent (INTENT-2).
  'child-inherits-parent-history': { cases: ['comp4-child-history-stays-out-of-parent', 'child-starts-without-parent-history'], rules: ['COMP-4', 'INTENT-2', 'CIRCLE-4', 'CIRCLE-7'] },
  'batch-results-in-completion-order': { cases: ['comp3-batch-results-in-request-order'], rules: ['COMP-3'] },
  'child-gets-every-parent-gate': { cases: ['comp1-child-offered-only-requested-gates', 'comp1-gate-parent-lacks-not-granted'], rules: ['COMP-1'] },
  'child-data-before-intent': { cases: ['comp4-child-with-context-sees-its-intent-first'], rules: ['INTENT-2'] },
  'forcing-not-simulated': { cases: ['crystal5-required-tool-use-simulated-for-a-crystal-that-cannot-force'], rules: ['CRYSTAL-5'] },
  'child-escapes-token-budget': { cases: ['ward1-child-token-budget-no-looser-than-parent'], rules: ['WARD-1'] },
  'declared-gate-schema-replaced': { cases: ['circle11-declared-gate-schema-presented-and-fixed-result-observed'], rules: ['CIRCLE-11'] },
  'null-tool-calls-rejected': { cases: ['crystal6-null-tool-calls-read-as-none'], rules: ['CRYSTAL-6'] },
  'batch-gate-survives-depth-limit': { cases: ['comp6-child-at-the-depth-limit-has-no-batch-gate'], rules: ['COMP-6'] },
  // The dropped intent is missing from every later request of a cast or send: the send's intent is not among its messages (INTENT-2, as the kit reads it for a send), the intent does not reach every turn (LOOP-5), and the intent message is not the same in every request of the cast (INTENT-3, as spec/rules.yaml reads it).
  'later-requests-drop-the-send-intent': { cases: ['intent2-later-send-intent-on-every-request-of-that-send'], rules: ['INTENT-2', 'LOOP-5', 'INTENT-3'] },
  'turn-duration-excludes-crystal-wait': { cases: ['loom9-duration-covers-slow-crystal'], rules: ['LOOM-9'] },
  'batch-children-outlive-parent': { cases: ['comp9-parent-timeout-stops-every-batch-child'], rules: ['COMP-9'] },
  'duplicate-ids-checked-side-by-side': { cases: ['crystal4-duplicate-ids-apart-in-one-reply'], rules: ['CRYSTAL-4'] },
  'fork-onto-other-crystal-starts-fresh': { cases: ['loom4-fork-onto-another-crystal-carries-the-path'], rules: ['LOOM-4'] },
  // The drive finds the stray entity (harness/drive/course.ts) by the replies its turns record: they answered requests only the cast's own entity made (harness/drive/answered-queries.ts). So even where a child that failed before storing a turn could account for one more entity (three composition cases), the terminal-state check is not left to judge a cast whose last turn the stray entity took (LOOM-7 holds: that turn is marked).
  'turns-under-a-stray-entity': { cases: ['entity1-every-entity-in-the-loom-came-from-a-cast-or-an-invocation', 'comp8-child-crystal-failure-returns-to-parent'], rules: ['ENTITY-1'] },
  'thinking-taken-as-a-reply': { cases: ['crystal3-thinking-alone-is-not-a-response'], rules: ['CRYSTAL-3'] },
  'overflow-trims-history': { cases: ['crystal2-overflow-after-history-is-a-structured-error'], rules: ['CRYSTAL-2'] },
  'forcing-reminder-outlives-the-query': { cases: ['crystal1-simulated-forcing-leaves-no-trace-on-the-next-cast'], rules: ['CRYSTAL-1'] },
  'fork-restates-the-first-intent': { cases: ['loom4-fork-without-intent-from-a-later-cast-carries-that-cast'], rules: ['LOOM-4'] },
  'fork-drops-the-require-done-nudge': { cases: ['loop1-fork-after-a-text-turn-under-require-done-alternates'], rules: ['LOOP-1'] },
  'child-context-dropped': { cases: ['comp-context-data-reaches-the-child'], rules: ['COMP-4'] },
  'child-throw-read-as-no-answer': { cases: ['comp8-child-that-throws-returns-an-error-to-the-parent'], rules: ['COMP-8'] },
  // Seen only by a loom read while the cast runs (loom-during-cast): after the cast every turn is there, in order.
  // The send that should have been refused queries the crystal with no intent: that is not INTENT-2 (there is no intent to lead with), so the case's own expectations blame INTENT-1.
  'send-without-intent-accepted': { cases: ['intent1-send-without-intent-refused'], rules: ['INTENT-1'] },
  // The drive finds the turn that did not happen (harness/drive/course.ts): the turn counts, sequences and terminal flags the cases and ambient checks read of that loom are its consequences, not CIRCLE-6, LOOP-2, LOOP-4, LOOP-6, ENTITY-4, LOOM-10, WARD-1 or LOOP-1.
  'empty-turn-after-the-cap': { cases: ['max-turns-truncates-the-cast', 'loop2-runaway-crystal-stopped-at-three', 'loop4-single-turn-cap', 'entity4-finished-entity-keeps-its-thread', 'loom7-truncated-only-on-the-last-turn', 'ward1-child-turn-cap-is-the-smaller'], rules: ['LOOM-7'] },
  // The drive finds the reply whose turn was never written: the cases' reads of the loom's terminal flags are its consequences, not LOOP-6's.
  'text-turns-not-recorded': { cases: ['require-done-text-reply-continues', 'loop6-require-done-only-text-is-truncated'], rules: ['LOOM-1'] },
  // Every loom lacks its call turn, so every case that reads a loom fails CALL-4, and only CALL-4: what reads the call turn (CALL-3's record of the call, LOOM-2's link to it) is its consequence.
  'no-call-turn': { cases: ['call3-call-record-holds-no-gates', 'call4-call-turn-is-the-root', 'thread-is-the-root-to-leaf-path'], rules: ['CALL-4'] },
  // The drive finds the send's intent composed with an earlier one (harness/drive/course.ts): what the cases read of those requests' messages is its consequence, not ENTITY-5, INTENT-3, LOOP-5 or ENTITY-6.
  'sends-composed-into-one-intent': { cases: ['invoked-entity-keeps-state-across-sends', 'loop5-call-and-intent-on-every-send', 'intent3-each-cast-records-its-own-intent', 'entity5-third-send-sees-all-history', 'entity6-interleaved-invocations-stay-apart'], rules: ['INTENT-2'] },
  // The nameless call, acted on, is recorded with the empty name it had: the record's schema finding is CRYSTAL-4's (harness/judge/schema-rules.ts), not CIRCLE-4's or CIRCLE-7's.
  'nameless-call-acted-on': { cases: ['crystal4-gate-name-missing'], rules: ['CRYSTAL-4'] },
  'turns-written-when-the-cast-ends': { cases: ['loom1-first-two-turns-are-in-the-loom-at-the-third-query', 'loom1-a-second-send-finds-its-first-turns-in-the-loom-mid-cast', 'loom1-a-child-finds-its-first-turns-in-the-loom-mid-cast'], rules: ['LOOM-1'] },
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
/** Cases that show the defect: failed on their own expectations, or seen violating an ambient check. */
const shownBroken = (suite: SuiteResult): string[] => [...new Set([...failing(suite).map((c) => c.id), ...ambientChecks(suite.cases).flatMap((check) => check.findings.flatMap((f) => f.cases))])];
/** Every rule a run shows broken: by a case's failed expectations, or by an ambient check's finding (judged once per run). */
const brokenRules = (suite: SuiteResult): string[] => {
  const rules = new Set(failing(suite).flatMap((c) => c.failed_rules));
  for (const check of ambientChecks(suite.cases)) for (const f of check.findings) f.rules.forEach((r) => rules.add(r));
  return [...rules].sort();
};

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
    const suite = await runSuite(file, () => new Miniature(), { jobs: MINIATURE_JOBS, draft: '0.1.0' });
    const bad = suite.cases.filter((c) => c.status !== 'pass' && c.status !== 'skipped');
    expect(bad.map((c) => ({ id: c.id, status: c.status, reason: c.reason, failures: c.failures, problems: c.problems }))).toEqual([]);
    // No ambient check sees a violation on it either.
    expect(ambientChecks(suite.cases).filter((a) => a.status === 'fail')).toEqual([]);
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
      // Pinned to the seed draft: the defects and their rules are 0.1.0's (the variant at each draft: variant-drafts.test.ts).
      const suite = await runSuite(file, () => new Miniature(defect), { jobs: MINIATURE_JOBS, draft: '0.1.0' });
      expect(shownBroken(suite)).toEqual(expect.arrayContaining(EXPECTED[defect].cases));
      // Attribution is exact: the defect shows broken exactly the rules it breaks, no others.
      expect(brokenRules(suite)).toEqual([...EXPECTED[defect].rules].sort());
      // A defect is a wrong answer, not a crash: the harness reports failures, never errors.
      expect(suite.cases.filter((c) => c.status === 'errored').map((c) => c.id)).toEqual([]);
    });
  }
});

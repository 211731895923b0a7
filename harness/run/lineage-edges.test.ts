/**
 * The cases issue 22 added for behaviours no case reached (the lineage features' edges, a wall-clock
 * circle, a file gate's root, entity ids across cantrips) can fail: each purpose-built defect of
 * fixtures/lineage/edge-defects.ts fails its case, on the rule the case names, by the expectation that
 * watches the broken behaviour, and fails no other case of that case's feature or rule. The module
 * defects are installed here with vi.mock (every twin is the reference's own code until one is turned
 * on), so this file runs the reference in process only.
 */
import { describe, it, expect, beforeAll, afterEach, vi } from 'vitest';
import { join } from 'node:path';
import { MODULE_DEFECTS, useModuleDefect, withOneTurnWhenUncapped, withOnlyTheFirstCantripReopened, type ModuleDefect } from '../../fixtures/lineage/edge-defects.ts';
import { adapterFactory, PACKAGE_ROOT } from '../cli/main.ts';
import { loadCaseFile } from '../case-file/load.ts';
import { runSuite, type AdapterFactory } from './run.ts';
import type { CaseFile } from '../case-file/types.ts';

vi.mock('../../reference/circle/verifiers.ts', async (real) => (await import('../../fixtures/lineage/edge-defects.ts')).verifiersWithDefect(await real()));
vi.mock('../../reference/circle/wards.ts', async (real) => (await import('../../fixtures/lineage/edge-defects.ts')).wardsWithDefect(await real()));
vi.mock('../../reference/composition/admit-child.ts', async (real) => (await import('../../fixtures/lineage/edge-defects.ts')).childLimitsWithDefect(await real()));
vi.mock('../../reference/circle/file-gates.ts', async (real) => (await import('../../fixtures/lineage/edge-defects.ts')).fileGatesWithDefect(await real()));
vi.mock('../../reference/entity/entity.ts', async (real) => (await import('../../fixtures/lineage/edge-defects.ts')).entitiesWithDefect(await real()));

/** The defects played at the adapter boundary instead, by wrapping the reference. */
const WRAPPERS = {
  'one-turn-when-uncapped': withOneTurnWhenUncapped,
  'only-the-first-cantrip-reopened': withOnlyTheFirstCantripReopened,
} as const;
/**
 * Only bounds a hang, never a verdict: on a machine loaded far past its cores the code cases among the
 * neighbours (a QuickJS worker each) were seen to outlast the default per-case bound.
 */
const CASE_BOUND_MS = 60_000;

type Defect = ModuleDefect | keyof typeof WRAPPERS;

/**
 * Per defect: the case it must fail, the rule that must be reported, a pattern one of its failed
 * expectation paths must match, and the filter (a feature or rule) whose other cases it must pass.
 */
const EXPECTED: Record<Defect, { case: string; rule: string; witness: RegExp; neighbours: string }> = {
  // Refused, passing, refused: truncated at the second refusal although they were not in a row.
  'rejections-counted-in-total': { case: 'verifier-refusals-apart-do-not-truncate', rule: 'LOOP-4', witness: /^(outcomes\.first\.(status|result)|requests\.parent)$/, neighbours: 'verifier-wards' },
  // The child is refused again and again and its crystal keeps being asked.
  'children-drop-the-rejection-limit': { case: 'verifier-child-inherits-the-rejection-limit', rule: 'WARD-1', witness: /^(requests\.child|loom\.spawned\(first\)\[0\]\.turns)/, neighbours: 'verifier-wards' },
  // A child asking only for listed gates is refused.
  'done-counts-against-the-allow-list': { case: 'child-limits-allow-list-admits-a-child-with-allowed-gates', rule: 'COMP-1', witness: /^(requests\.child|loom\.(spawned|cast)\(first\))/, neighbours: 'child-circle-wards' },
  // root: ".." reaches the file next to the root.
  'read-takes-a-root-argument': { case: 'file-root-argument-does-not-move-the-root', rule: 'CIRCLE-10', witness: /^(loom\.cast\(first\)\[0\]|requests\.parent\[1\])/, neighbours: 'file-gates' },
  // The first entities of two cantrips share an id: the send meant for the first reaches the second.
  'entity-ids-counted-per-cantrip': { case: 'entity2-ids-distinct-across-cantrips', rule: 'ENTITY-2', witness: /^(outcomes\.asked\.result|requests\.other|entities\.b)$/, neighbours: 'ENTITY-2' },
  // After the restart the second cantrip's cast runs as the first's, from the first's call.
  'only-the-first-cantrip-reopened': { case: 'call4-reopened-second-cantrip-casts-from-its-own-call', rule: 'CALL-4', witness: /^(outcomes\.after\.result|threads\.path\[0\]\.cantrip_id)$/, neighbours: 'persistence' },
  // The wall-clock circle is accepted and cut off after one turn.
  'one-turn-when-uncapped': { case: 'circle2-timeout-only-circle-runs-several-turns', rule: 'CIRCLE-2', witness: /^(errors\.main|cantrips\.main)$/, neighbours: 'CIRCLE-2' },
};


/** These cases were written for 0.1.0 (several name COMP-1, reversed at 0.2.0): judged there, whatever the newest draft the reference declares. */
const SEED_DRAFT = '0.1.0';
describe('issue 22 edges: each new case fails on its purpose-built defect, on its rule', () => {
  let file: CaseFile;
  let reference: AdapterFactory;
  beforeAll(async () => {
    file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
    reference = await adapterFactory('reference', PACKAGE_ROOT);
  });
  afterEach(() => useModuleDefect(undefined));

  it('with no defect turned on, the mocked reference passes every case these defects touch', async () => {
    const filter = [...new Set(Object.values(EXPECTED).flatMap((e) => [e.case, e.neighbours]))];
    const suite = await runSuite(file, reference, { filter, timeoutMs: CASE_BOUND_MS, draft: SEED_DRAFT });
    expect(suite.cases.filter((c) => c.status !== 'pass' && c.status !== 'skipped').map((c) => [c.id, c.status, c.failures, c.problems])).toEqual([]);
    for (const expected of Object.values(EXPECTED)) expect(suite.cases.find((c) => c.id === expected.case)?.status, expected.case).toBe('pass');
  });

  for (const defect of [...MODULE_DEFECTS, ...(Object.keys(WRAPPERS) as (keyof typeof WRAPPERS)[])]) {
    const expected = EXPECTED[defect];
    it(`${defect}: fails ${expected.case} on ${expected.rule}, and nothing else of ${expected.neighbours}`, async () => {
      const wrapped = defect in WRAPPERS;
      const broken = wrapped ? WRAPPERS[defect as keyof typeof WRAPPERS](reference) : reference;
      if (!wrapped) useModuleDefect(defect as ModuleDefect);
      const suite = await runSuite(file, broken, { filter: [expected.case, expected.neighbours], timeoutMs: CASE_BOUND_MS, draft: SEED_DRAFT });
      expect(suite.cases.filter((c) => c.status === 'errored').map((c) => [c.id, c.reason])).toEqual([]);
      const failed = suite.cases.filter((c) => c.status === 'fail');
      expect(failed.map((c) => c.id)).toEqual([expected.case]);
      const [c] = failed;
      // On its rule alone: no invariant broken besides.
      expect(c!.failed_rules).toEqual([expected.rule]);
      // Caught by what the case expects of that behaviour.
      expect(c!.failures.map((f) => f.path).some((path) => expected.witness.test(path)), c!.failures.map((f) => f.path).join(', ')).toBe(true);
    });
  }
});

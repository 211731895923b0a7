/**
 * The verifier-ward and child-circle-ward case families of tests.yaml can fail: each purpose-built
 * defect (fixtures/lineage/ward-defects.ts, the reference with one behaviour broken) fails exactly the
 * cases of its behaviour, on their named rules, by their own expectations; the reference passes them
 * all; and the conformant variant, which does not declare the features, gets them skipped with the reason.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { join } from 'node:path';
import type { Adapter, Host } from '../../schemas/adapter.ts';
import { Miniature } from '../../fixtures/miniatures/miniature.ts';
import { WARD_DEFECTS, withWardDefect, type WardDefect } from '../../fixtures/lineage/ward-defects.ts';
import { adapterFactory, PACKAGE_ROOT } from '../cli/main.ts';
import { loadCaseFile } from '../case-file/load.ts';
import { runSuite, type AdapterFactory } from './run.ts';
import type { CaseFile } from '../case-file/types.ts';

const FEATURES = ['verifier-wards', 'child-circle-wards'];

const VERIFIER_CASES = [
  'verifier-refused-call-never-runs-and-is-observed',
  'verifier-first-refusal-by-priority-is-the-one-named',
  'verifier-entity-corrects-itself-and-finishes',
  'verifier-arguments-schema-refuses-bad-arguments',
  'verifier-refusals-in-a-row-truncate-the-cast',
  'verifier-child-runs-its-parents-verifiers',
  'verifier-refuses-a-call-made-from-code',
];
// Issue 22: refusals apart, a child held to its parent's bound, an arguments schema in code.
const REFUSALS_APART = 'verifier-refusals-apart-do-not-truncate';
const CHILD_BOUND = 'verifier-child-inherits-the-rejection-limit';
const SCHEMA_IN_CODE = 'verifier-arguments-schema-checks-calls-from-code';
const CHILD_LIMIT_CASES = [
  'child-limits-disallowed-medium-refused-before-the-child-runs',
  'child-limits-denied-gate-refused-compliant-child-runs',
  'child-limits-gate-off-the-allow-list-refused',
  'child-limits-turn-cap-over-the-ceiling-refused',
  'child-limits-batch-refuses-only-the-breaking-child',
];
// Issue 22: a ceiling on a ward the child lacks, an allow list that admits.
const CEILING_WITHOUT_WARD = 'child-limits-ceiling-on-a-ward-the-child-lacks-refused';
const ALLOW_LIST_ADMITS = 'child-limits-allow-list-admits-a-child-with-allowed-gates';
// Issue 24: the child-limit cases that rested on COMP-1's 0.1.0 subset rule, rebuilt from 0.2.0 on parent-imposed wards (WARD-1).
const LATER_DRAFT_CHILD_LIMIT_CASES = [
  'ward1-child-limits-disallowed-medium-refused',
  'ward1-child-limits-denied-gate-refused-compliant-child-runs',
  'ward1-child-limits-gate-off-the-allow-list-refused',
  'ward1-child-limits-batch-refuses-only-the-breaking-child',
  'ward1-child-limits-hold-for-a-grandchild',
];
/** The child-limit cases judged at 0.3.1: the rebuilt ones and the two that hold at every draft. */
const CHILD_LIMIT_CASES_AT_031 = [...LATER_DRAFT_CHILD_LIMIT_CASES, 'child-limits-turn-cap-over-the-ceiling-refused', CEILING_WITHOUT_WARD];
const ALL_VERIFIER_CASES = [...VERIFIER_CASES, REFUSALS_APART, CHILD_BOUND, SCHEMA_IN_CODE];
const ALL_CHILD_LIMIT_CASES = [...CHILD_LIMIT_CASES, CEILING_WITHOUT_WARD, ALLOW_LIST_ADMITS];

/**
 * The reference, reading LOOP-4's SHOULD the other way: after a truncated cast it asks its crystal once
 * more (for a summary). The kit must tell that query from a turn, whatever ward cut the cast off.
 */
const asksForASummary = (reference: AdapterFactory): AdapterFactory => async () => {
  const inner = await reference();
  const hosts = new Map<string, { host: Host; crystal: string }>();
  return Object.assign(Object.create(inner) as Adapter, {
    construct: async (setup: Parameters<Adapter['construct']>[0], host: Host) => {
      const built = await inner.construct(setup, host);
      if (built.ok && setup.crystal) hosts.set(built.value.cantrip, { host, crystal: setup.crystal.name });
      return built;
    },
    cast: async (cantrip: string, intent?: string) => {
      const outcome = await inner.cast(cantrip, intent);
      const bridge = hosts.get(cantrip);
      if (outcome.ok && outcome.value.status === 'truncated' && bridge && intent) {
        await bridge.host.queryCrystal(bridge.crystal, { messages: [{ role: 'user', content: intent }, { role: 'user', content: 'Summarise what was done.' }] });
      }
      return outcome;
    },
  });
};

/** Each defect, the cases it must fail (and no others of the two families), and rules they must report. */
/** `exact`: the defect is reported on these rules and no others (each new case of issue 22 names one rule). */
const EXPECTED: Record<WardDefect, { cases: string[]; rules: string[]; witness: RegExp; exact?: boolean }> = {
  // Every verifier case that watches the gates sees the refused gate run (the gate log has the call).
  'verifier-runs-gate-anyway': { cases: [...VERIFIER_CASES, CHILD_BOUND, SCHEMA_IN_CODE], rules: ['CIRCLE-6'], witness: /^(gates\.|gate_log)/ },
  // The child's call reached the gate and was recorded as a success.
  'children-skip-verifiers': { cases: ['verifier-child-runs-its-parents-verifiers', CHILD_BOUND], rules: ['WARD-1'], witness: /^(gates\.|loom\.spawned)/ },
  // The refusal reaches the parent, but too late: the child's crystal was queried and its turns recorded.
  'child-limits-checked-after-the-child-ran': { cases: [...CHILD_LIMIT_CASES, CEILING_WITHOUT_WARD], rules: ['COMP-1', 'WARD-1'], witness: /^(requests\.child|loom\.spawned)/ },
  // The call that breaks the schema reaches the gate from code.
  'code-skips-argument-schemas': { cases: [SCHEMA_IN_CODE], rules: ['CIRCLE-6'], witness: /^gates\.fetch/, exact: true },
  // The child without a token budget runs under a ceiling on it.
  'ceilings-only-on-wards-the-child-has': { cases: [CEILING_WITHOUT_WARD], rules: ['WARD-1'], witness: /^(requests\.child|loom\.spawned)/, exact: true },
};


/** These cases were written for 0.1.0 (several name COMP-1, reversed at 0.2.0): judged there, whatever the newest draft the reference declares. */
const SEED_DRAFT = '0.1.0';
describe('lineage wards: verifier and child-circle case families', () => {
  let file: CaseFile;
  let reference: AdapterFactory;
  beforeAll(async () => {
    file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
    reference = await adapterFactory('reference', PACKAGE_ROOT);
  });

  it('the families are in tests.yaml as listed here, each case requiring its feature', () => {
    const lineage = file.cases.filter((c) => (c.requires ?? []).some((f) => FEATURES.includes(f)));
    expect(lineage.map((c) => c.id).sort()).toEqual([...ALL_VERIFIER_CASES, ...ALL_CHILD_LIMIT_CASES, ...LATER_DRAFT_CHILD_LIMIT_CASES].sort());
  });

  it('the reference passes every case of both families', async () => {
    const suite = await runSuite(file, reference, { filter: FEATURES, draft: SEED_DRAFT });
    expect(suite.cases.map((c) => [c.id, c.status, c.failures, c.problems])).toEqual([...ALL_VERIFIER_CASES, ...ALL_CHILD_LIMIT_CASES].map((id) => [id, 'pass', [], []]));
  });

  it('the conformant variant does not declare the features: every case is skipped with the reason', async () => {
    const suite = await runSuite(file, () => new Miniature(), { filter: FEATURES });
    expect(suite.cases.length).toBe(ALL_VERIFIER_CASES.length + ALL_CHILD_LIMIT_CASES.length);
    for (const c of suite.cases) {
      expect(c.status, c.id).toBe('skipped');
      expect(c.reason, c.id).toMatch(/^feature not declared: .*(verifier-wards|child-circle-wards)/);
    }
  });

  it('LOOP-4: the truncation case passes on an implementation that asks its crystal for a summary after the cut', async () => {
    const suite = await runSuite(file, asksForASummary(reference), { filter: ['verifier-refusals-in-a-row-truncate-the-cast'], draft: SEED_DRAFT });
    expect(suite.cases.map((c) => [c.id, c.status, c.failures, c.problems])).toEqual([['verifier-refusals-in-a-row-truncate-the-cast', 'pass', [], []]]);
  });

  it('0.3.1: the reference passes the child-limit cases that apply there', async () => {
    const suite = await runSuite(file, reference, { filter: CHILD_LIMIT_CASES_AT_031, draft: '0.3.1' });
    expect(suite.cases.map((c) => [c.id, c.status, c.failures, c.problems]).sort()).toEqual(CHILD_LIMIT_CASES_AT_031.map((id) => [id, 'pass', [], []]).sort());
  });

  // From 0.2.0 the child-limit refusals are the parent's constraint holding (WARD-1), no longer COMP-1's subset rule.
  const AT_031: Partial<Record<WardDefect, string[]>> = {
    'child-limits-checked-after-the-child-ran': CHILD_LIMIT_CASES_AT_031,
    'ceilings-only-on-wards-the-child-has': [CEILING_WITHOUT_WARD],
  };
  for (const [defect, cases] of Object.entries(AT_031) as [WardDefect, string[]][]) {
    it(`0.3.1: ${defect} fails exactly ${cases.length} child-limit case(s), on WARD-1 alone`, async () => {
      const suite = await runSuite(file, withWardDefect(defect, reference), { filter: CHILD_LIMIT_CASES_AT_031, draft: '0.3.1' });
      expect(suite.cases.filter((c) => c.status === 'errored').map((c) => [c.id, c.reason])).toEqual([]);
      const failed = suite.cases.filter((c) => c.status === 'fail');
      expect(failed.map((c) => [c.id, c.failed_rules]).sort()).toEqual(cases.map((id) => [id, ['WARD-1']]).sort());
      for (const c of failed) expect(c.failures.map((f) => f.path).some((path) => /^(requests\.child|loom\.spawned)/.test(path)), c.id).toBe(true);
    });
  }

  for (const defect of WARD_DEFECTS) {
    it(`${defect}: fails exactly its cases, on ${EXPECTED[defect].rules.join(', ')}, by their own expectations`, async () => {
      const suite = await runSuite(file, withWardDefect(defect, reference), { filter: FEATURES, draft: SEED_DRAFT });
      expect(suite.cases.filter((c) => c.status === 'errored').map((c) => [c.id, c.reason])).toEqual([]);
      const failed = suite.cases.filter((c) => c.status === 'fail');
      expect(failed.map((c) => c.id).sort()).toEqual([...EXPECTED[defect].cases].sort());
      const rules = new Set(failed.flatMap((c) => c.failed_rules));
      for (const rule of EXPECTED[defect].rules) expect(rules, `rule ${rule} should be reported broken`).toContain(rule);
      if (EXPECTED[defect].exact) expect([...rules].sort()).toEqual([...EXPECTED[defect].rules].sort());
      // A behaviour defect, caught by what each case expects, not by a malformed loom.
      for (const c of failed) {
        // Among what failed, the expectation that watches the broken behaviour itself.
        expect(c.failures.map((f) => f.path).some((path) => EXPECTED[defect].witness.test(path)), c.id).toBe(true);
        expect(c.invariants.filter((i) => i.status === 'fail').map((i) => i.id), c.id).toEqual([]);
      }
    });
  }
});

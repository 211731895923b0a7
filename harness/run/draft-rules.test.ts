/**
 * The cases for the rules new in draft 0.3.1 (issue 24) can fail: judged at 0.3.1, the reference
 * (building each cantrip for the draft, issue 24's H5 work) passes every one, and each purpose-built
 * defect of fixtures/lineage/draft-rule-defects.ts fails exactly its rule's cases, on that rule alone,
 * and none of the other new cases. The module defects are installed with vi.mock, so this file runs
 * the reference in process only. Besides the new rules, the cases that 0.2.0's changes made necessary
 * are judged the same way: CIRCLE-1 without CANTRIP-3, COMP-1 reversed (a MAY), and WARD-1 two levels
 * down (a grandchild's turn cap, and child limits a grandchild could escape once COMP-1 reversed).
 */
import { describe, it, expect, beforeAll, afterEach, vi } from 'vitest';
import { join } from 'node:path';
import { DRAFT_MODULE_DEFECTS, useDraftModuleDefect, withCircleWithoutMediumRefused, withCredentialInTheLoom, withFailureRecordsEmptied, withRecordArgumentsLeftEmpty, withReplayRunningGates, withResultsNotReturned, withResultsReversed, type DraftModuleDefect } from '../../fixtures/lineage/draft-rule-defects.ts';
import { adapterFactory, PACKAGE_ROOT } from '../cli/main.ts';
import { loadCaseFile } from '../case-file/load.ts';
import { runSuite, type AdapterFactory } from './run.ts';
import type { CaseFile } from '../case-file/types.ts';
import type { Adapter, CantripSetup, Host } from '../../schemas/adapter.ts';

vi.mock('../../reference/drafts/done-call.ts', async (real) => (await import('../../fixtures/lineage/draft-rule-defects.ts')).doneCallWithDefect(await real()));
vi.mock('../../reference/drafts/child-identity.ts', async (real) => (await import('../../fixtures/lineage/draft-rule-defects.ts')).childIdentityWithDefect(await real()));
vi.mock('../../reference/circle/wards.ts', async (real) => (await import('../../fixtures/lineage/draft-rule-defects.ts')).wardsWithDefect(await real()));
vi.mock('../../reference/drafts/child-circle.ts', async (real) => (await import('../../fixtures/lineage/draft-rule-defects.ts')).childCircleWithDefect(await real()));
vi.mock('../../reference/circle/circle.ts', async (real) => (await import('../../fixtures/lineage/draft-rule-defects.ts')).circleWithDefect(await real()));
vi.mock('../../reference/drafts/gate-call-records.ts', async (real) => (await import('../../fixtures/lineage/draft-rule-defects.ts')).gateCallRecordsWithDefect(await real()));
vi.mock('../../reference/circle/medium/code-medium.ts', async (real) => (await import('../../fixtures/lineage/draft-rule-defects.ts')).codeMediumWithDefect(await real()));

const WRAPPERS = {
  'tool-results-reversed': withResultsReversed,
  'gate-results-not-returned': withResultsNotReturned,
  'replay-fork-runs-gates-again': withReplayRunningGates,
  'circle-without-medium-refused': withCircleWithoutMediumRefused,
  'record-arguments-left-empty': withRecordArgumentsLeftEmpty,
  'failure-record-without-its-message': withFailureRecordsEmptied,
} as const;
type Defect = DraftModuleDefect | keyof typeof WRAPPERS;

/** The new cases, by the rule each checks (0.3.1's IDs). */
const CASES: Record<string, string[]> = {
  'LOOP-7': ['loop7-done-without-answer-does-not-terminate', 'loop7-done-that-keeps-failing-ends-truncated'],
  'LLM-7': ['llm7-results-keep-their-call-ids-and-order'],
  'MEDIUM-2': ['medium2-conversation-presents-executes-and-returns'],
  'MEDIUM-1': ['medium1-circle-without-medium-is-conversation'],
  'MEDIUM-4': ['medium4-eval-deadline-stops-a-long-program'],
  'WARD-2': ['ward2-child-asking-a-looser-eval-deadline-gets-the-parents'],
  'COMP-10': ['comp10-child-without-identity-gets-a-generic-one'],
  'COMP-11': ['comp11-depth-zero-child-has-no-delegation-gates'],
  'LOOM-13': ['loom13-replay-fork-hydrates-recorded-gate-results', 'loom13-replay-fork-hydrates-a-recorded-failure'],
  // Not new, but its cases were CANTRIP-3's until 0.2.0: refused at construction, or done offered anyway.
  'CIRCLE-1': ['circle1-circle-without-done-refused-or-given-done', 'circle1-done-removed-by-ward-refused-or-kept'],
  // Not new either: a grandchild under its grandparent's cap (issue 22 item 4's grandchildren half).
  'WARD-1': ['ward1-grandchild-held-to-its-grandparents-turn-cap-own-circle', 'ward1-child-limits-hold-for-a-grandchild', 'ward1-removal-ward-holds-for-a-gate-bound-for-children'],
  // Reversed at 0.2.0 (MAY): a child may hold a gate its parent lacks (feature child-gates).
  'COMP-1': ['comp1-child-asks-for-a-gate-its-parent-lacks'],
  // Reversed at 0.2.0 (MAY): a child may have a medium and an LLM of its own (found by mutation testing, issue 30).
  'COMP-7': ['comp7-child-asking-for-the-code-medium-gets-it', 'comp7-child-asking-for-another-llm-gets-it'],
  // Not new: the 0.2.0+ record contract (§4.3) is judged under CIRCLE-4; what a record's arguments say (issue 30).
  'CIRCLE-4': ['circle4-record-holds-the-calls-arguments'],
  'CIRCLE-5': ['circle5-failed-record-holds-the-error-message'],
};
const ALL = Object.values(CASES).flat();
/** Defects that break one behaviour of a rule with several cases fail only that behaviour's case(s). */
const FAILS: Partial<Record<Defect, string[]>> = {
  'grandchildren-compose-with-the-requested-cap': ['ward1-grandchild-held-to-its-grandparents-turn-cap-own-circle'],
  'child-limits-not-handed-down': ['ward1-child-limits-hold-for-a-grandchild'],
  'children-drop-the-parents-removals': ['ward1-removal-ward-holds-for-a-gate-bound-for-children'],
  'child-medium-request-ignored': ['comp7-child-asking-for-the-code-medium-gets-it'],
  'child-llm-request-ignored': ['comp7-child-asking-for-another-llm-gets-it'],
  'replay-loses-the-recorded-failure': ['loom13-replay-fork-hydrates-a-recorded-failure'],
};

/**
 * Cases a defect also fails, under another rule: known imprecise blame (docs/kit-false-checks.md). A code
 * child built in its parent's conversation medium exhausts the WARD-2 case's child script, which that
 * case blames on WARD-2; the COMP-7 case names the broken rule.
 */
const ALSO_FAILS: Partial<Record<Defect, Record<string, string[]>>> = {
  'child-medium-request-ignored': { 'ward2-child-asking-a-looser-eval-deadline-gets-the-parents': ['WARD-2'] },
};

/** The rule each defect breaks. */
const BREAKS: Record<Defect, string> = {
  'malformed-done-terminates': 'LOOP-7',
  'child-without-identity-gets-the-parent-prompt': 'COMP-10',
  'depth-zero-child-keeps-delegation-gates': 'COMP-11',
  'tool-results-reversed': 'LLM-7',
  'gate-results-not-returned': 'MEDIUM-2',
  'replay-fork-runs-gates-again': 'LOOM-13',
  'circle-built-without-done': 'CIRCLE-1',
  'grandchildren-compose-with-the-requested-cap': 'WARD-1',
  'child-gates-silently-dropped': 'COMP-1',
  'child-limits-not-handed-down': 'WARD-1',
  'children-drop-the-parents-removals': 'WARD-1',
  'circle-without-medium-refused': 'MEDIUM-1',
  'child-loosens-the-eval-deadline': 'WARD-2',
  'eval-deadline-ignored': 'MEDIUM-4',
  'child-medium-request-ignored': 'COMP-7',
  'child-llm-request-ignored': 'COMP-7',
  'record-arguments-left-empty': 'CIRCLE-4',
  'failure-record-without-its-message': 'CIRCLE-5',
  'replay-loses-the-recorded-failure': 'LOOM-13',
  'gates-held-for-children-granted-at-0-1-0': 'COMP-1',
};

/** Only bounds a hang, never a verdict: the code-fork case starts QuickJS workers, slow on a loaded machine. */
const CASE_BOUND_MS = 60_000;
const DRAFT = '0.3.1';

describe('new rules of 0.3.1: each case fails on its purpose-built defect, on its rule', () => {
  let file: CaseFile;
  let reference: AdapterFactory;
  beforeAll(async () => {
    file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
    reference = await adapterFactory('reference', PACKAGE_ROOT);
  });
  afterEach(() => useDraftModuleDefect(undefined));

  it('the reference passes every new case at 0.3.1, with no ambient finding among them', async () => {
    const suite = await runSuite(file, reference, { filter: ALL, draft: DRAFT, timeoutMs: CASE_BOUND_MS });
    expect(suite.draft).toBe(DRAFT);
    expect(suite.cases.map((c) => [c.id, c.status, c.failures, c.problems]).sort()).toEqual(ALL.map((id) => [id, 'pass', [], []]).sort());
    expect(suite.cases.flatMap((c) => c.invariants.filter((i) => i.status === 'fail').map((i) => `${c.id}: ${i.id}`))).toEqual([]);
  });

  // A defect of 0.1.0 alone is judged at 0.1.0 below.
  const AT_010_ONLY: readonly DraftModuleDefect[] = ['gates-held-for-children-granted-at-0-1-0'];
  for (const defect of [...DRAFT_MODULE_DEFECTS.filter((d) => !AT_010_ONLY.includes(d)), ...(Object.keys(WRAPPERS) as (keyof typeof WRAPPERS)[])]) {
    const rule = BREAKS[defect];
    it(`${defect}: fails the ${rule} cases on ${rule} alone, and no other new case`, async () => {
      const wrapped = defect in WRAPPERS;
      const broken = wrapped ? WRAPPERS[defect as keyof typeof WRAPPERS](reference) : reference;
      if (!wrapped) useDraftModuleDefect(defect as DraftModuleDefect);
      const suite = await runSuite(file, broken, { filter: ALL, draft: DRAFT, timeoutMs: CASE_BOUND_MS });
      expect(suite.cases.filter((c) => c.status === 'errored').map((c) => [c.id, c.reason])).toEqual([]);
      const failed = suite.cases.filter((c) => c.status === 'fail');
      const also = ALSO_FAILS[defect] ?? {};
      expect(failed.map((c) => c.id).sort()).toEqual([...(FAILS[defect] ?? CASES[rule]!), ...Object.keys(also)].sort());
      for (const c of failed) expect([c.id, c.failed_rules]).toEqual([c.id, also[c.id] ?? [rule]]);
    });
  }

  it('CIRCLE-1: an implementation that builds a setup without done with done added anyway passes its cases as the refusing reference does', async () => {
    // The other reading 0.2.0 on allows: the circle always offers done, whatever the setup left out or warded off.
    const addsDone: AdapterFactory = async () => {
      const inner = await reference();
      return Object.assign(Object.create(inner) as Adapter, {
        construct: (setup: CantripSetup, host: Host) => {
          if (!setup.circle) return inner.construct(setup, host);
          const { remove_gates: removed, ...wards } = setup.circle.wards;
          const kept = (removed ?? []).filter((g) => g !== 'done');
          const gates = setup.circle.gates.some((g) => g.name === 'done') ? setup.circle.gates : [...setup.circle.gates, { name: 'done' as const }];
          return inner.construct({ ...setup, circle: { ...setup.circle, gates, wards: kept.length > 0 ? { ...wards, remove_gates: kept } : wards } }, host);
        },
      });
    };
    const suite = await runSuite(file, addsDone, { filter: CASES['CIRCLE-1']!, draft: DRAFT, timeoutMs: CASE_BOUND_MS });
    expect(suite.cases.map((c) => [c.id, c.status, c.problems])).toEqual(CASES['CIRCLE-1']!.map((id) => [id, 'pass', []]));
  });

  it('COMP-1 (MAY): refusing the child that asks for a gate its parent lacks passes; refusing the setup is a skip with the reason', async () => {
    const rewriting = (rewrite: (inner: Adapter, setup: CantripSetup, host: Host) => ReturnType<Adapter['construct']>): AdapterFactory => async () => {
      const inner = await reference();
      return Object.assign(Object.create(inner) as Adapter, { construct: (setup: CantripSetup, host: Host) => rewrite(inner, setup, host) });
    };
    const withoutChildGates = (setup: CantripSetup): CantripSetup =>
      setup.circle ? { ...setup, circle: { ...setup.circle, gates: setup.circle.gates.map((g) => (g.name === 'call_entity' ? { name: 'call_entity' as const } : g)) } } : setup;
    // The parent constrains its children to its own gates: the child asking for counter is refused before it runs.
    const refusesTheChild = rewriting((inner, setup, host) => inner.construct(withoutChildGates(setup), host));
    const refusesTheSetup = rewriting(async () => ({ ok: false, error: { code: 'unsupported', message: 'no gates for children here' } }));
    const [child] = (await runSuite(file, refusesTheChild, { filter: CASES['COMP-1']!, draft: DRAFT, timeoutMs: CASE_BOUND_MS })).cases;
    expect([child?.status, child?.problems]).toEqual(['pass', []]);
    const [setup] = (await runSuite(file, refusesTheSetup, { filter: CASES['COMP-1']!, draft: DRAFT, timeoutMs: CASE_BOUND_MS })).cases;
    expect(setup?.status).toBe('skipped');
    expect(setup?.reason).toContain('not run: the implementation refused to construct');
  });

  it('COMP-1 at 0.1.0: gates-held-for-children-granted-at-0-1-0 fails the case of a gate held for children on COMP-1, which the reference passes (issue 30)', async () => {
    const id = 'comp1-gate-held-for-children-not-granted-at-0-1-0';
    const status = async () => (await runSuite(file, reference, { filter: [id], draft: '0.1.0', timeoutMs: CASE_BOUND_MS })).cases.map((c) => [c.id, c.status, c.failed_rules]);
    expect(await status()).toEqual([[id, 'pass', []]]);
    useDraftModuleDefect('gates-held-for-children-granted-at-0-1-0');
    expect(await status()).toEqual([[id, 'fail', ['COMP-1']]]);
  });

  // PROD-8 is judged by the secret-kept-out ambient check on every case run over a wire (a key handed over).
  const WIRE_CASE = 'crystal2-overflow-on-the-wire-is-a-structured-failure';
  const secretCheck = (suite: Awaited<ReturnType<typeof runSuite>>) => suite.cases.find((c) => c.id === WIRE_CASE)?.invariants.find((i) => i.id === 'secret-kept-out');

  it('PROD-8: the reference keeps the endpoint API key out of the loom, events, outcomes and observations at 0.3.1', async () => {
    const suite = await runSuite(file, reference, { filter: [WIRE_CASE], draft: DRAFT, timeoutMs: CASE_BOUND_MS });
    expect(secretCheck(suite)?.status).toBe('pass');
  });

  it('PROD-8: credential-in-the-loom fails the secret-kept-out check under PROD-8, and at 0.1.0 (no PROD-8) it is not judged', async () => {
    const broken = withCredentialInTheLoom(reference);
    const at031 = await runSuite(file, broken, { filter: [WIRE_CASE], draft: DRAFT, timeoutMs: CASE_BOUND_MS });
    expect([secretCheck(at031)?.status, secretCheck(at031)?.rules, secretCheck(at031)?.cause]).toEqual(['fail', ['PROD-8'], 'credential in the loom']);
    const at010 = await runSuite(file, broken, { filter: [WIRE_CASE], draft: '0.1.0', timeoutMs: CASE_BOUND_MS });
    // Not part of a 0.1.0 verdict at all: the check is left out of that draft's ambient checks.
    expect(secretCheck(at010)).toBeUndefined();
    expect(at010.cases.every((c) => c.invariants.every((i) => i.id !== 'secret-kept-out'))).toBe(true);
  });
});

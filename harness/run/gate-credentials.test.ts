/**
 * PROD-8 as its testability note says (issue 24): a gate dependency carries a marker secret, and after a
 * cast that uses the gate the loom and its export, the events and the observations must not hold it.
 * The reference passes the `prod8-gate-credential-*` cases at 0.2.0 and 0.3.1 with the gate really
 * given the credential (and, where the case says so, really repeating it); each purpose-built defect of
 * fixtures/lineage/secret-defects.ts fails exactly the cases its leak shows in, on PROD-8 alone, with the
 * failure naming the paths where the secret showed; an implementation without the feature, or one that
 * never hands the gate its credential, is skipped with the reason, never failed.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { join } from 'node:path';
import { withAnswerListsScrubbedIntoObjects, withChildGateCredentialsUnknown, withGateCredentialInEvents, withGateCredentialInTheLoom, withRawGateRepliesShown } from '../../fixtures/lineage/secret-defects.ts';
import type { CantripSetup } from '../../schemas/adapter.ts';
import { createReferenceAdapter } from '../../reference/adapter/index.ts';
import { adapterFactory, PACKAGE_ROOT } from '../cli/main.ts';
import { loadCaseFile } from '../case-file/load.ts';
import type { CaseFile, LoadedCase } from '../case-file/types.ts';
import { driveCase } from '../drive/index.ts';
import { setupNeeds } from '../case-file/setup-needs.ts';
import { runSuite, type AdapterFactory } from './run.ts';

const SUCCEEDS = 'prod8-gate-credential-kept-out-when-the-gate-succeeds';
const FAILURE_MESSAGE = 'prod8-gate-credential-in-a-failure-message-is-kept-out';
const CHILD = 'prod8-gate-credential-kept-out-when-a-child-uses-the-gate';
const ALL = [SUCCEEDS, FAILURE_MESSAGE, CHILD];
/** Only bounds a hang, never a verdict. */
const CASE_BOUND_MS = 60_000;

const reference: AdapterFactory = () => createReferenceAdapter();

/** The reference with its describe() changed by `change`. */
function describedAs(change: (features: string[]) => string[]): AdapterFactory {
  return () => {
    const adapter = createReferenceAdapter();
    const own = adapter.describe.bind(adapter);
    adapter.describe = async () => {
      const description = await own();
      return { ...description, features: change(description.features) as typeof description.features };
    };
    return adapter;
  };
}

/** The reference, declaring the feature, but building its gates without the credentials it is handed. */
const dropsTheCredential: AdapterFactory = () => {
  const adapter = createReferenceAdapter();
  const construct = adapter.construct.bind(adapter);
  adapter.construct = (setup: CantripSetup, host) =>
    construct({ ...setup, ...(setup.circle && { circle: { ...setup.circle, gates: setup.circle.gates.map((g) => ('test' in g ? { name: g.name, test: g.test } : g)) } }) }, host);
  return adapter;
};

/** Which cases each defect's leak shows in, and the record root every path it leaves starts with. */
const DEFECTS: Record<string, { wrap: (f: AdapterFactory) => AdapterFactory; fails: string[]; roots: RegExp }> = {
  'gate credential kept in the loom': { wrap: withGateCredentialInTheLoom, fails: ALL, roots: /^(loom\.turns|threads\.exported)\[\d+\]\.call\.hyperparameters\.gate_credentials\.(billing|forecast)$/ },
  // The succeeding gate's reply holds no secret: showing it raw shows nothing.
  'raw gate replies shown to the entity': { wrap: withRawGateRepliesShown, fails: [FAILURE_MESSAGE, CHILD], roots: /^requests\.(parent|child)\[\d+\]\.messages\[\d+\]\.content$/ },
  'gate credential in the gate_call events': { wrap: withGateCredentialInEvents, fails: ALL, roots: /^events\[\d+\]\.data\.dependencies\.credential$/ },
};

describe('PROD-8: a gate credential stays out of the loom, the events and the observations', () => {
  let file: CaseFile;
  beforeAll(() => {
    file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
  });
  const caseAt = (id: string, draft: string): LoadedCase => ({ ...file.cases.find((c) => c.id === id)!, judged_draft: draft });

  it('the cases derive the feature and apply from 0.2.0 on (PROD-8 is new there)', () => {
    for (const id of ALL) {
      const c = file.cases.find((k) => k.id === id)!;
      expect([id, c.requires?.includes('gate-credentials'), c.drafts]).toEqual([id, true, ['0.2.0', '0.3.1']]);
    }
  });

  for (const draft of ['0.2.0', '0.3.1']) {
    it(`the reference passes every case at ${draft}, and the ambient secret-kept-out check with it`, async () => {
      const suite = await runSuite(file, reference, { filter: ALL, draft, timeoutMs: CASE_BOUND_MS });
      expect(suite.cases.map((c) => [c.id, c.status, c.failures, c.problems]).sort()).toEqual(ALL.map((id) => [id, 'pass', [], []]).sort());
      for (const c of suite.cases) expect([c.id, c.invariants.find((i) => i.id === 'secret-kept-out')?.status]).toEqual([c.id, 'pass']);
    });
  }

  it('in the reference runs the gate really gets the credential, and the failing gates really repeat it', async () => {
    for (const id of ALL) {
      const adapter = createReferenceAdapter();
      try {
        const drive = await driveCase(caseAt(id, '0.3.1'), adapter, await adapter.describe());
        const credential = drive.prepared.credential!;
        expect(credential.value).toContain(credential.needle);
        expect(credential.needle).toMatch(/^[0-9a-f]{32}$/);
        expect([id, drive.record.credential?.carried, drive.record.credential?.not_carried, drive.record.credential?.found]).toEqual([id, 1, 0, []]);
        const reply = drive.record.gate_log.find((entry) => entry.credential === 'carried')!.reply!;
        expect([id, JSON.stringify(reply).includes(credential.value)]).toEqual([id, id !== SUCCEEDS]);
      } finally {
        await adapter.dispose();
      }
    }
  });

  it('a fresh credential for every run', async () => {
    const values = new Set<string>();
    for (let run = 0; run < 2; run++) {
      const adapter = createReferenceAdapter();
      try {
        values.add((await driveCase(caseAt(SUCCEEDS, '0.3.1'), adapter, await adapter.describe())).prepared.credential!.value);
      } finally {
        await adapter.dispose();
      }
    }
    expect(values.size).toBe(2);
  });

  for (const [name, defect] of Object.entries(DEFECTS)) {
    it(`${name}: fails ${defect.fails.length} of the cases, on PROD-8 alone, naming where the secret showed`, async () => {
      const suite = await runSuite(file, defect.wrap(reference), { filter: ALL, draft: '0.3.1', timeoutMs: CASE_BOUND_MS });
      expect(suite.cases.filter((c) => c.status === 'errored' || c.status === 'skipped').map((c) => [c.id, c.reason])).toEqual([]);
      const failed = suite.cases.filter((c) => c.status === 'fail');
      expect(failed.map((c) => c.id).sort()).toEqual([...defect.fails].sort());
      for (const c of failed) {
        expect([c.id, c.failed_rules]).toEqual([c.id, ['PROD-8']]);
        const paths = c.failures.flatMap((f) => f.actual as string[]);
        expect(paths.length, c.id).toBeGreaterThan(0);
        for (const path of paths) expect(path, c.id).toMatch(defect.roots);
        const ambient = c.invariants.find((i) => i.id === 'secret-kept-out');
        expect([c.id, ambient?.status, ambient?.rules]).toEqual([c.id, 'fail', ['PROD-8']]);
      }
      for (const c of suite.cases.filter((k) => k.status === 'pass')) expect(c.invariants.find((i) => i.id === 'secret-kept-out')?.status).toBe('pass');
    });
  }

  it('the child case shows a leak in the child: the raw reply reaches the child’s own requests', async () => {
    const suite = await runSuite(file, withRawGateRepliesShown(reference), { filter: [CHILD], draft: '0.3.1', timeoutMs: CASE_BOUND_MS });
    expect(suite.cases[0]!.failures.flatMap((f) => f.actual as string[]).some((path) => path.startsWith('requests.child['))).toBe(true);
  });

  it('an implementation that does not declare gate-credentials is skipped, with the feature named', async () => {
    const suite = await runSuite(file, describedAs((features) => features.filter((f) => f !== 'gate-credentials')), { filter: ALL, draft: '0.3.1', timeoutMs: CASE_BOUND_MS });
    expect(suite.cases.map((c) => [c.id, c.status])).toEqual(ALL.map((id) => [id, 'skipped']));
    for (const c of suite.cases) expect(c.reason).toContain('gate-credentials');
  });

  it('one that declares it but never hands the gate its credential is skipped as not judged, never passed or failed', async () => {
    const suite = await runSuite(file, dropsTheCredential, { filter: ALL, draft: '0.3.1', timeoutMs: CASE_BOUND_MS });
    expect(suite.cases.map((c) => [c.id, c.status])).toEqual(ALL.map((id) => [id, 'skipped']));
    for (const c of suite.cases) expect(c.reason).toMatch(/^not judged: /);
  });

  it('PROD-1: the reference passes them over the stdio protocol too (the credential goes out in construct and comes back in host.callGate)', async () => {
    const stdio = await adapterFactory('cmd:npx tsx reference/adapter/stdio-server.ts', PACKAGE_ROOT);
    const suite = await runSuite(file, stdio, { filter: ALL, draft: '0.3.1', timeoutMs: CASE_BOUND_MS });
    expect(suite.cases.map((c) => [c.id, c.status, c.failures, c.problems]).sort()).toEqual(ALL.map((id) => [id, 'pass', [], []]).sort());
  });

  it('over a wire transport both secrets are looked for, the endpoint key and the gate credential, and both stay out', async () => {
    const suite = await runSuite(file, reference, { filter: ALL, draft: '0.3.1', timeoutMs: CASE_BOUND_MS, crystalTransport: 'openai' });
    expect(suite.cases.map((c) => [c.id, c.status, c.failures, c.problems]).sort()).toEqual(ALL.map((id) => [id, 'pass', [], []]).sort());
    for (const c of suite.cases) expect([c.id, c.invariants.find((i) => i.id === 'secret-kept-out')?.status]).toEqual([c.id, 'pass']);
    // The gate credential is searched for beside the key: a loom that keeps it fails, and the finding names it alone.
    const leaky = await runSuite(file, withGateCredentialInTheLoom(reference), { filter: [FAILURE_MESSAGE], draft: '0.3.1', timeoutMs: CASE_BOUND_MS, crystalTransport: 'openai' });
    const ambient = leaky.cases[0]!.invariants.find((i) => i.id === 'secret-kept-out')!;
    expect([leaky.cases[0]!.status, ambient.status, ambient.detail?.startsWith('the credential of a gate shows in the loom: loom.turns['), ambient.detail?.includes('API key')]).toEqual(['fail', 'fail', true, false]);
  });

  it('at 0.1.0, which has no PROD-8, the cases do not run', async () => {
    const suite = await runSuite(file, reference, { filter: ALL, draft: '0.1.0', timeoutMs: CASE_BOUND_MS });
    expect(suite.cases.filter((c) => c.status === 'pass' || c.status === 'fail')).toEqual([]);
  });
});


/** Issue 30: a credentialed gate given only in a delegation gate's `child_gates`. */
const CHILD_GATES_ONLY = 'prod8-gate-credential-kept-out-when-bound-for-children-only';

describe('PROD-8: the credential of a gate bound for children only is made up, handed over, searched for and kept out', () => {
  let file: CaseFile;
  beforeAll(() => {
    file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
  });

  it('the case needs gate-credentials (and child-gates) though no gate of the parent has a credential', () => {
    const c = file.cases.find((k) => k.id === CHILD_GATES_ONLY)!;
    expect(setupNeeds(c)).toEqual(expect.arrayContaining(['child-gates', 'gate-credentials']));
  });

  it('the kit makes a credential up for it, the child’s call carries it, and the gate repeats it', async () => {
    const adapter = createReferenceAdapter();
    try {
      const drive = await driveCase({ ...file.cases.find((c) => c.id === CHILD_GATES_ONLY)!, judged_draft: '0.3.1' }, adapter, await adapter.describe());
      const credential = drive.prepared.credential!;
      expect(credential.needle).toMatch(/^[0-9a-f]{32}$/);
      expect([drive.record.credential?.carried, drive.record.credential?.not_carried, drive.record.credential?.found]).toEqual([1, 0, []]);
      expect(JSON.stringify(drive.record.gate_log.find((entry) => entry.credential === 'carried')!.reply).includes(credential.value)).toBe(true);
    } finally {
      await adapter.dispose();
    }
  });

  for (const draft of ['0.2.0', '0.3.1']) {
    it(`the reference passes it at ${draft}`, async () => {
      const suite = await runSuite(file, reference, { filter: [CHILD_GATES_ONLY], draft, timeoutMs: CASE_BOUND_MS });
      expect(suite.cases.map((c) => [c.id, c.status, c.failures, c.problems])).toEqual([[CHILD_GATES_ONLY, 'pass', [], []]]);
    });
  }

  it('child-gate-credentials-unknown fails it on PROD-8 alone, with the secret in the child’s requests and the loom', async () => {
    const suite = await runSuite(file, withChildGateCredentialsUnknown(reference), { filter: [CHILD_GATES_ONLY, ...ALL], draft: '0.3.1', timeoutMs: CASE_BOUND_MS });
    // The parent's own credentialed gates are untouched: only the child-only case fails.
    expect(suite.cases.map((c) => [c.id, c.status]).sort()).toEqual([...ALL.map((id) => [id, 'pass']), [CHILD_GATES_ONLY, 'fail']].sort());
    const failed = suite.cases.find((c) => c.id === CHILD_GATES_ONLY)!;
    expect(failed.failed_rules).toEqual(['PROD-8']);
    const paths = failed.failures.flatMap((f) => f.actual as string[]);
    expect(paths.some((path) => path.startsWith('requests.child['))).toBe(true);
    expect(paths.some((path) => path.startsWith('loom.turns['))).toBe(true);
  });
});

/** Issue 30, from a surviving mutant of reference/production/redaction.ts: scrubbing keeps the answer's shape. */
const ANSWER_KEPT_WHOLE = 'circle8-done-answer-kept-whole-when-secrets-are-scrubbed';

describe('CIRCLE-8 in a setup holding a secret: scrubbing it leaves the answer as given', () => {
  let file: CaseFile;
  beforeAll(() => {
    file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
  });

  it('the reference passes it at 0.2.0 and 0.3.1', async () => {
    for (const draft of ['0.2.0', '0.3.1']) {
      const suite = await runSuite(file, reference, { filter: [ANSWER_KEPT_WHOLE], draft, timeoutMs: CASE_BOUND_MS });
      expect(suite.cases.map((c) => [c.id, draft, c.status, c.failures, c.problems])).toEqual([[ANSWER_KEPT_WHOLE, draft, 'pass', [], []]]);
    }
  });

  it('answer-lists-scrubbed-into-objects fails it on CIRCLE-8 alone, and passes the PROD-8 cases (no secret leaks)', async () => {
    const suite = await runSuite(file, withAnswerListsScrubbedIntoObjects(reference), { filter: [ANSWER_KEPT_WHOLE, ...ALL], draft: '0.3.1', timeoutMs: CASE_BOUND_MS });
    expect(suite.cases.map((c) => [c.id, c.status, c.failed_rules]).sort()).toEqual([...ALL.map((id) => [id, 'pass', []]), [ANSWER_KEPT_WHOLE, 'fail', ['CIRCLE-8']]].sort());
  });
});

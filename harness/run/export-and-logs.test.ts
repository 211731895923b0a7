/**
 * PROD-8 names logs and the default loom export beside the observations (issue 30, item 3). An
 * implementation that hands the kit its default export (feature loom-export, `Adapter.exportLoom`) or its
 * log output (feature log-output, `Adapter.logs`) has them searched for the secrets the kit made up, a
 * credential of a gate bound for children only (`child_gates`) included. The reference passes the cases
 * at 0.2.0 and 0.3.1 with the credential really reaching its log writer and its export; each defect of
 * fixtures/lineage/export-log-defects.ts fails exactly the cases that search the place it leaks into, on
 * PROD-8 alone, naming the path; an implementation without the features is skipped with the feature
 * named, and one that declares a feature and then refuses it is errored, never failed.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { join } from 'node:path';
import { withRawGateErrorsLogged, withSetupInTheLoomExport } from '../../fixtures/lineage/export-log-defects.ts';
import { createReferenceAdapter } from '../../reference/adapter/index.ts';
import { adapterFactory, PACKAGE_ROOT } from '../cli/main.ts';
import { loadCaseFile } from '../case-file/load.ts';
import type { CaseFile, LoadedCase } from '../case-file/types.ts';
import { driveCase } from '../drive/index.ts';
import { runSuite, type AdapterFactory } from './run.ts';

const EXPORT = 'prod8-gate-credential-kept-out-of-the-default-loom-export';
const LOGS = 'prod8-gate-credential-kept-out-of-the-logs';
const CHILD = 'prod8-child-gate-credential-kept-out-of-the-export-and-the-logs';
const ALL = [EXPORT, LOGS, CHILD];
/** Only bounds a hang, never a verdict. */
const CASE_BOUND_MS = 60_000;

const reference: AdapterFactory = () => createReferenceAdapter();

/** The reference with `features` left out of its describe(). */
function without(...features: string[]): AdapterFactory {
  return () => {
    const adapter = createReferenceAdapter();
    const own = adapter.describe.bind(adapter);
    adapter.describe = async () => {
      const description = await own();
      return { ...description, features: description.features.filter((f) => !features.includes(f)) };
    };
    return adapter;
  };
}

/** The reference declaring both features, but refusing to hand over its export and its logs. */
const refusesBoth: AdapterFactory = () => {
  const adapter = createReferenceAdapter();
  adapter.exportLoom = async () => ({ ok: false, error: { message: 'no export today' } });
  adapter.logs = async () => ({ ok: false, error: { message: 'no logs today' } });
  return adapter;
};

/**
 * Another reading: an export that is a Markdown transcript of the loom (no JSONL, no ids) and a log that
 * stays empty. PROD-8 fixes neither format nor what is logged, so it passes as the reference does.
 */
const transcriptAndSilence: AdapterFactory = () => {
  const adapter = createReferenceAdapter();
  adapter.exportLoom = async () => {
    const loom = await adapter.loom();
    if (!loom.ok) return loom;
    const text = loom.value.turns.map((turn) => `## ${String(turn.role)}\n\n${JSON.stringify(turn.observation ?? turn.utterance ?? null)}\n`).join('\n');
    return { ok: true, value: { text, format: 'markdown' } };
  };
  adapter.logs = async () => ({ ok: true, value: { text: '' } });
  return adapter;
};

/** Which cases each defect's leak shows in, and the shape of every path it leaves. */
const DEFECTS: Record<string, { wrap: (f: AdapterFactory) => AdapterFactory; fails: string[]; paths: RegExp }> = {
  // The setup, credentials included, at the head of the default export.
  'setup-in-the-loom-export': { wrap: withSetupInTheLoomExport, fails: [EXPORT, CHILD], paths: /^exports\.exported\.text$/ },
  // Failed gate calls logged with the gate's raw error.
  'raw-gate-errors-logged': { wrap: withRawGateErrorsLogged, fails: [LOGS, CHILD], paths: /^logs\.logged\.text$/ },
};

describe('PROD-8: a gate credential stays out of the default loom export and the logs', () => {
  let file: CaseFile;
  beforeAll(() => {
    file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
  });
  const caseAt = (id: string, draft: string): LoadedCase => ({ ...file.cases.find((c) => c.id === id)!, judged_draft: draft });

  it('the cases derive their features and apply from 0.2.0 on (PROD-8 is new there)', () => {
    const needs: Record<string, string[]> = { [EXPORT]: ['loom-export'], [LOGS]: ['log-output'], [CHILD]: ['child-gates', 'loom-export', 'log-output'] };
    for (const id of ALL) {
      const c = file.cases.find((k) => k.id === id)!;
      expect([id, needs[id]!.every((f) => c.requires?.includes(f as never)), c.requires?.includes('gate-credentials'), c.drafts]).toEqual([id, true, true, ['0.2.0', '0.3.1']]);
    }
  });

  for (const draft of ['0.2.0', '0.3.1']) {
    it(`the reference passes every case at ${draft}, and the ambient secret-kept-out check with it`, async () => {
      const suite = await runSuite(file, reference, { filter: ALL, draft, timeoutMs: CASE_BOUND_MS });
      expect(suite.cases.map((c) => [c.id, c.status, c.failures, c.problems]).sort()).toEqual(ALL.map((id) => [id, 'pass', [], []]).sort());
      for (const c of suite.cases) expect([c.id, c.invariants.find((i) => i.id === 'secret-kept-out')?.status]).toEqual([c.id, 'pass']);
    });
  }

  it('in the reference runs the gate repeats its credential, and the export and the log record the failure scrubbed', async () => {
    for (const id of ALL) {
      const adapter = createReferenceAdapter();
      try {
        const drive = await driveCase(caseAt(id, '0.3.1'), adapter, await adapter.describe());
        const credential = drive.prepared.credential!;
        const reply = drive.record.gate_log.find((entry) => entry.credential === 'carried')!.reply!;
        expect([id, JSON.stringify(reply).includes(credential.value)]).toEqual([id, true]);
        // The failure did reach them, with the secret scrubbed: a search of them could have found it.
        for (const text of [drive.record.exports.exported?.text, drive.record.logs.logged?.text]) {
          if (text === undefined) continue;
          expect([id, text.includes('401: token'), text.includes(credential.needle)]).toEqual([id, true, false]);
        }
      } finally {
        await adapter.dispose();
      }
    }
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
        for (const path of paths) expect(path, c.id).toMatch(defect.paths);
        const ambient = c.invariants.find((i) => i.id === 'secret-kept-out');
        expect([c.id, ambient?.status, ambient?.rules]).toEqual([c.id, 'fail', ['PROD-8']]);
      }
    });
  }

  it('an export in another format (a Markdown transcript) and an empty log pass too', async () => {
    const suite = await runSuite(file, transcriptAndSilence, { filter: ALL, draft: '0.3.1', timeoutMs: CASE_BOUND_MS });
    expect(suite.cases.map((c) => [c.id, c.status, c.failures]).sort()).toEqual(ALL.map((id) => [id, 'pass', []]).sort());
  });

  it('an implementation without the features is skipped, with the missing feature named', async () => {
    const suite = await runSuite(file, without('loom-export', 'log-output'), { filter: ALL, draft: '0.3.1', timeoutMs: CASE_BOUND_MS });
    expect(suite.cases.map((c) => [c.id, c.status])).toEqual(ALL.map((id) => [id, 'skipped']));
    expect(suite.cases.find((c) => c.id === EXPORT)!.reason).toContain('loom-export');
    expect(suite.cases.find((c) => c.id === LOGS)!.reason).toContain('log-output');
  });

  it('one that declares them and refuses them is errored, never failed or passed', async () => {
    const suite = await runSuite(file, refusesBoth, { filter: ALL, draft: '0.3.1', timeoutMs: CASE_BOUND_MS });
    expect(suite.cases.map((c) => [c.id, c.status])).toEqual(ALL.map((id) => [id, 'errored']));
  });

  it('PROD-1: the reference passes them over the stdio protocol too (export_loom and logs)', async () => {
    const stdio = await adapterFactory('cmd:npx tsx reference/adapter/stdio-server.ts', PACKAGE_ROOT);
    const suite = await runSuite(file, stdio, { filter: ALL, draft: '0.3.1', timeoutMs: CASE_BOUND_MS });
    expect(suite.cases.map((c) => [c.id, c.status, c.failures, c.problems]).sort()).toEqual(ALL.map((id) => [id, 'pass', [], []]).sort());
  });
});

/**
 * PROD-2 from 0.2.0: retries go up to a configurable maximum (issue 30, item 3). A case configures it
 * (`setup.retry`, feature retry-limit, handed to `construct`); the reference passes the
 * `prod2-configured-maximum-*` cases at 0.2.0 and 0.3.1, the purpose-built defect that ignores the
 * configured number (fixtures/lineage/retry-limit-defects.ts) fails both on PROD-2 alone, and an
 * implementation that does not let it be configured is skipped with the feature named, never failed.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { join } from 'node:path';
import { withConfiguredRetriesIgnored } from '../../fixtures/lineage/retry-limit-defects.ts';
import { createReferenceAdapter } from '../../reference/adapter/index.ts';
import { PACKAGE_ROOT } from '../cli/main.ts';
import { loadCaseFile } from '../case-file/load.ts';
import type { CaseFile } from '../case-file/types.ts';
import { runSuite, type AdapterFactory } from './run.ts';

const ONE = 'prod2-configured-maximum-of-one-retry';
const NONE = 'prod2-configured-maximum-of-no-retries';
const ALL = [ONE, NONE];
/** Only bounds a hang, never a verdict. */
const CASE_BOUND_MS = 60_000;

const reference: AdapterFactory = () => createReferenceAdapter();

/** The reference without the feature in its describe(). */
const withoutTheFeature: AdapterFactory = () => {
  const adapter = createReferenceAdapter();
  const own = adapter.describe.bind(adapter);
  adapter.describe = async () => {
    const description = await own();
    return { ...description, features: description.features.filter((f) => f !== 'retry-limit') };
  };
  return adapter;
};

describe('PROD-2: a configured maximum of retries', () => {
  let file: CaseFile;
  beforeAll(() => {
    file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
  });

  it('the cases derive retry-limit and apply from 0.2.0 on (the maximum became configurable there)', () => {
    for (const id of ALL) {
      const c = file.cases.find((k) => k.id === id)!;
      expect([id, c.requires, c.drafts, c.level]).toEqual([id, ['retry-limit'], ['0.2.0', '0.3.1'], 'SHOULD']);
    }
  });

  for (const draft of ['0.2.0', '0.3.1']) {
    it(`the reference passes both at ${draft}`, async () => {
      const suite = await runSuite(file, reference, { filter: ALL, draft, timeoutMs: CASE_BOUND_MS });
      expect(suite.cases.map((c) => [c.id, c.status, c.failures, c.problems]).sort()).toEqual(ALL.map((id) => [id, 'pass', [], []]).sort());
    });
  }

  it('configured-retries-ignored: the defect that ignores the configured maximum fails both, on PROD-2 alone', async () => {
    const suite = await runSuite(file, withConfiguredRetriesIgnored(reference), { filter: ALL, draft: '0.3.1', timeoutMs: CASE_BOUND_MS });
    expect(suite.cases.map((c) => [c.id, c.status, c.failed_rules]).sort()).toEqual(ALL.map((id) => [id, 'fail', ['PROD-2']]).sort());
  });

  it('an implementation that does not declare retry-limit is skipped, with the feature named', async () => {
    const suite = await runSuite(file, withoutTheFeature, { filter: ALL, draft: '0.3.1', timeoutMs: CASE_BOUND_MS });
    expect(suite.cases.map((c) => [c.id, c.status])).toEqual(ALL.map((id) => [id, 'skipped']));
    for (const c of suite.cases) expect(c.reason).toContain('retry-limit');
  });

  it('the reference refuses a maximum that is no whole number of at least 0 at construct', async () => {
    const adapter = createReferenceAdapter();
    try {
      const host = { queryCrystal: async () => ({ ok: false as const, error: { message: 'unused' } }), callGate: async () => ({ ok: true as const, result: null }), sleep: async () => {} };
      const setup = { crystal: { name: 'c' }, call: {}, circle: { medium: 'conversation' as const, gates: [{ name: 'done' as const }], wards: { max_turns: 2 } } };
      const refused = await adapter.construct({ ...setup, retry: { max_retries: -1 } }, host);
      expect(refused.ok ? 'built' : refused.error.code).toBe('unsupported');
      expect((await adapter.construct({ ...setup, retry: { max_retries: 2 } }, host)).ok).toBe(true);
    } finally {
      await adapter.dispose();
    }
  });
});

/**
 * The case vocabulary added for issue 30 item 3 on the crystal and setup side: a fork asked for by
 * strategy (LOOM-13), a circle given two medium declarations (MEDIUM-1), and a scripted reply carrying a
 * tool the provider ran itself (LLM-7). For each, judged at 0.3.1: the reference passes its case, a
 * purpose-built defect fails it on its rule alone, and an implementation without the optional capability
 * is skipped with the reason, never failed. Runs only these cases, in process.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { join } from 'node:path';
import { withReplayRunningGates } from '../../fixtures/lineage/draft-rule-defects.ts';
import { adapterFactory, PACKAGE_ROOT } from '../cli/main.ts';
import { loadCaseFile } from '../case-file/load.ts';
import { runSuite, type AdapterFactory } from './run.ts';
import type { CaseFile } from '../case-file/types.ts';
import type { Adapter } from '../../schemas/adapter.ts';

/** Only bounds a hang, never a verdict: the code cases start QuickJS workers, slow on a loaded machine. */
const CASE_BOUND_MS = 60_000;
const DRAFT = '0.3.1';

/** An adapter factory whose adapter has some of its methods replaced. */
function overriding(inner: AdapterFactory, override: (adapter: Adapter) => Partial<Adapter>): AdapterFactory {
  return async () => {
    const adapter = await inner();
    return Object.assign(Object.create(adapter) as Adapter, override(adapter));
  };
}

describe('crystal-side case vocabulary (issue 30 item 3)', () => {
  let file: CaseFile;
  let reference: AdapterFactory;
  const run = async (factory: AdapterFactory, id: string) => {
    const suite = await runSuite(file, factory, { filter: [id], draft: DRAFT, timeoutMs: CASE_BOUND_MS });
    const [c] = suite.cases;
    return c!;
  };
  beforeAll(async () => {
    file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
    reference = await adapterFactory('reference', PACKAGE_ROOT);
  });

  describe('LOOM-13: a fork asked for by replay', () => {
    const CASE = 'loom13-asked-replay-fork-injects-recorded-gate-results';

    it('the reference makes the replay fork asked for and passes', async () => {
      const c = await run(reference, CASE);
      expect([c.status, c.failures, c.problems]).toEqual(['pass', [], []]);
    });

    it('a replay that runs the recorded gates again fails on LOOM-13 alone', async () => {
      const c = await run(withReplayRunningGates(reference), CASE);
      expect([c.status, c.failed_rules]).toEqual(['fail', ['LOOM-13']]);
    });

    it('an implementation that declares only snapshot forks is skipped, with the reason', async () => {
      const snapshotOnly = overriding(reference, (inner) => ({ describe: async () => ({ ...(await inner.describe()), fork_strategies: ['snapshot'] }) }));
      const c = await run(snapshotOnly, CASE);
      expect([c.status, c.reason]).toEqual(['skipped', 'fork strategy not declared: replay (describe().fork_strategies)']);
    });

    it('a replay fork refused, or made as a snapshot, leaves the case not run, never failed', async () => {
      const refuses = overriding(reference, () => ({ fork: async () => ({ ok: false as const, error: { code: 'unsupported' as const, message: 'no replay here' } }) }));
      const refused = await run(refuses, CASE);
      expect(refused.status).toBe('skipped');
      expect(refused.reason).toMatch(/^not run: the implementation refused a replay fork/);
      // The fork asked for is made, but reported as made another way: what the case is about did not happen.
      const snapshots = overriding(reference, (inner) => ({
        fork: async (turnId, intent, options) => {
          const made = await inner.fork(turnId, intent, options);
          return made.ok ? { ok: true as const, value: { ...made.value, strategy: 'snapshot' as const } } : made;
        },
      }));
      const other = await run(snapshots, CASE);
      expect(other.status).toBe('skipped');
      expect(other.reason).toMatch(/^not run: asked for a replay fork, the implementation made a snapshot fork/);
    });
  });
});

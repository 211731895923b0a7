/**
 * Cases that required what no sentence requires (issue 29, item 2): each wrapper below changes the
 * conformant variant into an implementation that takes a reading the spec permits, and the cases about
 * it must pass.
 *
 * - COMP-8 says a failed child's error comes back to the parent as the gate result: a record that keeps
 *   it as a successful result (ok true, the error's text as the result) is one way to do that.
 * - COMP-3 asks that a batch's children run concurrently; from 0.2.0 the implementation may limit how
 *   many run at once, so a limit of two is concurrent.
 * - CIRCLE-8 asks that done end the loop with its answer; whether the done call leaves a gate record of
 *   its own is the record's shape, no part of CIRCLE-8.
 * - PROD-2 asks for retries with doubling waits up to a maximum of three (a configurable maximum from
 *   0.3.1): an implementation that retries once and then gives up stays within it. Retrying at all is a
 *   SHOULD, so the MUST cases about a retry (one turn, invisible to the entity) hold when none is taken.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { join } from 'node:path';
import type { Adapter, CrystalReply, Host } from '../../schemas/adapter.ts';
import type { Turn } from '../../schemas/records.ts';
import { Miniature } from '../../fixtures/miniatures/miniature.ts';
import { loadCaseFile, PACKAGE_ROOT } from '../case-file/index.ts';
import type { CaseFile } from '../case-file/types.ts';
import { loomRewrite, override, type Wrap } from '../properties/test-adapters.ts';
import { runProperties } from '../properties/index.ts';
import { hangBound } from '../testing/hang-bound.ts';
import { describeAdapter, runSuite } from './run.ts';
import type { AdapterFactory } from './index.ts';

const variant: AdapterFactory = async () => new Miniature();

/** A failed child's error kept in the parent's record as a successful gate result (its text). */
const childErrorAsResult: Wrap = loomRewrite((turns: Turn[]) =>
  turns.map((t) => ({
    ...t,
    gate_calls: t.gate_calls.map((r) => (r.gate === 'call_entity' && !r.ok ? ({ gate: r.gate, arguments: r.arguments, ok: true, result: `child failed: ${r.error?.message ?? ''}` } as Turn['gate_calls'][number]) : r)),
  })),
);

/** The implementation with its host changed by `change` for every cantrip it constructs. */
const hostChanged =
  (change: (host: Host) => Host): Wrap =>
  (factory) =>
  async () => {
    const inner = await factory();
    return override(inner, { construct: (setup, host) => inner.construct(setup, change(host)) });
  };

/**
 * At most `limit` crystal queries in flight at once: a batch concurrency limit (the parent's own query
 * is over before its children start, and the cases' children share the parent's crystal).
 */
const childrenAtMost = (limit: number): Wrap =>
  hostChanged((host) => {
    let running = 0;
    const waiting: (() => void)[] = [];
    return {
      ...host,
      queryCrystal: async (crystal, request) => {
        while (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
        running++;
        try {
          return await host.queryCrystal(crystal, request);
        } finally {
          running--;
          waiting.shift()?.();
        }
      },
    };
  });

/** Retries at most once: after a retried query fails again, no further wait and the query is given up. */
const retriesOnce: Wrap = hostChanged((host) => {
  let failuresInRow = 0;
  const retryable = (r: CrystalReply): boolean => !r.ok && (r.error.status === 429 || (r.error.status !== undefined && r.error.status >= 500));
  return {
    ...host,
    sleep: async (ms) => (failuresInRow >= 2 ? undefined : host.sleep(ms)),
    queryCrystal: async (crystal, request) => {
      // The implementation would not ask a third time: it gives up with a failure it does not retry.
      if (failuresInRow >= 2) return { ok: false, error: { status: 400, message: 'gave up after one retry' } };
      const reply = await host.queryCrystal(crystal, request);
      failuresInRow = retryable(reply) ? failuresInRow + 1 : 0;
      return reply;
    },
  };
});

/** Never retries: every failed query is final (retrying is PROD-2's SHOULD). */
const neverRetries: Wrap = hostChanged((host) => ({
  ...host,
  queryCrystal: async (crystal, request) => {
    const reply = await host.queryCrystal(crystal, request);
    return reply.ok ? reply : { ok: false, error: { status: 400, message: 'not retried' } };
  },
}));

/** Done ends the loop without a gate record of its own (its answer is the outcome's result). */
const doneUnrecorded: Wrap = loomRewrite((turns: Turn[]) => turns.map((t) => ({ ...t, gate_calls: t.gate_calls.filter((r) => r.gate !== 'done') })));

describe('permitted readings pass the cases about them', () => {
  let file: CaseFile;
  beforeAll(() => {
    file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
  });

  const passes = async (factory: AdapterFactory, ids: string[]): Promise<void> => {
    const suite = await runSuite(file, factory, { jobs: 2, filter: ids });
    expect(suite.cases.map((c) => c.id).sort()).toEqual([...ids].sort());
    expect(suite.cases.filter((c) => c.status !== 'pass').map((c) => ({ id: c.id, status: c.status, reason: c.reason, failures: c.failures, invariants: c.invariants.filter((i) => i.status === 'fail') }))).toEqual([]);
  };

  it('COMP-8: a failed child kept as a successful gate result holding its error', async () => {
    await passes(childErrorAsResult(variant), ['comp8-child-crystal-failure-returns-to-parent', 'comp8-child-that-throws-returns-an-error-to-the-parent', 'ward1-child-may-tighten-its-cap']);
    const factory = childErrorAsResult(variant);
    const properties = await runProperties(factory, await describeAdapter(factory), { runs: 100, filter: ['child-failure-returns-to-parent'] });
    expect(properties.map((p) => ({ id: p.id, status: p.status, reason: p.reason }))).toEqual([{ id: 'child-failure-returns-to-parent', status: 'pass', reason: undefined }]);
  }, hangBound(180_000));

  it('CIRCLE-8: done that leaves no gate record of its own', async () => {
    await passes(doneUnrecorded(variant), ['loop3-done-first-of-three-calls', 'done-ends-cast-with-answer']);
  }, hangBound(120_000));

  it('COMP-3: a batch that runs two children at a time', async () => {
    await passes(childrenAtMost(2)(variant), ['comp3-batch-children-run-concurrently', 'comp3-batch-of-four-overlaps-and-keeps-order']);
  }, hangBound(120_000));

  it('COMP-3: a batch that runs its children one by one still fails', async () => {
    const suite = await runSuite(file, childrenAtMost(1)(variant), { jobs: 1, filter: ['comp3-batch-children-run-concurrently'] });
    expect(suite.cases.map((c) => ({ status: c.status, reason: c.reason, failures: c.failures.map((f) => f.path) }))).toEqual([{ status: 'fail', reason: undefined, failures: ['concurrency.child'] }]);
  }, hangBound(120_000));

  it('PROD-2: an implementation that retries once, then gives up', async () => {
    await passes(retriesOnce(variant), ['prod2-server-errors-back-off-1-2-4', 'prod2-gives-up-after-three-retries', 'prod2-two-rate-limits-then-success']);
  }, hangBound(120_000));

  it('PROD-2: the MUST cases about a retry taken hold for an implementation that does not retry (a SHOULD)', async () => {
    await passes(neverRetries(variant), ['prod2-retried-query-is-one-turn-mid-cast', 'prod2-retry-is-invisible-to-the-entity']);
  }, hangBound(120_000));

  it('PROD-2: more than three retries, or none, still fails', async () => {
    const suite = await runSuite(file, variant, { jobs: 1, filter: ['prod2-gives-up-after-three-retries'] });
    expect(suite.cases.map((c) => c.status)).toEqual(['pass']);
    const none = await runSuite(file, neverRetries(variant), { jobs: 1, filter: ['prod2-gives-up-after-three-retries', 'prod2-two-rate-limits-then-success'] });
    expect(none.cases.map((c) => c.status)).toEqual(['fail', 'fail']);
  }, hangBound(120_000));
});

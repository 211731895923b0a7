// Runs at draft 0.1.0, the draft the properties' rules are written in (drafts.test.ts runs them at later drafts).
import { referenceAtSeedDraft } from '../testing/seed-draft-reference.ts';
import { describe, it, expect, beforeAll } from 'vitest';
import type { Adapter, Description } from '../../schemas/adapter.ts';
import { DEFECTS, Miniature } from '../../fixtures/miniatures/miniature.ts';
import { describeAdapter, type AdapterFactory } from '../run/run.ts';
import { COMPOSITION_PROPERTIES } from './composition-definitions.ts';
import { byId, expectCaughtAndReproduced, miniature } from './test-support.ts';
import { runProperties, type PropertyResult } from './run-properties.ts';

const SEED = 20240611;
const RUNS = 50;
/** Composition properties only (a rule-family filter would also pick conversation properties). */
const ONLY = ['composition'];

/** The composition property each composition defect of the miniature must trip. */
const CAUGHT: Record<string, { property: string; rules: string[] }> = {
  'child-inherits-parent-history': { property: 'child-starts-with-its-own-context', rules: ['COMP-4'] },
  'batch-results-in-completion-order': { property: 'batch-results-in-request-order', rules: ['COMP-3'] },
  'child-gets-every-parent-gate': { property: 'child-gates-are-a-granted-subset', rules: ['COMP-1'] },
};


describe('composition properties', () => {
  let reference: AdapterFactory;
  beforeAll(async () => {
    reference = await referenceAtSeedDraft();
  });

  it('COMP-1, COMP-3, COMP-4, COMP-5, COMP-6, COMP-8, WARD-1: every composition property passes on the reference, each on real runs', async () => {
    const results = await runProperties(reference, await describeAdapter(reference), { draft: '0.1.0', seed: SEED, runs: RUNS, filter: ONLY });
    expect(results.map((r) => [r.id, r.status, r.reason])).toEqual(COMPOSITION_PROPERTIES.map((p) => [p.id, 'pass', undefined]));
    for (const r of results) expect(r.runs, r.id).toBeGreaterThanOrEqual(RUNS);
  });

  it('COMP-1, COMP-3, COMP-4, COMP-5, COMP-6, COMP-8, WARD-1: the defect-free miniature passes them too', async () => {
    const factory = miniature();
    const results = await runProperties(factory, await describeAdapter(factory), { draft: '0.1.0', seed: SEED, runs: RUNS, filter: ONLY });
    expect(results.map((r) => [r.id, r.status, r.counterexample?.failures])).toEqual(COMPOSITION_PROPERTIES.map((p) => [p.id, 'pass', undefined]));
  });

  for (const [defect, want] of Object.entries(CAUGHT)) {
    it.runIf((DEFECTS as readonly string[]).includes(defect))(`${want.rules.join(', ')}: the ${defect} miniature fails ${want.property}, shrunk to a small case that reproduces it`, async () => {
      const factory = miniature(defect);
      // Only the property the test reads: each property draws its own scenarios from the seed, so it fails
      // with the same counterexample alone as beside the others.
      const found = await runProperties(factory, await describeAdapter(factory), { draft: '0.1.0', seed: SEED, runs: RUNS, filter: [want.property] });
      const result = byId(found, want.property);
      // Small: the parent's two steps and at most four for two children (one that answers after a step of
      // work, one that finishes first; an overrun child's script holds one step past its cap).
      await expectCaughtAndReproduced(result, want.rules, 6, factory, reference);
    });
  }

  it('COMP-3: a miniature with a composition defect of another rule passes the batch-order property (no blame downstream)', async () => {
    const factory = miniature('child-gets-every-parent-gate');
    const found = await runProperties(factory, await describeAdapter(factory), { draft: '0.1.0', seed: SEED, runs: 20, filter: ['batch-results-in-request-order', 'child-failure-returns-to-parent'] });
    expect(found.map((r) => [r.id, r.status])).toEqual([
      ['child-failure-returns-to-parent', 'pass'],
      ['batch-results-in-request-order', 'pass'],
    ]);
  });

  it('COMP-1: every composition property is skipped, with the reason, when the implementation does not declare composition', async () => {
    const factory: AdapterFactory = () => {
      const inner = new Miniature();
      return Object.assign(Object.create(inner) as Adapter, {
        describe: async (): Promise<Description> => ({ ...(await inner.describe()), features: ['fork'] }),
      });
    };
    const found = await runProperties(factory, await describeAdapter(factory), { draft: '0.1.0', seed: SEED, runs: 5, filter: ONLY });
    expect(found.map((r) => [r.id, r.status, r.reason])).toEqual(COMPOSITION_PROPERTIES.map((p) => [p.id, 'skipped', 'feature not declared: composition']));
  });
});

import { describe, it, expect, beforeAll } from 'vitest';
import type { Adapter } from '../../schemas/adapter.ts';
import { withWardDefect } from '../../fixtures/lineage/ward-defects.ts';
import { adapterFactory, PACKAGE_ROOT } from '../cli/main.ts';
import { describeAdapter, type AdapterFactory } from '../run/run.ts';
import { runProperties } from './run-properties.ts';
import { byId, expectCaughtAndReproduced, miniature } from './test-support.ts';

const SEED = 20240611;
const RUNS = 25;
const ID = 'verifier-refused-call-never-runs';

/** The reference with its verifiers listed in the reverse order: another priority, the same law. */
const reversedVerifiers = (reference: AdapterFactory): AdapterFactory => async () => {
  const inner = await reference();
  return Object.assign(Object.create(inner) as Adapter, {
    construct: (setup: Parameters<Adapter['construct']>[0], host: Parameters<Adapter['construct']>[1]) =>
      inner.construct(setup.circle?.verifiers ? { ...setup, circle: { ...setup.circle, verifiers: [...setup.circle.verifiers].reverse() } } : setup, host),
  });
};

describe('verifier-ward property (feature verifier-wards)', () => {
  let reference: AdapterFactory;
  beforeAll(async () => {
    reference = await adapterFactory('reference', PACKAGE_ROOT);
  });

  it('CIRCLE-6, CIRCLE-5: a refused call never runs, whatever the verifiers: it holds on the reference, on real runs', async () => {
    const [result] = await runProperties(reference, await describeAdapter(reference), { seed: SEED, runs: RUNS, filter: [ID] });
    expect([result?.id, result?.status, result?.reason]).toEqual([ID, 'pass', undefined]);
    expect(result?.runs).toBeGreaterThanOrEqual(RUNS);
  });

  it('CIRCLE-6: it holds whatever the order: the reference with every verifier list reversed passes too', async () => {
    const factory = reversedVerifiers(reference);
    const [result] = await runProperties(factory, await describeAdapter(factory), { seed: SEED, runs: RUNS, filter: [ID] });
    expect([result?.status, result?.reason]).toEqual(['pass', undefined]);
  });

  it('CIRCLE-6: verifiers checked after the gate ran fail it, shrunk to a small case that reproduces it', async () => {
    const broken = withWardDefect('verifier-runs-gate-anyway', reference);
    const found = await runProperties(broken, await describeAdapter(broken), { seed: SEED, runs: RUNS, filter: [ID] });
    await expectCaughtAndReproduced(byId(found, ID), ['CIRCLE-6'], 2, broken, reference);
  });

  it('is skipped, with the reason, for an implementation that does not declare verifier-wards', async () => {
    const factory = miniature();
    const [result] = await runProperties(factory, await describeAdapter(factory), { seed: SEED, runs: 5, filter: [ID] });
    expect([result?.status, result?.reason]).toEqual(['skipped', 'feature not declared: verifier-wards']);
  });
});

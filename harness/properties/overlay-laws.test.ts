import { describe, it, expect, beforeAll } from 'vitest';
import { withOverlayEventDefect } from '../../fixtures/lineage/overlay-event-defects.ts';
import { adapterFactory, PACKAGE_ROOT } from '../cli/main.ts';
import { describeAdapter, type AdapterFactory } from '../run/run.ts';
import { runProperties } from './run-properties.ts';
import { byId, expectCaughtAndReproduced, miniature } from './test-support.ts';

const SEED = 20240612;
const RUNS = 20;
const ACCEPT = 'overlay-accept-then-read-equals-the-overlay-view';
const REJECT = 'overlay-reject-leaves-the-base-untouched';

describe('overlay laws over generated write/delete/read sequences (feature overlay-file-gates)', () => {
  let reference: AdapterFactory;
  beforeAll(async () => {
    reference = await adapterFactory('reference', PACKAGE_ROOT);
  });

  it('CIRCLE-10, CIRCLE-4, CIRCLE-6: accept then read equals the overlay view, and reject leaves the base untouched, on the reference', async () => {
    const results = await runProperties(reference, await describeAdapter(reference), { seed: SEED, runs: RUNS, filter: [ACCEPT, REJECT] });
    expect(results.map((r) => [r.id, r.status, r.reason])).toEqual([
      [ACCEPT, 'pass', undefined],
      [REJECT, 'pass', undefined],
    ]);
    for (const r of results) expect(r.runs).toBeGreaterThanOrEqual(RUNS);
  });

  it('CIRCLE-10: an accept that discards the overlay fails the accept law, shrunk to a small case that reproduces it', async () => {
    const broken = withOverlayEventDefect('accept-discards');
    const found = await runProperties(broken, await describeAdapter(broken), { seed: SEED, runs: RUNS, filter: [ACCEPT] });
    await expectCaughtAndReproduced(byId(found, ACCEPT), ['CIRCLE-10'], 4, broken, reference);
  });

  it('CIRCLE-6: an overlay that writes through to the base fails the reject law, shrunk to a small case that reproduces it', async () => {
    const broken = withOverlayEventDefect('overlay-writes-through');
    const found = await runProperties(broken, await describeAdapter(broken), { seed: SEED, runs: RUNS, filter: [REJECT] });
    await expectCaughtAndReproduced(byId(found, REJECT), ['CIRCLE-6'], 4, broken, reference);
  });

  it('is skipped, with the reason, for an implementation that does not declare overlay-file-gates', async () => {
    const factory = miniature();
    const results = await runProperties(factory, await describeAdapter(factory), { seed: SEED, runs: 5, filter: [ACCEPT, REJECT] });
    expect(results.map((r) => [r.status, r.reason])).toEqual([
      ['skipped', 'feature not declared: overlay-file-gates'],
      ['skipped', 'feature not declared: overlay-file-gates'],
    ]);
  });
});

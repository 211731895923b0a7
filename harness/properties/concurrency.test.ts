// Runs at draft 0.1.0, the draft the properties' rules are written in (drafts.test.ts runs them at later drafts).
import { describe, expect, it } from 'vitest';
import { createReferenceAdapter } from '../../reference/adapter/index.ts';
import { describeAdapter } from '../run/run.ts';
import { ALL_PROPERTY_IDS, runProperties, type PropertyResult } from './run-properties.ts';

describe('property families at once (PropertyOptions.concurrency)', () => {
  it('two families at once give the results and the progress of one at a time, in report order', async () => {
    const factory = () => createReferenceAdapter();
    const description = await describeAdapter(factory);
    const run = async (concurrency: number) => {
      const progress: string[] = [];
      const results = await runProperties(factory, description, {
        draft: '0.1.0',
        seed: 7,
        runs: 3,
        concurrency,
        onProperty: (result: PropertyResult, done, total) => progress.push(`${done}/${total} ${result.id}`),
      });
      return { results: results.map(({ id, status, runs, failed_rules }) => ({ id, status, runs, failed_rules })), progress };
    };
    const one = await run(1);
    const two = await run(2);
    expect(two).toEqual(one);
    expect(two.results.map((r) => r.id)).toEqual(ALL_PROPERTY_IDS);
    expect(two.progress).toEqual(ALL_PROPERTY_IDS.map((id, i) => `${i + 1}/${ALL_PROPERTY_IDS.length} ${id}`));
  });
});

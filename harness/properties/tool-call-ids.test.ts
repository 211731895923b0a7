import { describe, it, expect } from 'vitest';
import { createReferenceAdapter } from '../../reference/adapter/index.ts';
import { Miniature } from '../../fixtures/miniatures/miniature.ts';
import { loadCaseText } from '../case-file/load.ts';
import { runCase } from '../run/run.ts';
import { runProperties } from './run-properties.ts';

const only = { filter: ['tool-call-ids-unique-anywhere'], seed: 11, runs: 60 };

describe('CRYSTAL-4 over generated id lists (tool-call-ids-unique-anywhere)', () => {
  it('holds on the reference and on the conformant variant', async () => {
    for (const factory of [() => createReferenceAdapter(), () => new Miniature()]) {
      const [result] = await runProperties(factory, await factory().describe(), only);
      expect(result?.status, result?.reason).toBe('pass');
      expect(result?.runs).toBeGreaterThan(30);
    }
  });

  it('fails on a variant that catches a repeat only next to its twin, shrunk to a repeat with a call between', async () => {
    const broken = () => new Miniature('duplicate-ids-checked-side-by-side');
    const [result] = await runProperties(broken, await broken().describe(), only);
    expect(result?.status).toBe('fail');
    expect(result?.failed_rules).toEqual(['CRYSTAL-4']);
    const yaml = result?.counterexample?.case_yaml ?? '';
    // The smallest repeat the broken check misses: three calls, the first and last sharing an id.
    const ids = [...yaml.matchAll(/id: (call-[a-d])/g)].map((m) => m[1]);
    expect(ids).toHaveLength(3);
    expect(ids[0]).toBe(ids[2]);
    expect(ids[1]).not.toBe(ids[0]);
    // The printed case reproduces the failure, and passes on the reference.
    const c = loadCaseText(`format_version: 1\nspec_version: 0.1.0-draft\ncases:\n${yaml}`, 'reproducer.yaml').cases[0]!;
    expect((await runCase(c, broken, await broken().describe())).status).toBe('fail');
    expect((await runCase(c, () => createReferenceAdapter(), await createReferenceAdapter().describe())).status).toBe('pass');
  });
});

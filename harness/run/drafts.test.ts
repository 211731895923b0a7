/**
 * A run judged at a draft (issue 24), over the shipped tests.yaml: the suite result names the draft,
 * cases outside it are counted and not run, the results speak the draft's rule IDs, and every cantrip
 * the harness constructs is asked for that draft. The miniature is the implementation; a wrapper makes
 * it declare drafts, as an implementation of several drafts would (what it builds is not the subject).
 */
import { describe, it, expect } from 'vitest';
import { join } from 'node:path';
import type { Adapter, CantripSetup } from '../../schemas/adapter.ts';
import { Miniature } from '../../fixtures/miniatures/miniature.ts';
import { loadCaseFile, PACKAGE_ROOT } from '../case-file/index.ts';
import { runSuite } from './run.ts';
import { hangBound } from '../testing/hang-bound.ts';

const FILE = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
/** A renamed rule (CRYSTAL-4 -> LLM-4), a rule reversed at 0.2.0 (COMP-1), a rule the same everywhere (LOOP-3). */
const CASES = ['crystal4-duplicate-tool-call-ids', 'comp1-child-offered-only-requested-gates', 'done-ends-cast-with-answer'];

/** The miniature declaring `drafts`, with every setup `construct` received. */
function declaring(drafts: string[] | undefined, setups: CantripSetup[]): () => Adapter {
  return () => {
    const adapter = new Miniature();
    const describeOwn = adapter.describe.bind(adapter);
    const constructOwn = adapter.construct.bind(adapter);
    adapter.describe = async () => ({ ...(await describeOwn()), ...(drafts && { drafts }) });
    adapter.construct = (setup, host) => {
      setups.push(structuredClone(setup));
      return constructOwn(setup, host);
    };
    return adapter;
  };
}

describe('a run judged at a draft', () => {
  it('at 0.3.1: the reversed rule’s case is outside, the rest run in 0.3.1 ids, every construct asks for 0.3.1', async () => {
    const setups: CantripSetup[] = [];
    const suite = await runSuite(FILE, declaring(['0.1.0', '0.3.1'], setups), { filter: CASES, draft: '0.3.1' });
    expect(suite.draft).toBe('0.3.1');
    expect(suite.outside_draft).toEqual(['comp1-child-offered-only-requested-gates']);
    // In file order, as planned.
    expect(suite.cases.map((c) => [c.id, c.rules])).toEqual([
      ['done-ends-cast-with-answer', ['LOOP-3', 'CIRCLE-8']],
      ['crystal4-duplicate-tool-call-ids', ['LLM-4']],
    ]);
    expect(setups.length).toBeGreaterThanOrEqual(2);
    expect(setups.every((s) => s.draft === '0.3.1')).toBe(true);
  }, hangBound(60_000));

  it('without a draft asked: the newest declared; an implementation that declares none is judged at 0.1.0 and every case applies', async () => {
    const newest = await runSuite(FILE, declaring(['0.1.0', '0.2.0'], []), { filter: CASES });
    expect(newest.draft).toBe('0.2.0');
    const setups: CantripSetup[] = [];
    const seed = await runSuite(FILE, declaring(undefined, setups), { filter: CASES });
    expect(seed.draft).toBe('0.1.0');
    expect(seed.outside_draft).toEqual([]);
    expect(seed.cases.map((c) => c.id).sort()).toEqual([...CASES].sort());
    expect(setups.every((s) => s.draft === '0.1.0')).toBe(true);
  }, hangBound(60_000));

  it('a draft the implementation does not declare is refused before any case runs', async () => {
    const setups: CantripSetup[] = [];
    await expect(runSuite(FILE, declaring(undefined, setups), { filter: CASES, draft: '0.3.1' })).rejects.toThrow(/0\.3\.1/);
    expect(setups).toEqual([]);
  });
});

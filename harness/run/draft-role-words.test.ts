/**
 * Records in the judged draft's words (issue 29, item 4). 0.2.0 and 0.3.1 show a turn's `role` as
 * `"identity" | "turn"` (§6.1); 0.1.0 as `"crystal" | "call" | "fold"`. An implementation written from
 * the 0.3.1 text records `turn` and `identity`, and before the drive read looms through the judged
 * draft's words (harness/drive/draft-roles.ts, registry `turn_roles`) it failed 100 of 282 cases and
 * four properties at 0.3.1 for that alone. Here the conformant variant speaks 0.3.1's words (a wrapper
 * renames the roles in everything its loom() and thread() return) and must pass as the variant does;
 * at 0.1.0, where those words are no role of the draft, the turn schema still reports them.
 */
import { describe, expect, it, beforeAll } from 'vitest';
import { join } from 'node:path';
import type { Adapter, Result } from '../../schemas/adapter.ts';
import type { Turn } from '../../schemas/records.ts';
import { conformantVariant } from '../../fixtures/miniatures/miniature.ts';
import { loadCaseFile, PACKAGE_ROOT } from '../case-file/index.ts';
import type { CaseFile } from '../case-file/types.ts';
import { runProperties } from '../properties/index.ts';
import { hangBound } from '../testing/hang-bound.ts';
import { describeAdapter, runSuite } from './run.ts';

/** 0.3.1's words for the kinds of turn the variant records in 0.1.0's. */
const WORDS_OF_031: Record<string, string> = { crystal: 'turn', call: 'identity' };

/** The conformant variant with every loom and thread it returns written in 0.3.1's role words. */
function speaking031(inner: Adapter): Adapter {
  const renamed = (result: Result<{ turns: Turn[] }>): Result<{ turns: Turn[] }> =>
    result.ok ? { ok: true, value: { turns: result.value.turns.map((t) => ({ ...t, role: (WORDS_OF_031[t.role] ?? t.role) as Turn['role'] })) } } : result;
  return Object.assign(Object.create(inner) as Adapter, {
    loom: async () => renamed(await inner.loom()),
    thread: async (leaf: string) => renamed(await inner.thread(leaf)),
  });
}

/** Cases that read roles through every path kind: a role filter, loom.cast/entity, threads, forks, the root. */
const CASES = ['call4-call-turn-is-the-root', 'thread-is-the-root-to-leaf-path', 'fork-continues-from-the-fork-turn', 'entity3-thread-only-grows-across-sends', 'cantrip2-three-casts-three-entities', 'loop4-single-turn-cap'];

describe('a loom in 0.3.1 role words (identity, turn)', () => {
  let file: CaseFile;
  beforeAll(() => {
    file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
  });
  const factory = () => speaking031(conformantVariant());

  for (const draft of ['0.3.1', '0.2.0']) {
    it(`passes at ${draft}, turn schema included`, async () => {
      const suite = await runSuite(file, factory, { draft, filter: CASES });
      expect(suite.cases.map((c) => [c.id, c.status]).sort()).toEqual(CASES.map((id) => [id, 'pass']).sort());
      expect(suite.cases.flatMap((c) => c.invariants.filter((i) => i.status === 'fail').map((i) => [c.id, i.id, i.detail]))).toEqual([]);
    }, hangBound(120_000));
  }

  it('passes the loom properties at 0.3.1', async () => {
    const properties = await runProperties(factory, await describeAdapter(factory), { draft: '0.3.1', runs: 3, filter: ['loom-records-every-turn', 'fork-leaves-the-original-thread'] });
    expect(properties.map((p) => [p.id, p.status])).toEqual([
      ['loom-records-every-turn', 'pass'],
      ['fork-leaves-the-original-thread', 'pass'],
    ]);
  }, hangBound(120_000));

  it('at 0.1.0 the same words are no role of the draft: the turn schema names them', async () => {
    const suite = await runSuite(file, factory, { draft: '0.1.0', filter: ['call4-call-turn-is-the-root'] });
    const turnSchema = suite.cases[0]?.invariants.find((i) => i.id === 'turn-schema');
    expect(turnSchema?.status).toBe('fail');
    expect(turnSchema?.cause).toContain('/role');
  }, hangBound(120_000));
});

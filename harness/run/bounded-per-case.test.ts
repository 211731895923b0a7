/**
 * Bounded memory and report size (issue 32, item 3): what the kit keeps of one case is bounded whatever
 * the implementation sends: a loom beyond the kept turns errors the case (incomplete, never judged on
 * part of it), a flood of ACP updates keeps the first and last ones and counts the rest, and every text,
 * value and list a report carries per case is cut with a "truncated after N" note.
 */
import { describe, it, expect } from 'vitest';
import { join } from 'node:path';
import type { Adapter, Result } from '../../schemas/adapter.ts';
import type { Turn } from '../../schemas/records.ts';
import { Miniature } from '../../fixtures/miniatures/miniature.ts';
import { KeptUpdates, MAX_UPDATES_KEPT } from '../adapters/acp/acp-client.ts';
import { loadCaseFile, PACKAGE_ROOT } from '../case-file/index.ts';
import { MAX_LOOM_TURNS_KEPT } from '../drive/drive-state.ts';
import { boundCaseResult, MAX_LIST_ITEMS, MAX_TEXT_CHARS, MAX_VALUE_CHARS } from '../report/bounded.ts';
import { buildReport } from '../report/index.ts';
import { hangBound } from '../testing/hang-bound.ts';
import { runSuite, type CaseResult } from './run.ts';

/** The miniature, its loom padded past what the kit keeps. */
class HugeLoom extends Miniature {
  override async loom(): Promise<Result<{ turns: Turn[] }>> {
    const real = await super.loom();
    if (!real.ok || real.value.turns.length === 0) return real;
    const model = real.value.turns.at(-1)!;
    const pad = Array.from({ length: MAX_LOOM_TURNS_KEPT + 1 }, (_, i) => ({ ...model, id: `pad-${i}`, parent_id: i === 0 ? model.id : `pad-${i - 1}` }));
    return { ok: true, value: { turns: [...real.value.turns, ...pad] } };
  }
}

describe('a loom beyond what the kit keeps', () => {
  it('errors the case (not judged on part of its loom) and the report stays small', async () => {
    const file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
    const suite = await runSuite(file, (): Adapter => new HugeLoom(), { filter: ['done-ends-cast-with-answer'] });
    expect(suite.cases.map((c) => c.status)).toEqual(['errored']);
    expect(suite.cases[0]?.reason).toContain(String(MAX_LOOM_TURNS_KEPT));
    expect(JSON.stringify(buildReport(suite)).length).toBeLessThan(200_000);
  }, hangBound(60_000));
});

describe('a flood of ACP updates', () => {
  it('keeps the first and the last halves, in order, and counts what it dropped', () => {
    const kept = new KeptUpdates();
    const total = MAX_UPDATES_KEPT * 2 + 123;
    for (let n = 0; n < total; n++) kept.push({ params: n, problems: [] });
    const { updates, dropped } = kept.take();
    expect(updates).toHaveLength(MAX_UPDATES_KEPT);
    expect(dropped).toBe(total - MAX_UPDATES_KEPT);
    expect(updates[0]?.params).toBe(0);
    expect(updates[MAX_UPDATES_KEPT / 2 - 1]?.params).toBe(MAX_UPDATES_KEPT / 2 - 1);
    expect(updates[MAX_UPDATES_KEPT / 2]?.params).toBe(total - MAX_UPDATES_KEPT / 2);
    expect(updates.at(-1)?.params).toBe(total - 1);
  });
});

describe('what a report keeps of one case', () => {
  it('cuts long texts, large values and long lists, each with a note', () => {
    const long = 'y'.repeat(MAX_TEXT_CHARS * 3);
    const c = {
      id: 'x', rules: ['LOOP-3'], level: 'MUST', requires: [], description: '', status: 'fail', duration_ms: 1, reason: long,
      failures: Array.from({ length: MAX_LIST_ITEMS + 5 }, () => ({ path: 'loom', matcher: 'equals', ok: false, expected: 1, actual: Array.from({ length: 10_000 }, (_, i) => i) })),
      expectations: 1, invariants: [], problems: Array.from({ length: MAX_LIST_ITEMS + 7 }, () => long), failed_rules: ['LOOP-3'], position: { file: 'f', line: 1, column: 1 },
    } as CaseResult;
    const bounded = boundCaseResult(c);
    expect(bounded.reason!.length).toBeLessThan(MAX_TEXT_CHARS + 100);
    expect(bounded.failures).toHaveLength(MAX_LIST_ITEMS);
    expect(String(bounded.failures[0]?.actual).length).toBeLessThan(MAX_VALUE_CHARS + 100);
    // The kept problems, then one note for the problems and one for the failed expectations left out.
    expect(bounded.problems).toHaveLength(MAX_LIST_ITEMS + 2);
    expect(JSON.stringify(bounded).length).toBeLessThan(5_000_000);
    expect(JSON.stringify(c).length).toBeGreaterThan(10_000_000);
  });
});

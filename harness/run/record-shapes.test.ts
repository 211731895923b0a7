/**
 * Issue 21, class 3: record shapes are not the rules about what the entity sees. The conformant variant
 * keeps gate records without the call's id and without error names, and a result as the text the entity
 * was shown (`"1"` for 1); the cases about gate results (CIRCLE-4, CIRCLE-5, CIRCLE-7) judge what reached
 * the entity, and pass. The record schema accepts such a record; the loom expectations read results with
 * `seen_as` (harness/values/seen-as.ts). Each case notes how its loom's records differ from the spec's
 * shapes (harness/judge/record-shapes.ts); the report lists each kind once, informational
 * (harness/report/record-shapes.test.ts, harness/run/must-show-reports.test.ts).
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { join } from 'node:path';
import { Miniature } from '../../fixtures/miniatures/miniature.ts';
import { createReferenceAdapter } from '../../reference/adapter/index.ts';
import { validate } from '../../schemas/loader.ts';
import { loadCaseFile } from '../case-file/load.ts';
import { PACKAGE_ROOT } from '../case-file/package-root.ts';
import type { CaseFile } from '../case-file/types.ts';
import { runSuite, type SuiteResult } from './run.ts';

const CASES = ['gate-calls-run-in-utterance-order', 'crystal4-caller-ids-link-results', 'circle7-different-delays-keep-call-order', 'gate-failure-returns-as-observation', 'comp3-batch-results-in-request-order'];

describe('gate records without ids or error names, results kept as shown text (issue 21, class 3)', () => {
  let file: CaseFile;
  /** The variant's run of the cases, read by the first two tests (one run: they read different things of it). */
  let variant: SuiteResult;
  beforeAll(async () => {
    file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
    variant = await runSuite(file, () => new Miniature(), { filter: CASES });
  });

  it('the cases about gate results pass on an implementation whose loom keeps no ids, no error names and rendered results', () => {
    expect(variant.cases.map((c) => [c.id, c.status]).sort()).toEqual(CASES.map((id) => [id, 'pass']).sort());
  });

  it('each case that ran notes its record shapes: the variant\'s missing ids, none on the reference\'s gate records (read once per run by the report)', async () => {
    for (const c of variant.cases) expect(c.record_shapes?.map((o) => o.kind)).toContain('gate-record-without-tool-call-id');
    const reference = await runSuite(file, () => createReferenceAdapter(), { filter: CASES });
    expect(reference.cases.map((c) => c.status)).toEqual(CASES.map(() => 'pass'));
    for (const c of reference.cases) expect((c.record_shapes ?? []).filter((o) => o.kind.startsWith('gate-'))).toEqual([]);
  });

  it('the variant really keeps that shape: no tool_call_id, results as text, failures without a name', async () => {
    const m = new Miniature();
    const host = {
      queryCrystal: async () => ({ ok: true as const, response: { content: null, tool_calls: [{ id: 'x1', gate: 'echo', arguments: '{"text":7}' }], usage: { prompt: 1, completion: 1, cached: 0 } } }),
      callGate: async () => ({ ok: true as const, result: 7 }),
      sleep: async () => undefined,
    };
    const built = await m.construct({ crystal: { name: 'k' }, call: {}, circle: { medium: 'conversation', gates: [{ name: 'done' }, { name: 'echo', test: { name: 'echo', description: 'e', parameters: { type: 'object' } } }], wards: { max_turns: 1 } } }, host);
    expect(built.ok).toBe(true);
    if (!built.ok) return;
    await m.cast(built.value.cantrip, 'go');
    const loom = await m.loom();
    expect(loom.ok).toBe(true);
    if (!loom.ok) return;
    const record = loom.value.turns.flatMap((t) => t.gate_calls)[0];
    expect(record).toEqual({ gate: 'echo', arguments: { text: 7 }, ok: true, result: '7' });
    expect(validate('gate-call-record', record).ok).toBe(true);
    expect(validate('gate-call-record', { gate: 'echo', ok: false, error: { message: 'broke' } }).ok).toBe(true);
    // Still able to fail: a failure without an error, or a result on a failure, is refused.
    expect(validate('gate-call-record', { gate: 'echo', ok: false }).ok).toBe(false);
    expect(validate('gate-call-record', { gate: 'echo', ok: false, result: 1, error: { message: 'm' } }).ok).toBe(false);
  });

  it('a fold turn without a range validates, and so does a range kept on another turn (no draft closes the Turn, issue 29); a malformed range does not', () => {
    const turn = { id: 't2', parent_id: 't1', cantrip_id: 'c', entity_id: 'e', role: 'fold', sequence: 3, utterance: 'summary', observation: '', gate_calls: [], metadata: { tokens_prompt: 0, tokens_completion: 0, tokens_cached: 0, duration_ms: 0, timestamp: '2026-01-01T00:00:00Z' }, reward: null, terminated: false, truncated: false };
    expect(validate('turn', turn).ok).toBe(true);
    expect(validate('turn', { ...turn, role: 'crystal', fold: { from_sequence: 1, to_sequence: 2 } }).ok).toBe(true);
    expect(validate('turn', { ...turn, fold: { from_sequence: 'a', to_sequence: 2 } }).ok).toBe(false);
  });
});

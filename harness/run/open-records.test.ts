/**
 * Records the spec leaves open (issue 29, "Nothing closed that the spec leaves open"): a medium may add
 * fields to a gate call record (§4.3 from 0.2.0; 0.1.0 shows a record and closes nothing), providers'
 * fields may be kept as metadata (CRYSTAL-6 / LLM-6), and no sentence of any draft closes the Turn of
 * §6.1. A field the spec shows as null when there is nothing to say (a call without a system prompt) may
 * be left out, and so may a field only the layout shows (a metadata timestamp): no rule asks for it. The conformant variant, changed only in keeping such fields, must still pass the case and
 * the property that read whole turns, at every draft it declares.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { join } from 'node:path';
import type { Adapter, Result } from '../../schemas/adapter.ts';
import type { Turn } from '../../schemas/records.ts';
import { conformantVariant, VARIANT_DRAFTS } from '../../fixtures/miniatures/miniature.ts';
import { loadCaseFile, PACKAGE_ROOT } from '../case-file/index.ts';
import type { CaseFile } from '../case-file/types.ts';
import { runProperties } from '../properties/index.ts';
import { bridged, override } from '../properties/test-adapters.ts';
import { jsonCopy } from '../values/index.ts';
import { hangBound } from '../testing/hang-bound.ts';
import { describeAdapter, runSuite } from './run.ts';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** One turn as an implementation that keeps what the spec lets it keep would store it. */
export function withOpenFields(turn: Turn): Turn {
  const out = jsonCopy(turn) as Turn & Record<string, unknown>;
  // A field of the implementation's own on the turn (no sentence closes §6.1's Turn).
  out.model_id = 'mock-model-1';
  // Provider fields kept as metadata (CRYSTAL-6 / LLM-6).
  if (isObject(out.metadata)) Object.assign(out.metadata, { stop_reason: 'end_turn', provider: 'mock' });
  // A field §6.1's layout shows but no rule asks for (LOOM-9 asks for usage and duration, not a timestamp).
  if (isObject(out.metadata)) delete (out.metadata as Record<string, unknown>).timestamp;
  // A medium's own fields beside the record's (§4.3 from 0.2.0).
  if (Array.isArray(out.gate_calls)) out.gate_calls = out.gate_calls.map((r) => (isObject(r) ? { ...r, duration_ms: 1, stdout: '' } : r)) as Turn['gate_calls'];
  // A call without a system prompt: the null the spec shows, left out; and a field of the call record's own.
  if (isObject(out.call) && out.call.system_prompt === null) delete (out.call as Record<string, unknown>).system_prompt;
  if (isObject(out.call)) (out.call as Record<string, unknown>).model_id = 'mock-model-1';
  return out;
}

/** The conformant variant with every turn it hands back (loom, thread) stored with open fields. */
export function keepingOpenFields(inner: Adapter = conformantVariant()): Adapter {
  const rewrite = (r: Result<{ turns: Turn[] }>): Result<{ turns: Turn[] }> => (r.ok ? { ok: true, value: { turns: r.value.turns.map(withOpenFields) } } : r);
  return override(inner, {
    loom: async () => rewrite(await inner.loom()),
    thread: async (leaf) => rewrite(await inner.thread(leaf)),
  });
}

/** Requests with provider keys of their own: on every message, and 0.3.1's provider parameters (`extra`). */
const providerKeysInRequests = bridged(() => ({
  request: (_crystal, r) => ({ ...r, extra: { top_k: 40 }, messages: r.messages.map((m) => ({ ...m, provider_meta: { cache: 'ephemeral' } })) }) as typeof r,
}));

/** Cases that compare a message or the stored call as a whole. */
const WHOLE_MESSAGE_CASES = [
  'call2-prompt-survives-failing-gate',
  'comp7-child-defaults-to-parent-call',
  'comp7-system-prompt-argument-shapes-child',
  'intent2-intent-is-first-user-message-after-system',
  'loop1-text-turn-followed-by-circle-message',
  'call3-call-record-holds-no-gates',
];

describe('records with medium and provider fields are accepted (issue 29, item 1)', () => {
  let file: CaseFile;
  beforeAll(() => {
    file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
  });

  it('the wrapper changes what it says: medium fields on gate records, provider fields in metadata', async () => {
    const a = keepingOpenFields();
    const turns = [{ id: 't', parent_id: null, gate_calls: [{ gate: 'done', ok: true }], metadata: { tokens_prompt: 0 }, call: { system_prompt: null, hyperparameters: {} } }] as unknown as Turn[];
    const inner = override(conformantVariant(), { loom: async () => ({ ok: true, value: { turns } }) });
    const got = await keepingOpenFields(inner).loom();
    expect(got.ok && got.value.turns[0]).toMatchObject({ model_id: 'mock-model-1', metadata: { stop_reason: 'end_turn' }, gate_calls: [{ duration_ms: 1 }], call: { hyperparameters: {} } });
    expect(got.ok && 'system_prompt' in (got.value.turns[0]!.call as object)).toBe(false);
    await a.dispose();
  });

  it('messages with provider keys and a stored call with a field of its own pass the cases that compare them whole', async () => {
    const factory = providerKeysInRequests(async () => keepingOpenFields());
    const suite = await runSuite(file, factory, { jobs: 2, draft: '0.1.0', filter: WHOLE_MESSAGE_CASES });
    expect(suite.cases.map((c) => c.id).sort()).toEqual([...WHOLE_MESSAGE_CASES].sort());
    expect(suite.cases.filter((c) => c.status !== 'pass').map((c) => ({ id: c.id, status: c.status, failures: c.failures, invariants: c.invariants.filter((i) => i.status === 'fail') }))).toEqual([]);
  }, hangBound(120_000));

  for (const draft of VARIANT_DRAFTS) {
    it(`at ${draft}: thread-is-the-root-to-leaf-path, the ambient checks and loom-records-every-turn pass`, async () => {
      const factory = (): Adapter => keepingOpenFields();
      const suite = await runSuite(file, factory, { jobs: 2, draft, filter: ['thread-is-the-root-to-leaf-path', 'call3-call-record-holds-no-gates', 'loom9-metadata-matches-reported-usage', 'circle5-failure-then-recovery'] });
      const ran = suite.cases.map((c) => ({ id: c.id, status: c.status, failures: c.failures, invariants: c.invariants.filter((i) => i.status === 'fail') }));
      // Each draft runs the cases it has (0.2.0 leaves out what it dropped): the thread case always.
      expect(ran.map((c) => c.id)).toContain('thread-is-the-root-to-leaf-path');
      expect(ran.length).toBeGreaterThanOrEqual(3);
      expect(ran.filter((c) => c.status !== 'pass')).toEqual([]);
      const properties = await runProperties(factory, await describeAdapter(factory), { draft, runs: 5, filter: ['loom-records-every-turn'] });
      expect(properties.map((p) => ({ id: p.id, status: p.status, reason: p.reason }))).toEqual([{ id: 'loom-records-every-turn', status: 'pass', reason: undefined }]);
    }, hangBound(120_000));
  }
});

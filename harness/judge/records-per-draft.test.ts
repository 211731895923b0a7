/**
 * Gate call records per draft (issue 24): from 0.2.0 on each record is judged by that draft's contract
 * `{gate_name, arguments, result, is_error}` (CIRCLE-4 in both catalogs), and the case file's paths read it
 * through a view; a 0.1.0 loom is never held to the later contract, nor read through the view.
 */
import { describe, it, expect } from 'vitest';
import type { CantripSetup, Description, Host, Result } from '../../schemas/adapter.ts';
import type { Turn } from '../../schemas/records.ts';
import { Miniature } from '../../fixtures/miniatures/miniature.ts';
import { loadCaseText } from '../case-file/load.ts';
import { runCase } from '../run/run.ts';
import { viewedRecord, hasTextRecords } from './records-per-draft.ts';
import { rulesForProblem } from './schema-rules.ts';

// Echo then done; the expectations read the echo's record in the case file's one vocabulary.
const CASE = loadCaseText(`format_version: 1
spec_version: 0.1.0-draft
cases:
  - id: echo-record
    rules: [CIRCLE-4]
    level: MUST
    description: echo then done, the echo's record read by path
    setup: { crystal: parent, call: { system_prompt: "S" }, circle: { medium: conversation, gates: [done, echo], wards: { max_turns: 3 } } }
    crystals:
      parent: { script: [{ tool_calls: [{ gate: echo, args: { text: a } }] }, { tool_calls: [{ gate: done, args: { answer: 1 } }] }] }
    act: [{ cast: { intent: go, as: first } }]
    expect:
      - { path: "loom.cast(first)[0].gate_calls[0].gate", equals: echo }
      - { path: "loom.cast(first)[0].gate_calls[0].ok", equals: true }
      - { path: "loom.cast(first)[0].gate_calls[0].result", seen_as: a }
`).cases[0]!;

type Shape = 'seed' | 'text';

/** The seed record rewritten into the 0.2.0+ text shape, plus a medium field of its own. */
function asText(record: Record<string, unknown>): Record<string, unknown> {
  if ('gate_name' in record) return record;
  const ok = record.ok === true;
  const error = record.error as { message?: string } | undefined;
  return { gate_name: record.gate, arguments: JSON.stringify(record.arguments ?? {}), result: ok ? JSON.stringify(record.result ?? '') : (error?.message ?? ''), is_error: !ok, stdout: '' };
}

/** A miniature that declares `drafts` and keeps its loom's records in the given shape (text records are its own from 0.2.0). */
class Drafted extends Miniature {
  constructor(private readonly drafts: string[], private readonly shape: Shape) {
    super();
  }
  override async describe(): Promise<Description> {
    return { ...(await super.describe()), drafts: this.drafts };
  }
  /** The miniature keeps each draft's own records; a 'seed' loom keeps the 0.1.0 record at every draft. */
  override async construct(setup: CantripSetup, host: Host): Promise<Result<{ cantrip: string }>> {
    const { draft: _judged, ...seed } = setup;
    return super.construct(this.shape === 'seed' ? seed : setup, host);
  }
  override async loom(): Promise<Result<{ turns: Turn[] }>> {
    const result = await super.loom();
    if (!result.ok || this.shape === 'seed') return result;
    const turns = result.value.turns.map((t) => ({ ...t, gate_calls: t.gate_calls.map((r) => asText(r as unknown as Record<string, unknown>)) })) as unknown as Turn[];
    return { ok: true, value: { turns } };
  }
}

async function run(drafts: string[], shape: Shape) {
  const adapter = new Drafted(drafts, shape);
  const result = await runCase(CASE, () => new Drafted(drafts, shape), await adapter.describe());
  if (result.status === 'errored' || result.status === 'skipped') throw new Error(`${result.status}: ${result.reason}`);
  const invariant = (id: string) => result.invariants.find((i) => i.id === id);
  return { result, contract: invariant('gate-record-contract'), turnSchema: invariant('turn-schema') };
}

describe('gate call records per draft', () => {
  it('hasTextRecords: 0.2.0 and 0.3.1, not 0.1.0 nor an unknown version', () => {
    expect(['0.1.0', '0.2.0', '0.3.1', '9.9.9', undefined].map(hasTextRecords)).toEqual([false, true, true, false, false]);
  });

  it('a 0.2.0 loom with the seed shape fails the 0.2.0 contract, under CIRCLE-4', async () => {
    const { contract, turnSchema, result } = await run(['0.1.0', '0.2.0'], 'seed');
    expect(contract?.status).toBe('fail');
    expect(contract?.rules).toEqual(['CIRCLE-4']);
    expect(contract?.cause?.split('\n')).toEqual(['gate-call-record-text:/arguments [type]', 'gate-call-record-text:/gate_name [required]', 'gate-call-record-text:/is_error [required]']);
    // The seed shape inside the turn schema is not applied to a later draft's records.
    expect(turnSchema?.status).toBe('pass');
  });

  it('a 0.2.0 loom with text records passes the contract, and the paths read them through the view', async () => {
    const { contract, turnSchema, result } = await run(['0.1.0', '0.2.0'], 'text');
    expect(contract?.status).toBe('pass');
    expect(turnSchema?.status).toBe('pass');
    expect(result.failures).toEqual([]);
    expect(result.status).toBe('pass');
  });

  it('at 0.3.1 too', async () => {
    const text = await run(['0.1.0', '0.2.0', '0.3.1'], 'text');
    expect([text.contract?.status, text.result.status]).toEqual(['pass', 'pass']);
    const seed = await run(['0.1.0', '0.2.0', '0.3.1'], 'seed');
    expect(seed.contract?.status).toBe('fail');
  });

  it('a 0.1.0 loom with the text shape is not judged by the 0.2.0 contract, nor read through the view', async () => {
    const { contract, result } = await run(['0.1.0'], 'text');
    expect(contract?.status).toBe('skipped');
    // No view at 0.1.0: `.gate` and `.ok` find nothing in a text record, so those expectations fail.
    expect(result.failures.map((f) => f.path)).toEqual(['loom.cast(first)[0].gate_calls[0].gate', 'loom.cast(first)[0].gate_calls[0].ok']);
  });

  it('a 0.1.0 loom with the seed shape: contract skipped, the case passes as before', async () => {
    const { contract, result } = await run(['0.1.0'], 'seed');
    expect([contract?.status, result.status]).toEqual(['skipped', 'pass']);
  });

  it('the view maps gate_name, is_error, result and arguments; keeps medium fields; leaves other records alone', () => {
    expect(viewedRecord({ gate_name: 'read', arguments: '{"path":"b"}', result: 'ENOENT', is_error: true, stdout: 'x' })).toEqual({ gate: 'read', arguments: { path: 'b' }, ok: false, error: { message: 'ENOENT' }, stdout: 'x' });
    expect(viewedRecord({ gate_name: 'echo', arguments: 'not json', result: '7', is_error: false })).toEqual({ gate: 'echo', arguments: 'not json', ok: true, result: 7 });
    expect(viewedRecord({ gate_name: 'echo', arguments: '{}', result: '"a"', is_error: false })).toEqual({ gate: 'echo', arguments: {}, ok: true, result: 'a' });
    expect(viewedRecord({ gate_name: 'echo', arguments: '{}', result: '"0"', is_error: false })).toEqual({ gate: 'echo', arguments: {}, ok: true, result: '0' });
    expect(viewedRecord({ gate_name: 'echo', arguments: '{}', result: 'plain words', is_error: false })).toEqual({ gate: 'echo', arguments: {}, ok: true, result: 'plain words' });
    const seed = { gate: 'echo', ok: true, result: 7 };
    expect(viewedRecord(seed)).toBe(seed);
    // A record missing is_error is a contract breach: the view does not make it look like a success.
    expect(viewedRecord({ gate_name: 'echo', arguments: '{}', result: '7' })).toEqual({ gate_name: 'echo', arguments: '{}', result: '7' });
  });

  it('every problem of a text record is attributed to CIRCLE-4 in §4.3', () => {
    expect(rulesForProblem('gate-call-record-text', { pointer: '/is_error', keyword: 'type' })).toEqual({ rules: ['CIRCLE-4'], section: '§4.3' });
    expect(rulesForProblem('gate-call-record-text', { pointer: '/gate_name', keyword: 'required' })).toEqual({ rules: ['CIRCLE-4'], section: '§4.3' });
  });
});

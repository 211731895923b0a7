/**
 * A crystal step's `snapshot_loom` (feature loom-during-cast, LOOM-1): the harness reads the loom while
 * the cast waits on that query, and only then serves the reply. The fake implementation here records a
 * turn the moment a reply reaches it and answers `loom()` a little later than it is asked, so a harness
 * that served the reply first, or served it without waiting for the read, would see the third turn too.
 */
import { describe, expect, it } from 'vitest';
import type { Adapter, CastOutcome, Description, Host, Result } from '../../schemas/adapter.ts';
import type { Turn } from '../../schemas/records.ts';
import { loadCaseText } from '../case-file/load.ts';
import { runCase } from '../run/run.ts';
import { driveCase } from './drive.ts';

const DESCRIPTION: Description = { name: 'mid-cast-fake', version: '0', spec_version: '0.1.0-draft', protocol_version: 1, features: ['loom-during-cast'] };

const CASE = `format_version: 1
spec_version: 0.1.0-draft
cases:
  - id: snapshot-at-the-third-query
    rules: [LOOM-1]
    level: MUST
    description: d
    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done], wards: { max_turns: 3 } } }
    crystals:
      parent:
        script:
          - { content: one }
          - { content: two }
          - { content: three, snapshot_loom: mid }
    act:
      - cast: { intent: "Three queries", as: first }
    expect:
      - { path: "snapshots.mid[role=crystal][1].id", same_as: "loom.cast(first)[1].id" }
`;

// The loom's root, the call (CALL-4); each crystal turn keeps the reply it recorded (a turn that keeps nothing would be one that did not happen, LOOM-7).
const CALL_TURN: Turn = {
  id: 't0', parent_id: null, cantrip_id: 'c1', entity_id: 'e1', role: 'call', sequence: 0, utterance: '', observation: '', gate_calls: [], call: { system_prompt: 'p', hyperparameters: {} },
  metadata: { tokens_prompt: 0, tokens_completion: 0, tokens_cached: 0, duration_ms: 0, timestamp: '2026-01-01T00:00:00Z' }, reward: null, terminated: false, truncated: false,
};
const turn = (n: number): Turn => ({
  id: `t${n}`, parent_id: `t${n - 1}`, cantrip_id: 'c1', entity_id: 'e1', role: 'crystal', sequence: n, utterance: ['one', 'two', 'three'][n - 1]!, observation: '', gate_calls: [],
  metadata: { tokens_prompt: 1, tokens_completion: 1, tokens_cached: 0, duration_ms: 0, timestamp: '2026-01-01T00:00:00Z' }, reward: null, terminated: n === 3, truncated: false,
});

const refused = <T>(): Promise<Result<T>> => Promise.resolve({ ok: false, error: { message: 'not offered' } });

/**
 * Three queries per cast, each reply recorded as a turn at once. `loomMidCast` says how `loom()` answers
 * while the cast runs: with the turns it holds when it answers (20 ms after being asked), with a refusal,
 * or never; after the cast it always answers. `log` keeps the order of what happened.
 */
function fakeImplementation(loomMidCast: 'answers' | 'refuses' | 'never', log: string[] = []): Adapter {
  const turns: Turn[] = [structuredClone(CALL_TURN)];
  let host: Host | undefined;
  let running = false;
  return {
    describe: async () => DESCRIPTION,
    construct: async (_setup, h) => {
      host = h;
      return { ok: true, value: { cantrip: 'c1' } };
    },
    cast: async (_cantrip, intent): Promise<Result<CastOutcome>> => {
      running = true;
      for (let n = 1; n <= 3; n++) {
        await host!.queryCrystal('parent', { messages: [{ role: 'system', content: 'p' }, { role: 'user', content: intent ?? '' }] });
        log.push(`reply ${n} received`);
        turns.push(turn(n));
      }
      running = false;
      return { ok: true, value: { entity_id: 'e1', status: 'terminated', result: 'three', usage: { prompt: 3, completion: 3, cached: 0 } } };
    },
    loom: async () => {
      if (!running) return { ok: true, value: { turns: structuredClone(turns) } };
      log.push('loom asked');
      if (loomMidCast === 'never') return new Promise<never>(() => undefined);
      if (loomMidCast === 'refuses') return { ok: false, error: { message: 'busy' } };
      await new Promise((resolve) => setTimeout(resolve, 20));
      log.push(`loom answered with ${turns.filter((t) => t.role === 'crystal').length} turns`);
      return { ok: true, value: { turns: structuredClone(turns) } };
    },
    invoke: refused,
    send: refused,
    fork: refused,
    thread: refused,
    mutate: refused,
    dispose: async () => undefined,
  };
}

describe('snapshot_loom on a crystal step (feature loom-during-cast, LOOM-1)', () => {
  const c = loadCaseText(CASE).cases[0]!;

  it('reads the loom before the reply to that query is served: the snapshot holds the two earlier turns and not the third', async () => {
    const log: string[] = [];
    const drive = await driveCase(c, fakeImplementation('answers', log), DESCRIPTION);
    expect(drive.faults).toEqual([]);
    expect(drive.record.snapshots.mid?.filter((t) => t.role === 'crystal').map((t) => t.id)).toEqual(['t1', 't2']);
    expect(log).toEqual(['reply 1 received', 'reply 2 received', 'loom asked', 'loom answered with 2 turns', 'reply 3 received']);
    // After the cast the loom has all three: the snapshot was taken mid-cast, not copied from the end.
    expect(drive.record.loom.turns.filter((t) => t.role === 'crystal').map((t) => t.id)).toEqual(['t1', 't2', 't3']);
  });

  it('the case passes on LOOM-1 when the earlier turns were there mid-cast', async () => {
    const result = await runCase(c, () => fakeImplementation('answers'), DESCRIPTION);
    expect(result.status).toBe('pass');
    expect(result.expectations).toBe(1);
  });

  it('a mid-cast read the implementation refuses leaves the case errored, not failed on LOOM-1, and the query is still answered', async () => {
    const log: string[] = [];
    const result = await runCase(c, () => fakeImplementation('refuses', log), DESCRIPTION);
    expect(result.status).toBe('errored');
    expect(result.failed_rules).toEqual([]);
    expect(log).toContain('reply 3 received');
  });

  it('a mid-cast read that is never answered is given up after the bound: errored, not failed, and the cast goes on', async () => {
    const log: string[] = [];
    const result = await runCase(c, () => fakeImplementation('never', log), DESCRIPTION, 30_000);
    expect(result.status).toBe('errored');
    expect(result.timed_out).toBeUndefined();
    expect(result.failed_rules).toEqual([]);
    expect(log.at(-1)).toBe('reply 3 received');
  });
});

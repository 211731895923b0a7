import { describe, it, expect, vi } from 'vitest';
import fc from 'fast-check';
import type { LoomLine, Turn } from '../../schemas/records.ts';
import { CantripError } from '../errors.ts';
import { LoomLoadError } from './load-error.ts';
import { Loom } from './loom.ts';
import { MemoryStorage } from './memory-storage.ts';
import { validate } from '../../schemas/loader.ts';
import { readJsonl } from './jsonl-reader.ts';
import { sampleCallTurn, sampleCrystalTurn } from './sample-turns.ts';
import type { LoomLoad, LoomStorage } from './storage.ts';
import { newTurnId, usageMetadata } from './turn.ts';

/** The code of the CantripError `fn` throws; undefined when it does not throw. */
function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof CantripError) return error.code;
    throw error;
  }
  return undefined;
}

function ids(turns: readonly Turn[]): string[] {
  return turns.map((turn) => turn.id);
}

/** A storage that records lines and can be told to fail the next write. */
class FlakyStorage implements LoomStorage {
  readonly lines: LoomLine[] = [];
  failNext = false;
  append(line: LoomLine): void {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('disk full');
    }
    this.lines.push(line);
  }
  load(): LoomLoad {
    return { lines: [...this.lines] };
  }
}

/**
 * call ─ a1 ─ a2 ─┬─ child_call ─ c1 ─ c2 (done)      child cantrip spawned by a2 (COMP-5)
 *      │         └─ a3 ─ a4 (done)                    parent continues from a2
 *      │    └─ b2 ─ b3 (truncated)                    fork from a1 (LOOM-4)
 *      └─ d1 (done)                                   a second cast of the same cantrip
 */
function buildTree(loom: Loom): void {
  loom.append(sampleCallTurn('call'));
  loom.append(sampleCrystalTurn('a1', 'call', { intent: 'fix the bug' }));
  loom.append(sampleCrystalTurn('a2', 'a1', { sequence: 2 }));
  loom.append(sampleCallTurn('child_call', 'a2', 'cantrip_child'));
  loom.append(sampleCrystalTurn('c1', 'child_call', { cantrip_id: 'cantrip_child', entity_id: 'entity_child' }));
  loom.append(sampleCrystalTurn('c2', 'c1', { cantrip_id: 'cantrip_child', entity_id: 'entity_child', sequence: 2, terminated: true }));
  loom.append(sampleCrystalTurn('a3', 'a2', { sequence: 3 }));
  loom.append(sampleCrystalTurn('a4', 'a3', { sequence: 4, terminated: true, result: 'fixed' }));
  loom.append(sampleCrystalTurn('b2', 'a1', { entity_id: 'entity_fork', sequence: 2, fork: { from_turn_id: 'a1', strategy: 'replay' } }));
  loom.append(sampleCrystalTurn('b3', 'b2', { entity_id: 'entity_fork', sequence: 3, truncated: true, truncation_cause: 'max_turns' }));
  loom.append(sampleCrystalTurn('d1', 'call', { entity_id: 'entity_2', intent: 'another task', terminated: true }));
}

describe('Loom: append (LOOM-1, LOOM-2)', () => {
  it('LOOM-1: a returned turn is already in storage', () => {
    const storage = new MemoryStorage();
    const loom = new Loom(storage);
    loom.append(sampleCallTurn('call'));
    loom.append(sampleCrystalTurn('t1', 'call'));
    const stored = storage.load().lines.map((line) => (line.kind === 'turn' ? line.turn.id : 'reward'));
    expect(stored).toEqual(['call', 't1']);
  });

  it('LOOM-1: a failed storage write leaves the turn unindexed, and the loom usable', () => {
    const storage = new FlakyStorage();
    const loom = new Loom(storage);
    loom.append(sampleCallTurn('call'));
    storage.failNext = true;
    expect(() => loom.append(sampleCrystalTurn('t1', 'call'))).toThrow(Error);
    expect(loom.has('t1')).toBe(false);
    expect(loom.size).toBe(1);
    loom.append(sampleCrystalTurn('t1', 'call'));
    expect(ids(loom.turns())).toEqual(['call', 't1']);
  });

  it('LOOM-2: a duplicate id is refused with loom_append_only and nothing is written', () => {
    const storage = new MemoryStorage();
    const loom = new Loom(storage);
    loom.append(sampleCallTurn('call'));
    loom.append(sampleCrystalTurn('t1', 'call', { utterance: 'first' }));
    expect(codeOf(() => loom.append(sampleCrystalTurn('t1', 'call', { utterance: 'second' })))).toBe('loom_append_only');
    expect(loom.get('t1').utterance).toBe('first');
    expect(storage.load().lines).toHaveLength(2);
  });

  it('LOOM-2: a parent that is not stored is refused with unknown_turn', () => {
    const loom = new Loom();
    loom.append(sampleCallTurn('call'));
    expect(codeOf(() => loom.append(sampleCrystalTurn('t1', 'nowhere')))).toBe('unknown_turn');
    expect(loom.has('t1')).toBe(false);
  });

  it('LOOM-2: a turn with a null parent is a root', () => {
    const loom = new Loom();
    loom.append(sampleCallTurn('call_a'));
    loom.append(sampleCallTurn('call_b'));
    loom.append(sampleCrystalTurn('t1', 'call_a'));
    expect(ids(loom.roots())).toEqual(['call_a', 'call_b']);
  });

  it('LOOM-2: a turn without a usable id is a TypeError', () => {
    const loom = new Loom();
    expect(() => loom.append({ ...sampleCallTurn('x'), id: '' })).toThrow(TypeError);
    expect(() => loom.append({ ...sampleCallTurn('x'), parent_id: 7 as unknown as string })).toThrow(TypeError);
    expect(loom.size).toBe(0);
  });

  it('LOOM-2: newTurnId gives distinct, prefixed ids', () => {
    const made = Array.from({ length: 1000 }, () => newTurnId());
    expect(new Set(made).size).toBe(1000);
    expect(made.every((id) => /^turn_[0-9a-f]{24}_[0-9a-z]+$/.test(id))).toBe(true);
  });

  it('LOOM-2: each load of the id module (each process) draws a new prefix, so looms shared between processes never see one id twice', async () => {
    const prefixOf = (id: string) => id.slice(0, id.lastIndexOf('_'));
    vi.resetModules();
    const first = (await import('./turn.ts')).newTurnId();
    vi.resetModules();
    const second = (await import('./turn.ts')).newTurnId();
    expect(first).not.toBe(second);
    expect(prefixOf(first)).not.toBe(prefixOf(second));
  });
});

describe('Loom: append-only (LOOM-3)', () => {
  it('LOOM-3: writing to a returned turn, or anything inside it, throws and changes nothing', () => {
    const loom = new Loom();
    loom.append(sampleCallTurn('call'));
    const turn = loom.append(sampleCrystalTurn('t1', 'call'));
    expect(() => {
      (turn as { utterance: string }).utterance = 'rewritten';
    }).toThrow(TypeError);
    expect(() => {
      (turn.metadata as { duration_ms: number }).duration_ms = 0;
    }).toThrow(TypeError);
    expect(() => {
      const first = turn.gate_calls[0] as { ok: boolean };
      first.ok = false;
    }).toThrow(TypeError);
    expect(() => turn.gate_calls.push(turn.gate_calls[0]!)).toThrow(TypeError);
    expect(() => {
      delete (turn as Partial<Turn>).observation;
    }).toThrow(TypeError);
    expect(loom.get('t1')).toEqual(sampleCrystalTurn('t1', 'call'));
  });

  it('LOOM-3: the caller editing its own object after append does not reach the stored turn', () => {
    const loom = new Loom();
    loom.append(sampleCallTurn('call'));
    const mine = sampleCrystalTurn('t1', 'call');
    loom.append(mine);
    mine.utterance = 'changed later';
    mine.gate_calls[0]!.result = 'changed later';
    expect(loom.get('t1').utterance).toBe(sampleCrystalTurn('t1', 'call').utterance);
    expect(loom.get('t1').gate_calls[0]!.result).toBe('hi');
    expect(Object.isFrozen(mine)).toBe(false);
  });

  it('LOOM-3: amend always refuses with loom_append_only; unknown ids with unknown_turn', () => {
    const loom = new Loom();
    loom.append(sampleCallTurn('call'));
    expect(codeOf(() => loom.amend('call', 'utterance', 'x'))).toBe('loom_append_only');
    expect(codeOf(() => loom.amend('call', 'reward', 1))).toBe('loom_append_only');
    expect(codeOf(() => loom.amend('ghost', 'utterance', 'x'))).toBe('unknown_turn');
    expect(loom.get('call').utterance).toBe('');
  });

  it('LOOM-3: a reward can be set, updated and cleared, each as a new reward line', () => {
    const storage = new MemoryStorage();
    const loom = new Loom(storage);
    loom.append(sampleCallTurn('call'));
    loom.append(sampleCrystalTurn('t1', 'call'));
    expect(loom.annotateReward('t1', 0.5).reward).toBe(0.5);
    loom.annotateReward('t1', 1);
    expect(loom.get('t1').reward).toBe(1);
    expect(loom.turns()[1]!.reward).toBe(1);
    loom.annotateReward('t1', null);
    expect(loom.get('t1').reward).toBeNull();
    expect(storage.load().lines.filter((line) => line.kind === 'reward')).toHaveLength(3);
    expect(loom.get('t1').utterance).toBe(sampleCrystalTurn('t1', 'call').utterance);
  });

  it('LOOM-3: a reward for an unknown turn is unknown_turn; a non-finite reward is a TypeError', () => {
    const storage = new MemoryStorage();
    const loom = new Loom(storage);
    loom.append(sampleCallTurn('call'));
    expect(codeOf(() => loom.annotateReward('ghost', 1))).toBe('unknown_turn');
    expect(() => loom.annotateReward('call', Number.NaN)).toThrow(TypeError);
    expect(() => loom.annotateReward('call', '1' as unknown as number)).toThrow(TypeError);
    expect(storage.load().lines).toHaveLength(1);
  });

  it('LOOM-3: rewards survive reloading the same storage', () => {
    const storage = new MemoryStorage();
    const first = new Loom(storage);
    first.append(sampleCallTurn('call'));
    first.append(sampleCrystalTurn('t1', 'call'));
    first.annotateReward('t1', 0.25);
    first.annotateReward('call', -1);
    const second = new Loom(storage);
    expect(second.get('t1').reward).toBe(0.25);
    expect(second.get('call').reward).toBe(-1);
    expect(second.turns()).toEqual(first.turns());
  });

  it('LOOM-3: a loaded turn is frozen too', () => {
    const storage = new MemoryStorage();
    new Loom(storage).append(sampleCallTurn('call'));
    const reloaded = new Loom(storage).get('call');
    expect(() => {
      (reloaded as { utterance: string }).utterance = 'x';
    }).toThrow(TypeError);
  });

  it('LOOM-2: stored lines that break the tree are a LoomLoadError naming the line', () => {
    const duplicate = new MemoryStorage();
    duplicate.append({ kind: 'turn', turn: sampleCallTurn('call') });
    duplicate.append({ kind: 'turn', turn: sampleCallTurn('call') });
    expect(() => new Loom(duplicate)).toThrow(LoomLoadError);
    expect(() => new Loom(duplicate)).toThrow(expect.objectContaining({ location: 'memory', line: 2 }));

    const orphanReward = new MemoryStorage();
    orphanReward.append({ kind: 'reward', turn_id: 'ghost', reward: 1 });
    expect(() => new Loom(orphanReward)).toThrow(expect.objectContaining({ name: 'LoomLoadError', line: 1 }));

    const orphanTurn = new MemoryStorage();
    orphanTurn.append({ kind: 'turn', turn: sampleCallTurn('call') });
    orphanTurn.append({ kind: 'turn', turn: sampleCrystalTurn('t1', 'ghost') });
    expect(() => new Loom(orphanTurn)).toThrow(expect.objectContaining({ name: 'LoomLoadError', line: 2 }));
  });
});

describe('Loom: what a turn records (LOOM-7, LOOM-9)', () => {
  it('LOOM-7: terminated and truncated flags, and the truncation cause, are stored as given', () => {
    const loom = new Loom();
    buildTree(loom);
    const flags = (id: string): [boolean, boolean] => [loom.get(id).terminated, loom.get(id).truncated];
    expect(flags('a4')).toEqual([true, false]);
    expect(flags('b3')).toEqual([false, true]);
    expect(loom.get('b3').truncation_cause).toBe('max_turns');
    expect(flags('a2')).toEqual([false, false]);
    expect(loom.get('a4').result).toBe('fixed');
  });

  it('LOOM-9: usage and wall-clock duration are stored on the turn', () => {
    const loom = new Loom();
    loom.append(sampleCallTurn('call'));
    const metadata = usageMetadata({ prompt: 812, completion: 64, cached: 512 }, 1234, new Date('2025-02-03T04:05:06.007Z'));
    loom.append(sampleCrystalTurn('t1', 'call', { metadata }));
    expect(loom.get('t1').metadata).toEqual({
      tokens_prompt: 812,
      tokens_completion: 64,
      tokens_cached: 512,
      duration_ms: 1234,
      timestamp: '2025-02-03T04:05:06.007Z',
    });
  });
});

describe('Loom: threads (LOOM-10, CALL-4, COMP-5, LOOM-4)', () => {
  it('LOOM-10: threads() walks every root-to-leaf path of a tree with a fork and a child subtree', () => {
    const loom = new Loom();
    buildTree(loom);
    expect(loom.threads().map(ids)).toEqual([
      ['call', 'a1', 'a2', 'child_call', 'c1', 'c2'],
      ['call', 'a1', 'a2', 'a3', 'a4'],
      ['call', 'a1', 'b2', 'b3'],
      ['call', 'd1'],
    ]);
    expect(ids(loom.leaves())).toEqual(['c2', 'a4', 'b3', 'd1']);
  });

  it('CALL-4: every thread starts at the same call turn', () => {
    const loom = new Loom();
    buildTree(loom);
    for (const thread of loom.threads()) {
      expect(thread[0]!.id).toBe('call');
      expect(thread[0]!.role).toBe('call');
      expect(thread[0]!.entity_id).toBeNull();
      expect(thread[0]!.sequence).toBe(0);
    }
  });

  it('COMP-5: the child subtree hangs from the spawning turn, beside the parent continuation', () => {
    const loom = new Loom();
    buildTree(loom);
    expect(ids(loom.children('a2'))).toEqual(['child_call', 'a3']);
    expect(ids(loom.thread('a4'))).not.toContain('c1');
  });

  it('LOOM-10: thread() of a leaf is its path; of an inner turn a RangeError; of an unknown id unknown_turn', () => {
    const loom = new Loom();
    buildTree(loom);
    expect(ids(loom.thread('b3'))).toEqual(['call', 'a1', 'b2', 'b3']);
    expect(() => loom.thread('a2')).toThrow(RangeError);
    expect(codeOf(() => loom.thread('ghost'))).toBe('unknown_turn');
    expect(codeOf(() => loom.children('ghost'))).toBe('unknown_turn');
    expect(codeOf(() => loom.get('ghost'))).toBe('unknown_turn');
  });

  it('LOOM-4: pathTo gives the root-to-turn prefix of any turn, and forking leaves the original thread as it was', () => {
    const loom = new Loom();
    buildTree(loom);
    expect(ids(loom.pathTo('a2'))).toEqual(['call', 'a1', 'a2']);
    expect(ids(loom.pathTo('call'))).toEqual(['call']);
    const before = loom.thread('a4');
    loom.append(sampleCrystalTurn('e3', 'a2', { entity_id: 'entity_fork2', fork: { from_turn_id: 'a2', strategy: 'snapshot' } }));
    expect(loom.thread('a4')).toEqual(before);
    expect(ids(loom.thread('e3'))).toEqual(['call', 'a1', 'a2', 'e3']);
  });

  it('LOOM-10: exportThread gives one loom line per turn, root first, rewards applied, loadable as a loom', () => {
    const loom = new Loom();
    buildTree(loom);
    loom.annotateReward('a4', 1);
    const text = loom.exportThread('a4');
    expect(text.endsWith('\n')).toBe(true);
    const { lines, torn } = readJsonl(Buffer.from(text), 'export');
    expect(torn).toBeUndefined();
    expect(lines.map((line) => (line.kind === 'turn' ? line.turn.id : 'reward'))).toEqual(['call', 'a1', 'a2', 'a3', 'a4']);
    const storage = new MemoryStorage();
    for (const line of lines) storage.append(line);
    const copy = new Loom(storage);
    expect(copy.threads()).toEqual([loom.thread('a4')]);
    expect(copy.get('a4').reward).toBe(1);
  });

  it('LOOM-10: the redaction hook scrubs exports only and keeps the links', () => {
    const loom = new Loom(new MemoryStorage(), { redact: (text) => text.replaceAll(/sk-[a-z0-9]+/g, '[redacted]') });
    loom.append(sampleCallTurn('call'));
    loom.append(sampleCrystalTurn('sk-id1', 'call', { observation: 'key sk-abc123 found', gate_calls: [] }));
    const text = loom.exportThread('sk-id1');
    expect(text).not.toContain('sk-abc123');
    expect(text).toContain('key [redacted] found');
    expect(text).toContain('"id":"sk-id1"');
    expect(loom.get('sk-id1').observation).toBe('key sk-abc123 found');
  });

  it('LOOM-10: on any random tree, threads are exactly the root-to-leaf paths and cover every turn', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { minLength: 1, maxLength: 40 }), (picks) => {
        const loom = new Loom();
        // Turn i hangs from an earlier turn, or is a root when the pick lands past the end.
        picks.forEach((pick, i) => {
          const parent = pick % (i + 2) <= i - 1 ? `t${pick % (i + 2)}` : null;
          loom.append(parent === null ? sampleCallTurn(`t${i}`) : sampleCrystalTurn(`t${i}`, parent));
        });
        const threads = loom.threads();
        expect(threads).toHaveLength(loom.leaves().length);
        const covered = new Set<string>();
        for (const thread of threads) {
          expect(thread[0]!.parent_id).toBeNull();
          expect(loom.children(thread.at(-1)!.id)).toEqual([]);
          thread.forEach((turn, k) => {
            covered.add(turn.id);
            if (k > 0) expect(turn.parent_id).toBe(thread[k - 1]!.id);
          });
        }
        expect(covered.size).toBe(loom.size);
      }),
      { numRuns: 200 },
    );
  });
});

describe('Loom: records match the schemas (LOOM-2, LOOM-9)', () => {
  it('LOOM-2: every stored line, and every exported line, validates against loom-line.schema.json', () => {
    const storage = new MemoryStorage();
    const loom = new Loom(storage);
    buildTree(loom);
    loom.annotateReward('a4', 1);
    const exported = loom.threads().flatMap((thread) => readJsonl(Buffer.from(loom.exportThread(thread.at(-1)!.id)), 'export').lines);
    const lines = [...storage.load().lines, ...exported];
    expect(lines).toHaveLength(12 + 17);
    for (const line of lines) expect(validate('loom-line', line)).toEqual({ ok: true });
    // The schema is live: a turn without metadata is refused.
    const { metadata: _dropped, ...bare } = loom.get('a1');
    expect(validate('loom-line', { kind: 'turn', turn: bare }).ok).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { CallbackCrystal } from '../crystal/callback.ts';
import { gateCall } from '../crystal/scripted.ts';
import { Loom } from '../loom/loom.ts';
import { scriptedCantrip, usage } from '../testing/kit.ts';

describe('what the loop records in the loom (chapter 6)', () => {
  it('LOOM-1: each turn is in the loom before the crystal is queried for the next', async () => {
    const loom = new Loom();
    const seen: number[] = [];
    const crystal = new CallbackCrystal((_, index) => {
      seen.push(loom.turns().filter((turn) => turn.role === 'crystal').length);
      return index < 3 ? { content: null, tool_calls: [gateCall('echo', { text: String(index) })], usage: usage(1) } : { content: 'end', usage: usage(1) };
    });
    const { cantrip } = scriptedCantrip([], { loom, extra: { crystal } });
    await cantrip.cast('go');
    expect(seen).toEqual([0, 1, 2, 3]);
  });

  it('LOOM-2, LOOM-7, LOOM-9: ids unique, parents chain, only the last turn ends the cast, usage and duration recorded', async () => {
    const { cantrip } = scriptedCantrip([
      { tool_calls: [gateCall('echo', { text: 'a' })], usage: usage(10, 2, 1) },
      { tool_calls: [gateCall('done', { answer: 1 })], usage: usage(12, 3, 0) },
    ]);
    const result = await cantrip.cast('go');
    const turns = cantrip.loom.turns();
    expect(new Set(turns.map((turn) => turn.id)).size).toBe(turns.length);
    expect(turns[0]).toMatchObject({ role: 'call', parent_id: null });
    expect(result.turns[0]!.parent_id).toBe(turns[0]!.id);
    expect(result.turns[1]!.parent_id).toBe(result.turns[0]!.id);
    expect(result.turns.map((turn) => [turn.terminated, turn.truncated])).toEqual([
      [false, false],
      [true, false],
    ]);
    expect(result.turns[0]!.metadata).toMatchObject({ tokens_prompt: 10, tokens_completion: 2, tokens_cached: 1 });
    expect(result.turns[0]!.metadata.duration_ms).toBeGreaterThanOrEqual(0);
    expect(Date.parse(result.turns[0]!.metadata.timestamp)).not.toBeNaN();
  });

  it('LOOM-4: a fork starts from the path to turn N with the same context, and the original thread is untouched', async () => {
    const { crystal, cantrip } = scriptedCantrip([
      { tool_calls: [gateCall('echo', { text: 'one' })] },
      { tool_calls: [gateCall('echo', { text: 'two' })] },
      { tool_calls: [gateCall('done', { answer: 'original' })] },
      { tool_calls: [gateCall('done', { answer: 'forked' })] },
    ]);
    const original = await cantrip.cast('count');
    const before = JSON.stringify(cantrip.loom.turns());
    const forkPoint = original.turns[0]!;
    const forked = cantrip.fork(forkPoint.id);
    const result = await forked.resume();
    expect(result.result).toBe('forked');
    // The crystal saw, for the fork, exactly what it saw for the original's second turn.
    expect(crystal.requests[3]!.messages).toEqual(crystal.requests[1]!.messages);
    expect(result.turns[0]).toMatchObject({ parent_id: forkPoint.id, sequence: 2, fork: { from_turn_id: forkPoint.id, strategy: 'snapshot' } });
    expect(forked.id).not.toBe(original.entityId);
    // Nothing stored before the fork changed.
    expect(JSON.stringify(cantrip.loom.turns().slice(0, JSON.parse(before).length))).toBe(before);
  });

  it('LOOM-4: forking from an unknown turn is refused with unknown_turn', () => {
    const { cantrip } = scriptedCantrip([]);
    expect(() => cantrip.fork('turn_missing')).toThrow(expect.objectContaining({ code: 'unknown_turn' }));
  });

  it('LOOM-10: any root-to-leaf path can be extracted, including both branches after a fork', async () => {
    const { cantrip } = scriptedCantrip([{ tool_calls: [gateCall('echo', { text: 'a' })] }, { content: 'left' }, { content: 'right' }]);
    const original = await cantrip.cast('go');
    const forked = await cantrip.fork(original.turns[0]!.id).resume();
    const left = cantrip.loom.thread(original.turns.at(-1)!.id);
    const right = cantrip.loom.thread(forked.turns.at(-1)!.id);
    expect(left.map((turn) => turn.sequence)).toEqual([0, 1, 2]);
    expect(right.map((turn) => turn.sequence)).toEqual([0, 1, 2]);
    expect(left[1]!.id).toBe(right[1]!.id);
    expect(left[2]!.id).not.toBe(right[2]!.id);
  });
});

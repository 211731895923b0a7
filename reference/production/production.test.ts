import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../schemas/index.ts';
import { CrystalError } from '../crystal/crystal-error.ts';
import { gateCall } from '../crystal/scripted.ts';
import { scriptedCantrip, usage } from '../testing/kit.ts';
import { ScriptedCrystal } from '../crystal/scripted.ts';
import { withRetry } from './retry.ts';

const status = (code: number) => ({ throws: new CrystalError('crystal_error', `HTTP ${code}`, { status: code }) });

describe('production (chapter 7)', () => {
  it('PROD-2: 429 and 5xx are retried with backoff 1 s, 2 s, 4 s, and a retried query is one turn', async () => {
    const waits: number[] = [];
    const crystal = new ScriptedCrystal([status(429), status(503), status(500), { tool_calls: [gateCall('done', { answer: 'ok' })] }]);
    const { cantrip } = scriptedCantrip([], { crystal: withRetry(crystal, { sleep: async (ms) => void waits.push(ms) }) });
    const result = await cantrip.cast('go');
    expect(waits).toEqual([1000, 2000, 4000]);
    expect(crystal.requests).toHaveLength(4);
    expect(result).toMatchObject({ status: 'terminated', result: 'ok' });
    expect(result.turns).toHaveLength(1);
  });

  it('PROD-2: after three retries the failure ends the cast with crystal_error', async () => {
    const waits: number[] = [];
    const crystal = new ScriptedCrystal([status(500), status(500), status(500), status(500), { content: 'never reached' }]);
    const { cantrip } = scriptedCantrip([], { crystal: withRetry(crystal, { sleep: async (ms) => void waits.push(ms) }) });
    const result = await cantrip.cast('go');
    expect(crystal.requests).toHaveLength(4);
    expect(waits).toHaveLength(3);
    expect(result).toMatchObject({ status: 'truncated', truncationCause: 'crystal_error', error: { code: 'crystal_error' } });
  });

  it('PROD-2: other client errors are never retried', async () => {
    for (const code of [400, 401, 403, 404, 422]) {
      const waits: number[] = [];
      const crystal = withRetry(new ScriptedCrystal([status(code), { content: 'second' }]), { sleep: async (ms) => void waits.push(ms) });
      await expect(crystal.query({ messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ status: code });
      expect(waits).toEqual([]);
    }
  });

  it('PROD-3: usage is recorded per turn and summed per entity across casts', async () => {
    const { cantrip } = scriptedCantrip([
      { tool_calls: [gateCall('echo', { text: 'a' })], usage: usage(100, 10, 40) },
      { tool_calls: [gateCall('done', { answer: 1 })], usage: usage(150, 5, 100) },
      { content: 'second cast', usage: usage(200, 7, 0) },
    ]);
    const entity = cantrip.invoke();
    const first = await entity.cast('one');
    expect(first.turns.map((turn) => [turn.metadata.tokens_prompt, turn.metadata.tokens_completion, turn.metadata.tokens_cached])).toEqual([
      [100, 10, 40],
      [150, 5, 100],
    ]);
    expect(first.usage).toEqual({ prompt: 250, completion: 15, cached: 140 });
    const second = await entity.cast('two');
    expect(second.usage).toEqual({ prompt: 450, completion: 22, cached: 140 });
  });

  it('streaming: events report text, gate calls, results, usage and turn ends, and a throwing listener changes nothing', async () => {
    const events: StreamEvent[] = [];
    const { cantrip } = scriptedCantrip([{ content: 'looking', tool_calls: [gateCall('echo', { text: 'a' })], usage: usage(3, 1) }, { content: 'bye' }], {
      extra: {
        onEvent: (event) => {
          events.push(event);
          throw new Error('a broken listener');
        },
      },
    });
    const result = await cantrip.cast('go');
    expect(result.status).toBe('terminated');
    expect(events.map((event) => event.type)).toEqual(['text', 'gate_call', 'gate_result', 'usage', 'turn_end', 'text', 'usage', 'turn_end']);
  });
});

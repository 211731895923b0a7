import { describe, expect, it } from 'vitest';
import { gateCall } from '../crystal/scripted.ts';
import { scriptedCantrip } from '../testing/kit.ts';
import { callMessages, createCall } from './call.ts';

describe('the call (chapter 3)', () => {
  it('CALL-1: a call cannot be changed after construction, not even its hyperparameters', () => {
    const call = createCall({ systemPrompt: 'fixed', hyperparameters: { temperature: 0.1, stop: ['x'] } });
    expect(() => {
      (call as { systemPrompt: string }).systemPrompt = 'changed';
    }).toThrow(TypeError);
    expect(() => {
      (call.hyperparameters as Record<string, unknown>).temperature = 1;
    }).toThrow(TypeError);
    expect(() => {
      (call.hyperparameters.stop as string[]).push('y');
    }).toThrow(TypeError);
    expect(call.systemPrompt).toBe('fixed');
  });

  it('CALL-1: changing the options object after construction does not reach the call', () => {
    const hyperparameters = { temperature: 0.1 };
    const call = createCall({ systemPrompt: 'fixed', hyperparameters });
    hyperparameters.temperature = 0.9;
    expect(call.hyperparameters.temperature).toBe(0.1);
  });

  it('CALL-2: the system prompt leads every query unchanged and hyperparameters pass through', async () => {
    const { crystal, cantrip } = scriptedCantrip(
      [{ tool_calls: [gateCall('echo', { text: 'a' })] }, { tool_calls: [gateCall('done', { answer: 1 })] }],
      { systemPrompt: 'You are exact.' },
    );
    await cantrip.cast('go');
    expect(crystal.requests).toHaveLength(2);
    for (const request of crystal.requests) {
      expect(request.messages[0]).toEqual({ role: 'system', content: 'You are exact.' });
      expect(request.messages.filter((message) => message.role === 'system')).toHaveLength(1);
      expect(request.hyperparameters).toEqual({ temperature: 0.2 });
    }
  });

  it('CALL-3: a call refuses gate definitions; the tools the crystal sees come from the circle', async () => {
    expect(() => createCall({ systemPrompt: 'x', tools: [] } as never)).toThrow(expect.objectContaining({ code: 'missing_call' }));
    const { crystal, cantrip } = scriptedCantrip([{ tool_calls: [gateCall('done', { answer: 1 })] }]);
    await cantrip.cast('go');
    expect(crystal.requests[0]!.tools!.map((tool) => tool.name).sort()).toEqual(['done', 'echo', 'fail']);
    expect(JSON.stringify(callMessages(cantrip.call))).not.toContain('echo');
  });

  it('CALL-4: the call is the root of every thread of the cantrip, shared by all its casts', async () => {
    const { cantrip } = scriptedCantrip([{ content: 'one' }, { content: 'two' }]);
    const first = await cantrip.cast('a');
    const second = await cantrip.cast('b');
    const root = (turnId: string) => cantrip.loom.thread(turnId)[0]!;
    expect(root(first.turns[0]!.id)).toMatchObject({ role: 'call', parent_id: null, call: { system_prompt: 'You are a careful assistant.' } });
    expect(root(second.turns[0]!.id).id).toBe(root(first.turns[0]!.id).id);
  });
});

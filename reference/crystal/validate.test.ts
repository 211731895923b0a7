import { describe, expect, it } from 'vitest';
import { validateResponse } from './validate.ts';
import { gateCall, ScriptedCrystal } from './scripted.ts';
import { scriptedCantrip } from '../testing/kit.ts';

const usage = { prompt: 1, completion: 1, cached: 0 };

describe('the crystal contract (chapter 2)', () => {
  it('CRYSTAL-3: a response with neither content nor tool calls is refused with invalid_crystal_response', () => {
    for (const response of [{ content: null, usage }, { content: '', tool_calls: [], usage }, {}, null, 'text']) {
      expect(() => validateResponse(response)).toThrow(expect.objectContaining({ code: 'invalid_crystal_response' }));
    }
    expect(validateResponse({ content: 'hi', usage }).content).toBe('hi');
    expect(validateResponse({ content: null, tool_calls: [gateCall('done', {})], usage }).tool_calls).toHaveLength(1);
  });

  it('CRYSTAL-4: tool calls need a unique id, a gate name and JSON-object arguments', () => {
    const call = (fields: object) => ({ content: null, tool_calls: [{ id: 'a', gate: 'echo', arguments: '{}', ...fields }], usage });
    expect(() => validateResponse(call({ id: '' }))).toThrow(expect.objectContaining({ code: 'invalid_tool_call' }));
    expect(() => validateResponse(call({ gate: '' }))).toThrow(expect.objectContaining({ code: 'invalid_tool_call' }));
    expect(() => validateResponse(call({ arguments: '{not json' }))).toThrow(expect.objectContaining({ code: 'invalid_tool_call' }));
    expect(() => validateResponse(call({ arguments: { text: 1 } }))).toThrow(expect.objectContaining({ code: 'invalid_tool_call' }));
    expect(() => validateResponse(call({ arguments: '[1]' }))).toThrow(expect.objectContaining({ code: 'invalid_tool_call' }));
    const twice = { content: null, tool_calls: [{ id: 'x', gate: 'a', arguments: '{}' }, { id: 'x', gate: 'b', arguments: '{}' }], usage };
    expect(() => validateResponse(twice)).toThrow(expect.objectContaining({ code: 'duplicate_tool_call_id' }));
  });

  it('CRYSTAL-3: the loop ends a cast on an invalid response, recording why, instead of acting on it', async () => {
    const { cantrip } = scriptedCantrip([{ content: null }]);
    const result = await cantrip.cast('x');
    expect(result).toMatchObject({ status: 'truncated', truncationCause: 'crystal_error', error: { code: 'invalid_crystal_response' } });
    expect(cantrip.loom.turns().filter((turn) => turn.role === 'crystal')).toHaveLength(1);
  });

  it('CRYSTAL-1: the scripted crystal keeps no conversation state; everything it sees is in the request', async () => {
    const crystal = new ScriptedCrystal([{ content: 'a' }, { content: 'b' }]);
    await crystal.query({ messages: [{ role: 'user', content: 'one' }] });
    await crystal.query({ messages: [{ role: 'user', content: 'two' }] });
    expect(crystal.requests[1]!.messages).toEqual([{ role: 'user', content: 'two' }]);
  });

  it('CRYSTAL-1: the loop re-sends the whole context on every query, relying on no memory in the crystal', async () => {
    const { crystal, cantrip } = scriptedCantrip([{ tool_calls: [gateCall('echo', { text: 'seen' })] }, { tool_calls: [gateCall('done', { answer: 1 })] }]);
    await cantrip.cast('go');
    expect(crystal.requests[1]!.messages.slice(0, 2)).toEqual(crystal.requests[0]!.messages);
    expect(JSON.stringify(crystal.requests[1]!.messages)).toContain('seen');
  });
});

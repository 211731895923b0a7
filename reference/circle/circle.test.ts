import { describe, expect, it } from 'vitest';
import { gateCall } from '../crystal/scripted.ts';
import { echoGate, failGate, scriptedCantrip, usage } from '../testing/kit.ts';
import { createCircle } from './circle.ts';
import { doneGate } from './done.ts';
import { defineGate } from './gate.ts';
import { composeWards } from './wards.ts';

describe('the circle (chapter 4)', () => {
  it('CIRCLE-11, CALL-3: every query carries the circle gates as tools', async () => {
    const { crystal, cantrip } = scriptedCantrip([{ tool_calls: [gateCall('echo', { text: 'a' })] }, { tool_calls: [gateCall('done', { answer: 1 })] }]);
    await cantrip.cast('go');
    for (const request of crystal.requests) {
      expect(request.tools!.map((tool) => tool.name)).toEqual(['done', 'echo', 'fail']);
      expect(request.tools!.find((tool) => tool.name === 'done')!.parameters).toMatchObject({ required: ['answer'] });
    }
  });

  it('CIRCLE-3, CIRCLE-4: a slow asynchronous gate has finished and its result is in the context before the next query', async () => {
    const slow = defineGate({ name: 'slow', description: 'slow', parameters: { type: 'object' } }, async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { rows: 3 };
    });
    const { crystal, cantrip } = scriptedCantrip([{ tool_calls: [gateCall('slow', {}, 'call_slow')] }, { tool_calls: [gateCall('done', { answer: 1 })] }], {
      gates: [doneGate(), slow],
    });
    await cantrip.cast('go');
    expect(crystal.requests[1]!.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_slow', content: '{"rows":3}' });
  });

  it('CIRCLE-5: a failing gate becomes an error record the entity sees, and the loop goes on', async () => {
    const { crystal, cantrip } = scriptedCantrip([{ tool_calls: [gateCall('fail', {}, 'call_fail')] }, { tool_calls: [gateCall('done', { answer: 'recovered' })] }]);
    const result = await cantrip.cast('go');
    expect(result.turns[0]!.gate_calls[0]).toMatchObject({ tool_call_id: 'call_fail', gate: 'fail', ok: false, error: { name: 'DiskFull' } });
    expect(crystal.requests[1]!.messages.at(-1)!.content).toContain('DiskFull');
    expect(result).toMatchObject({ status: 'terminated', result: 'recovered' });
  });

  it('CIRCLE-6: a gate removed by a ward cannot be called; the attempt is refused with gate_unavailable', async () => {
    const { crystal, cantrip } = scriptedCantrip([{ tool_calls: [gateCall('echo', { text: 'x' })] }, { tool_calls: [gateCall('done', { answer: 1 })] }], {
      wards: { maxTurns: 5, removeGates: ['echo'] },
    });
    const result = await cantrip.cast('go');
    expect(crystal.requests[0]!.tools!.map((tool) => tool.name)).not.toContain('echo');
    expect(result.turns[0]!.gate_calls[0]).toMatchObject({ ok: false, error: { code: 'gate_unavailable' } });
  });

  it('CIRCLE-6: the turn cap holds whatever the crystal asks for', async () => {
    const forever = Array.from({ length: 20 }, () => ({ tool_calls: [gateCall('echo', { text: 'again' })] }));
    const { crystal, cantrip } = scriptedCantrip(forever, { wards: { maxTurns: 4 } });
    await cantrip.cast('go');
    expect(crystal.requests).toHaveLength(4);
  });

  it('CIRCLE-6: a token budget truncates once the entity has used it', async () => {
    const step = { tool_calls: [gateCall('echo', { text: 'x' })], usage: usage(60, 10) };
    const { cantrip } = scriptedCantrip([step, step, step, step], { wards: { maxTurns: 10, maxTokens: 100 } });
    const result = await cantrip.cast('go');
    expect(result).toMatchObject({ status: 'truncated', truncationCause: 'max_tokens' });
    expect(result.turns).toHaveLength(2);
  });

  it('CIRCLE-7: several calls in one utterance run in order and form one observation', async () => {
    const order: string[] = [];
    const log = (name: string, delay: number) =>
      defineGate({ name, description: name, parameters: { type: 'object' } }, async () => {
        await new Promise((resolve) => setTimeout(resolve, delay));
        order.push(name);
        return name;
      });
    const { cantrip } = scriptedCantrip(
      [{ tool_calls: [gateCall('slow', {}, 'c1'), gateCall('fast', {}, 'c2'), gateCall('done', { answer: 1 }, 'c3')] }],
      { gates: [doneGate(), log('slow', 15), log('fast', 0)] },
    );
    const result = await cantrip.cast('go');
    expect(order).toEqual(['slow', 'fast']);
    expect(result.turns).toHaveLength(1);
    expect(result.turns[0]!.gate_calls.map((call) => call.tool_call_id)).toEqual(['c1', 'c2', 'c3']);
    expect(result.turns[0]!.observation.split('\n')).toEqual(['"slow"', '"fast"', '1']);
  });

  it('CIRCLE-8: done takes the answer as its argument', async () => {
    const { cantrip } = scriptedCantrip([{ tool_calls: [gateCall('done', { answer: { total: 1547 } })] }]);
    expect((await cantrip.cast('go')).result).toEqual({ total: 1547 });
    expect(doneGate().definition.parameters).toMatchObject({ required: ['answer'] });
  });

  it('CIRCLE-10: gate dependencies are bound at construction; the entity only supplies arguments', async () => {
    const root = { path: '/data' };
    const read = defineGate({ name: 'where', description: 'root', parameters: { type: 'object' } }, async (args) => `${root.path}/${String(args.file)}`);
    const { cantrip } = scriptedCantrip([{ tool_calls: [gateCall('where', { file: 'a.txt', root: '/etc' })] }, { tool_calls: [gateCall('done', { answer: 1 })] }], {
      gates: [doneGate(), read],
    });
    const result = await cantrip.cast('go');
    expect(result.turns[0]!.gate_calls[0]!.result).toBe('/data/a.txt');
  });

  it('CIRCLE-5: a gate cannot change the arguments object the loom records', async () => {
    const meddler = defineGate({ name: 'meddle', description: 'm', parameters: { type: 'object' } }, async (args) => {
      args.text = 'changed';
      return 'ok';
    });
    const { cantrip } = scriptedCantrip([{ tool_calls: [gateCall('meddle', { text: 'original' })] }, { content: 'end' }], { gates: [doneGate(), meddler] });
    const result = await cantrip.cast('go');
    expect(result.turns[0]!.gate_calls[0]!.arguments).toEqual({ text: 'original' });
  });

  it('CIRCLE-1: two gates with one name are refused', () => {
    expect(() => createCircle({ gates: [doneGate(), echoGate(), echoGate()], wards: { maxTurns: 1 } })).toThrow();
    expect(createCircle({ gates: [doneGate(), failGate()], wards: { maxTurns: 1 } }).gates.size).toBe(2);
  });
});

describe('ward composition (§4.4)', () => {
  it('WARD-1: numbers take the smaller value and removals from either side add up', () => {
    const parent = { maxTurns: 10, maxTokens: 500, maxDepth: 2, removeGates: ['fetch'] };
    const child = { maxTurns: 20, timeoutMs: 1000, maxDepth: 1, removeGates: ['write'] };
    expect(composeWards(parent, child)).toEqual({ maxTurns: 10, maxTokens: 500, maxDepth: 1, timeoutMs: 1000, removeGates: ['fetch', 'write'] });
    expect(composeWards(child, parent).maxTurns).toBe(10);
  });
});

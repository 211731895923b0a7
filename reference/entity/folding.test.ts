import { describe, expect, it } from 'vitest';
import { defineGate } from '../circle/gate.ts';
import { doneGate } from '../circle/done.ts';
import { gateCall, ScriptedCrystal } from '../crystal/scripted.ts';
import { echoGate, scriptedCantrip, usage } from '../testing/kit.ts';

const echoAt = (text: string, prompt: number) => ({ tool_calls: [gateCall('echo', { text })], usage: usage(prompt, 10) });

describe('folding (§6.8)', () => {
  const foldingCantrip = () => {
    const crystal = new ScriptedCrystal(
      [echoAt('one', 100), echoAt('two', 200), echoAt('three', 300), echoAt('four', 850), echoAt('five', 400), { tool_calls: [gateCall('done', { answer: 'ok' })] }],
      'windowed',
      { contextWindow: 1000 },
    );
    const { cantrip } = scriptedCantrip([], { crystal, extra: { folding: { keepRecentTurns: 2 } } });
    return { crystal, cantrip };
  };

  it('PROD-4: folding starts by itself once usage passes 80% of the window, not before', async () => {
    const { crystal, cantrip } = foldingCantrip();
    await cantrip.cast('count to five');
    const marked = (index: number) => crystal.requests[index]!.messages.some((message) => String(message.content).startsWith('[Folded: turns '));
    expect([0, 1, 2, 3].map(marked)).toEqual([false, false, false, false]);
    expect(marked(4)).toBe(true);
  });

  it('LOOM-5: the fold is a view: the summary replaces old turns in the context, the loom keeps every turn and records the fold', async () => {
    const { crystal, cantrip } = foldingCantrip();
    const result = await cantrip.cast('count to five');
    const after = crystal.requests[4]!;
    const summary = after.messages.find((message) => String(message.content).startsWith('[Folded: turns 1-2]'));
    expect(summary).toBeDefined();
    const echoed = after.messages.flatMap((message) => message.tool_calls ?? []).map((call) => JSON.parse(call.arguments).text);
    expect(echoed).toEqual(['three', 'four']);
    const loomTurns = cantrip.loom.turns();
    expect(loomTurns.filter((turn) => turn.role === 'crystal').map((turn) => turn.gate_calls[0]?.arguments)).toContainEqual({ text: 'one' });
    expect(loomTurns.find((turn) => turn.role === 'fold')).toMatchObject({ fold: { from_sequence: 1, to_sequence: 2 } });
    expect(result.status).toBe('terminated');
  });

  it('LOOM-6, CALL-5: the call, the intent and the tools survive a fold unchanged', async () => {
    const { crystal, cantrip } = foldingCantrip();
    await cantrip.cast('count to five');
    const [before, after] = [crystal.requests[0]!, crystal.requests[4]!];
    expect(after.messages[0]).toEqual(before.messages[0]);
    expect(after.messages[1]).toEqual({ role: 'user', content: 'count to five' });
    expect(after.tools).toEqual(before.tools);
    expect(after.hyperparameters).toEqual(before.hyperparameters);
  });

  it('PROD-4: a crystal that advertises no window never triggers a fold', async () => {
    const crystal = new ScriptedCrystal([echoAt('a', 1e9), echoAt('b', 1e9), echoAt('c', 1e9), { tool_calls: [gateCall('done', { answer: 1 })] }]);
    const { cantrip } = scriptedCantrip([], { crystal, extra: { folding: {} } });
    await cantrip.cast('x');
    expect(cantrip.loom.turns().some((turn) => turn.role === 'fold')).toBe(false);
  });
});

describe('ephemeral gates (§7.2)', () => {
  it('PROD-5: an ephemeral result is seen in full once, then trimmed from the context, and kept whole in the loom', async () => {
    const page = 'x'.repeat(500);
    const fetchPage = defineGate({ name: 'fetch_page', description: 'big', parameters: { type: 'object' } }, async () => page, { ephemeral: true });
    const { crystal, cantrip } = scriptedCantrip(
      [{ tool_calls: [gateCall('fetch_page')] }, { tool_calls: [gateCall('echo', { text: 'noted' })] }, { tool_calls: [gateCall('done', { answer: 1 })] }],
      { gates: [doneGate(), echoGate(), fetchPage] },
    );
    const result = await cantrip.cast('read the page');
    expect(JSON.stringify(crystal.requests[1]!.messages)).toContain(page);
    expect(JSON.stringify(crystal.requests[2]!.messages)).not.toContain(page);
    expect(JSON.stringify(crystal.requests[2]!.messages)).toContain('ephemeral result of fetch_page');
    expect(cantrip.loom.get(result.turns[0]!.id).gate_calls[0]!.result).toBe(page);
  });
});

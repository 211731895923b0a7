import { describe, expect, it } from 'vitest';
import type { CrystalResponse } from '../../schemas/index.ts';
import { createCall } from '../call/call.ts';
import { createCircle } from '../circle/circle.ts';
import { doneGate } from '../circle/done.ts';
import { defineGate } from '../circle/gate.ts';
import { codeMedium } from '../circle/medium/code-medium.ts';
import { gateCall, ScriptedCrystal } from '../crystal/scripted.ts';
import { callEntityGate } from '../composition/call-entity.ts';
import { callEntityBatchGate } from '../composition/call-entity-batch.ts';
import { echoGate, failGate } from '../testing/kit.ts';
import { createCantrip } from './cantrip.ts';

const code = (program: string): Partial<CrystalResponse> => ({ tool_calls: [gateCall('js', { code: program })] });

function codeCantrip(script: Partial<CrystalResponse>[], options: { child?: ScriptedCrystal; exposeLoom?: boolean; onSlowAdd?: () => void } = {}) {
  const crystal = new ScriptedCrystal(script, 'coder');
  const slow = defineGate(
    { name: 'slow_add', description: 'adds after a while', parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } },
    async ({ a, b }) => {
      options.onSlowAdd?.();
      await new Promise((resolve) => setTimeout(resolve, 20));
      return Number(a) + Number(b);
    },
  );
  const gates = [doneGate(), echoGate(), failGate(), slow];
  if (options.child) gates.push(callEntityGate({ crystal: options.child }), callEntityBatchGate({ crystal: options.child }));
  const cantrip = createCantrip({
    crystal,
    call: createCall({ systemPrompt: 'You write JavaScript.' }),
    circle: createCircle({ gates, wards: { maxTurns: 6, evalTimeoutMs: 3000 }, medium: codeMedium({ evalTimeoutMs: 3000 }) }),
    exposeLoom: options.exposeLoom ?? false,
  });
  return { crystal, cantrip };
}

describe('code circles (§4.1, §4.7)', () => {
  it('CIRCLE-11: a code circle presents one js tool listing every gate as a host function', async () => {
    const { crystal, cantrip } = codeCantrip([code('done(1)')]);
    await cantrip.cast('x');
    const tools = crystal.requests[0]!.tools!;
    expect(tools.map((tool) => tool.name)).toEqual(['js']);
    for (const gate of ['done', 'echo', 'fail', 'slow_add']) expect(tools[0]!.description).toContain(`${gate}(`);
  });

  it('CIRCLE-9: a variable set in one turn is readable in the next', async () => {
    const { cantrip } = codeCantrip([code('var total = 40;'), code('total += 2;'), code('done(total)')]);
    expect((await cantrip.cast('add')).result).toBe(42);
  });

  it('CIRCLE-3: a gate with an asynchronous host side returns its value synchronously inside code', async () => {
    const { cantrip } = codeCantrip([code('const sum = slow_add(2, 3); done(sum * 10)')]);
    const result = await cantrip.cast('add slowly');
    expect(result.result).toBe(50);
    expect(result.turns[0]!.gate_calls[0]).toMatchObject({ gate: 'slow_add', arguments: { a: 2, b: 3 }, ok: true, result: 5 });
  });

  it('CIRCLE-5, CIRCLE-7: a failing gate is catchable in code and recorded; all calls of a program form one ordered observation', async () => {
    const program = 'echo("first"); let caught = "none"; try { fail() } catch (e) { caught = e.name } echo(caught);';
    const { cantrip } = codeCantrip([code(program), code('done("ok")')]);
    const result = await cantrip.cast('x');
    const first = result.turns[0]!;
    expect(first.gate_calls.map((call) => [call.gate, call.ok])).toEqual([
      ['echo', true],
      ['fail', false],
      ['echo', true],
    ]);
    expect(first.gate_calls[2]!.result).toBe('DiskFull');
    expect(first.observation).toContain('DiskFull');
  });

  it('LOOP-3: done inside code stops the program there, even inside try/finally', async () => {
    const { cantrip } = codeCantrip([code('try { done("early") } finally { echo("after done") } echo("later")')]);
    const result = await cantrip.cast('x');
    expect(result.result).toBe('early');
    expect(result.turns[0]!.gate_calls.map((call) => call.gate)).toEqual(['done']);
  });

  it('LOOP-1: an error thrown by the program is the observation of that turn and the next turn works', async () => {
    const { crystal, cantrip } = codeCantrip([code('var kept = 7; throw new TypeError("bad")'), code('done(kept)')]);
    const result = await cantrip.cast('x');
    expect(result.turns[0]!.observation).toContain('TypeError');
    expect(String(crystal.requests[1]!.messages.at(-1)!.content)).toContain('TypeError');
    expect(result.result).toBe(7);
  });

  it('COMP-2, COMP-3: children are called from code as ordinary functions, batches in request order', async () => {
    const child = new ScriptedCrystal(
      [{ tool_calls: [gateCall('js', { code: 'done("A")' })] }, { tool_calls: [gateCall('js', { code: 'done("B")' })] }, { tool_calls: [gateCall('js', { code: 'done("C")' })] }],
      'child',
    );
    const program = 'const one = call_entity({ intent: "first" }); const many = call_entity_batch([{ intent: "second" }, { intent: "third" }]); done([one, many])';
    const { cantrip } = codeCantrip([code(program)], { child });
    const result = await cantrip.cast('delegate');
    expect(result.result).toEqual(['A', ['B', 'C']]);
  });

  it('LOOM-4 (replay): a forked code entity gets its sandbox state back by replaying the recorded programs, without re-running gates', async () => {
    let slowCalls = 0;
    const { cantrip } = codeCantrip([code('var base = slow_add(1, 1);'), code('done(base)'), code('done(base + 100)')], {
      onSlowAdd: () => void (slowCalls += 1),
    });
    const first = await cantrip.cast('x');
    expect(first.result).toBe(2);
    const forked = cantrip.fork(first.turns[0]!.id);
    const result = await forked.resume();
    expect(result.result).toBe(102);
    expect(result.turns[0]!.fork).toEqual({ from_turn_id: first.turns[0]!.id, strategy: 'replay' });
    expect(slowCalls).toBe(1);
  });

  it('LOOM-11: with the loom exposed, code reads its own thread as data', async () => {
    const { cantrip } = codeCantrip([code('echo("look")'), code('done(loom.thread.filter(t => t.role === "crystal").length)')], { exposeLoom: true });
    expect((await cantrip.cast('count my turns')).result).toBe(1);
  });
});

/**
 * A child's evaluation deadline, the code medium's own ward (MEDIUM-4), composed with its parent's by
 * the smaller value (WARD-1 at every draft, WARD-2 from 0.2.0): a child never runs looser than its
 * parent, and may run tighter. The programs spin for 3 s of wall clock against deadlines of 300 ms or
 * less, so a deadline that holds stops them whatever the machine's load (a margin of ten times).
 */
import { describe, expect, it } from 'vitest';
import type { CrystalResponse } from '../../schemas/index.ts';
import { createCall } from '../call/call.ts';
import { createCircle } from '../circle/circle.ts';
import { doneGate } from '../circle/done.ts';
import { defineGate, type Gate } from '../circle/gate.ts';
import { codeMedium } from '../circle/medium/code-medium.ts';
import { gateCall, ScriptedCrystal } from '../crystal/scripted.ts';
import { createCantrip } from '../entity/cantrip.ts';
import { readRecord } from '../drafts/gate-call-records.ts';
import type { Draft } from '../drafts/draft.ts';
import { callEntityGate } from './call-entity.ts';

const reply = (gate: string, args: Record<string, unknown>): Partial<CrystalResponse> => ({ tool_calls: [gateCall(gate, args)] });
const code = (program: string): Partial<CrystalResponse> => reply('js', { code: program });
/** Spins for 3 s of wall clock, then calls `reached`: only a program no deadline stopped gets there. */
const SPIN_THEN_REACH = "var t = Date.now(); while (Date.now() - t < 3000) {} reached('past the deadline');";

/** A gate that only counts its calls. */
function reachedGate(): { gate: Gate; calls: () => number } {
  let calls = 0;
  const gate = defineGate({ name: 'reached', description: 'Says the program got here.', parameters: { type: 'object', properties: { text: { type: 'string' } } } }, async () => {
    calls += 1;
    return 'noted';
  });
  return { gate, calls: () => calls };
}

function childOptions(crystal: ScriptedCrystal): string[] {
  const tool = crystal.requests[0]!.tools!.find((t) => t.name === 'call_entity')!;
  return Object.keys((tool.parameters as { properties: object }).properties);
}

describe('a child\'s evaluation deadline composes with its parent\'s (WARD-1; WARD-2, MEDIUM-4 from 0.2.0)', () => {
  it('WARD-2 at 0.3.1: a code child asking for ten minutes under a 300 ms parent is stopped before its gate call; the call_entity tool lists the option from 0.2.0 only', async () => {
    const reached = reachedGate();
    const parent = new ScriptedCrystal([reply('call_entity', { intent: 'spin', medium: 'code', eval_timeout_ms: 600_000 }), reply('done', { answer: 'over' })], 'parent');
    const child = new ScriptedCrystal([code(SPIN_THEN_REACH), code("done('child-back')")], 'child');
    const draft: Draft = '0.3.1';
    const cantrip = createCantrip({
      crystal: parent,
      call: createCall({}),
      circle: createCircle({ gates: [doneGate(undefined, draft), reached.gate, callEntityGate({ crystal: child, draft })], wards: { maxTurns: 3, evalTimeoutMs: 300 } }),
      draft,
    });
    const result = await cantrip.cast('go');
    expect(reached.calls()).toBe(0);
    expect(child.requests).toHaveLength(2);
    expect(readRecord(result.turns.find((t) => t.role === 'crystal')!.gate_calls[0]!)).toMatchObject({ ok: true, result: 'child-back' });
    expect(childOptions(parent)).toContain('eval_timeout_ms');
  });

  it('WARD-1, WARD-2 at 0.2.0: a child of a code parent allowing a minute, in code as its parent, asks for 200 ms and runs under that tighter deadline', async () => {
    const reached = reachedGate();
    const parent = new ScriptedCrystal([code("var r = call_entity({ intent: 'spin', eval_timeout_ms: 200 }); done(r);")], 'parent');
    const child = new ScriptedCrystal([code(SPIN_THEN_REACH), code("done('child-back')")], 'child');
    const draft: Draft = '0.2.0';
    const wards = { maxTurns: 3, evalTimeoutMs: 60_000 };
    const cantrip = createCantrip({
      crystal: parent,
      call: createCall({}),
      circle: createCircle({ gates: [doneGate(undefined, draft), reached.gate, callEntityGate({ crystal: child, draft })], wards, medium: codeMedium(wards) }),
      draft,
    });
    const result = await cantrip.cast('go');
    expect(reached.calls()).toBe(0);
    expect(result.result).toBe('child-back');
  });

  it('at 0.1.0 the tool does not list the option; a deadline that is not a positive integer is refused (invalid_gate_arguments), and no child runs', async () => {
    const parent = new ScriptedCrystal([reply('call_entity', { intent: 'spin', eval_timeout_ms: 0.5 }), reply('done', { answer: 'over' })], 'parent');
    const child = new ScriptedCrystal([reply('done', { answer: 'never' })], 'child');
    const cantrip = createCantrip({
      crystal: parent,
      call: createCall({}),
      circle: createCircle({ gates: [doneGate(undefined, '0.1.0'), callEntityGate({ crystal: child, draft: '0.1.0' })], wards: { maxTurns: 3 } }),
      draft: '0.1.0',
    });
    const result = await cantrip.cast('go');
    expect(result.turns.find((t) => t.role === 'crystal')!.gate_calls[0]).toMatchObject({ ok: false, error: { code: 'invalid_gate_arguments' } });
    expect(child.requests).toHaveLength(0);
    expect(childOptions(parent)).not.toContain('eval_timeout_ms');
  });
});

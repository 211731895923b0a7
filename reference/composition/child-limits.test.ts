import { describe, expect, it } from 'vitest';
import type { CrystalResponse } from '../../schemas/index.ts';
import { createCall } from '../call/call.ts';
import { createCircle } from '../circle/circle.ts';
import { doneGate } from '../circle/done.ts';
import type { Wards } from '../circle/wards.ts';
import { gateCall, ScriptedCrystal } from '../crystal/scripted.ts';
import { createCantrip } from '../entity/cantrip.ts';
import { echoGate, failGate } from '../testing/kit.ts';
import { callEntityBatchGate } from './call-entity-batch.ts';
import { callEntityGate } from './call-entity.ts';
import type { ChildLimits } from '../circle/child-limits.ts';

const step = (gate: string, args: Record<string, unknown> = {}): Partial<CrystalResponse> => ({ tool_calls: [gateCall(gate, args)] });
const childDone = () => new ScriptedCrystal(Array.from({ length: 4 }, () => step('done', { answer: 'child done' })), 'child');

function limitedFamily(parentScript: Partial<CrystalResponse>[], childLimits: ChildLimits, wards: Wards = { maxTurns: 5, maxDepth: 1 }) {
  const child = childDone();
  const cantrip = createCantrip({
    crystal: new ScriptedCrystal(parentScript, 'parent'),
    call: createCall({ systemPrompt: 'You delegate.' }),
    circle: createCircle({
      gates: [doneGate(), echoGate(), failGate(), callEntityGate({ crystal: child }), callEntityBatchGate({ crystal: child })],
      wards,
      childLimits,
    }),
  });
  return { child, cantrip };
}

/** Turns of entities other than the cast's own: a refused child must leave none. */
const childTurns = (cantrip: ReturnType<typeof limitedFamily>['cantrip'], parent: string) =>
  cantrip.loom.turns().filter((turn) => turn.role === 'crystal' && turn.entity_id !== parent);

describe('child-circle wards (feature child-circle-wards)', () => {
  const refusedBy: [string, ChildLimits, Record<string, unknown>][] = [
    ['a medium not allowed', { mediums: ['code'] }, {}],
    ['a denied gate', { denyGates: ['fail'] }, { gates: ['echo', 'fail'] }],
    ['a gate off the allow list', { allowGates: ['echo'] }, { gates: ['echo', 'fail'] }],
    ['a turn cap over its ceiling', { maxTurns: 2 }, { max_turns: 4 }],
    ['a missing ward that has a ceiling', { timeoutMs: 1000 }, {}],
  ];
  it.each(refusedBy)('COMP-1, WARD-1, COMP-8: a child with %s is refused before it runs, and the parent sees the failure and goes on', async (_what, limits, request) => {
    const { child, cantrip } = limitedFamily([step('call_entity', { intent: 'sub', ...request }), step('done', { answer: 'parent done' })], limits);
    const result = await cantrip.cast('go');
    expect(child.requests).toHaveLength(0);
    expect(childTurns(cantrip, result.entityId)).toEqual([]);
    expect(result.turns[0]!.gate_calls[0]).toMatchObject({ gate: 'call_entity', ok: false, error: { code: 'child_refused' } });
    expect(result).toMatchObject({ status: 'terminated', result: 'parent done' });
  });

  it('COMP-1, WARD-1: a child that keeps to every limit runs as usual', async () => {
    const limits: ChildLimits = { mediums: ['conversation'], allowGates: ['echo'], denyGates: ['fail'], maxTurns: 2, maxDepth: 0 };
    const { child, cantrip } = limitedFamily([step('call_entity', { intent: 'sub', gates: ['echo'], max_turns: 2 }), step('done', { answer: 1 })], limits);
    const result = await cantrip.cast('go');
    expect(child.requests).toHaveLength(1);
    expect(result.turns[0]!.gate_calls[0]).toMatchObject({ ok: true, result: 'child done' });
  });

  it('COMP-8: in a batch only the child that breaks a limit is refused; the others run', async () => {
    const { child, cantrip } = limitedFamily(
      [step('call_entity_batch', { intents: [{ intent: 'fine', gates: ['echo'] }, { intent: 'too much', gates: ['fail'] }] }), step('done', { answer: 1 })],
      { denyGates: ['fail'] },
    );
    const result = await cantrip.cast('go');
    expect(child.requests.map((request) => request.messages.find((message) => message.role === 'user')!.content)).toEqual(['fine']);
    const slots = result.turns[0]!.gate_calls[0]!.result as unknown[];
    expect(slots[0]).toBe('child done');
    expect(slots[1]).toMatchObject({ error: { code: 'child_refused' } });
  });
});

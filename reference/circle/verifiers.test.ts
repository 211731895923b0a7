import { describe, expect, it } from 'vitest';
import type { CrystalResponse } from '../../schemas/index.ts';
import { createCall } from '../call/call.ts';
import { callEntityGate } from '../composition/call-entity.ts';
import { gateCall, ScriptedCrystal } from '../crystal/scripted.ts';
import { createCantrip } from '../entity/cantrip.ts';
import { CantripError } from '../errors.ts';
import { createCircle } from './circle.ts';
import { doneGate } from './done.ts';
import { defineGate, type Gate } from './gate.ts';
import { codeMedium } from './medium/code-medium.ts';
import { allowDenyVerifier, argumentsSchemaVerifier, firstRejection, type Verifier } from './verifiers.ts';
import type { Wards } from './wards.ts';

const step = (gate: string, args: Record<string, unknown> = {}): Partial<CrystalResponse> => ({ tool_calls: [gateCall(gate, args)] });

/** Gates whose every execution is counted, so a test can see whether a refused call ran. */
function countedGates(): { gates: Gate[]; ran: string[] } {
  const ran: string[] = [];
  const counted = (name: string): Gate =>
    defineGate({ name, description: name, parameters: { type: 'object', properties: { text: { type: 'string' } } } }, async (args) => {
      ran.push(name);
      return args.text ?? name;
    });
  return { gates: [doneGate(), counted('echo'), counted('fetch')], ran };
}

function verifiedCantrip(script: Partial<CrystalResponse>[], verifiers: Verifier[], wards: Wards = { maxTurns: 6 }, extra: Gate[] = []) {
  const crystal = new ScriptedCrystal(script, 'parent');
  const { gates, ran } = countedGates();
  const cantrip = createCantrip({
    crystal,
    call: createCall({ systemPrompt: 'You are checked.' }),
    circle: createCircle({ gates: [...gates, ...extra], wards, verifiers }),
  });
  return { crystal, cantrip, ran };
}

const noFetch = allowDenyVerifier('no-fetch', { deny: ['fetch'] });

describe('verifier wards (feature verifier-wards)', () => {
  it('CIRCLE-6, CIRCLE-5: a refused call never runs its gate, and the entity sees a failure naming the verifier', async () => {
    const { crystal, cantrip, ran } = verifiedCantrip([step('fetch', { text: 'x' }), step('echo', { text: 'y' }), step('done', { answer: 1 })], [noFetch]);
    const result = await cantrip.cast('go');
    expect(ran).toEqual(['echo']);
    expect(result.turns[0]!.gate_calls[0]).toMatchObject({ gate: 'fetch', ok: false, error: { code: 'verifier_rejected' } });
    const seen = crystal.requests[1]!.messages.at(-1)!;
    expect(seen.role).toBe('tool');
    expect(seen.content).toContain('no-fetch');
    expect(result).toMatchObject({ status: 'terminated', result: 1 });
  });

  it('CIRCLE-6: verifiers run in their declared order, and the first to refuse is the one named', () => {
    const first = allowDenyVerifier('first', { allow: ['done', 'echo'] });
    const second = allowDenyVerifier('second', { deny: ['fetch'] });
    expect(firstRejection([first, second], 'fetch', {})?.verifier).toBe('first');
    expect(firstRejection([second, first], 'fetch', {})?.verifier).toBe('second');
    expect(firstRejection([first, second], 'echo', {})).toBeUndefined();
  });

  it('CIRCLE-6, CIRCLE-10: an arguments schema, compiled at construction, refuses calls whose arguments do not match it', async () => {
    const short = argumentsSchemaVerifier('short-text', 'echo', { type: 'object', properties: { text: { type: 'string', maxLength: 3 } }, required: ['text'] });
    const { cantrip, ran } = verifiedCantrip([step('echo', { text: 'far too long' }), step('echo', { text: 'ok' }), step('done', { answer: 1 })], [short]);
    const result = await cantrip.cast('go');
    expect(ran).toEqual(['echo']);
    expect(result.turns.map((turn) => turn.gate_calls[0]!.ok)).toEqual([false, true, true]);
    expect(() => argumentsSchemaVerifier('broken', 'echo', { type: 'no-such-type' })).toThrow(CantripError);
  });

  it('LOOP-4: refused calls in a row up to the max_rejections ward truncate the cast, and the crystal is asked no more', async () => {
    const script = Array.from({ length: 5 }, () => step('fetch', { text: 'again' }));
    const { crystal, cantrip, ran } = verifiedCantrip(script, [noFetch], { maxTurns: 10, maxRejections: 3 });
    const result = await cantrip.cast('go');
    expect(result).toMatchObject({ status: 'truncated', truncationCause: 'max_rejections' });
    expect(result.summary).toBeDefined();
    expect(crystal.requests).toHaveLength(3);
    expect(ran).toEqual([]);
  });

  it('LOOP-4: a call that passes starts the count again, so an entity that corrects itself goes on', async () => {
    const script = [step('fetch'), step('fetch'), step('echo', { text: 'fixed' }), step('fetch'), step('fetch'), step('done', { answer: 'fine' })];
    const { cantrip } = verifiedCantrip(script, [noFetch], { maxTurns: 10, maxRejections: 3 });
    expect(await cantrip.cast('go')).toMatchObject({ status: 'terminated', result: 'fine' });
  });

  it('CIRCLE-1: a verifier that refuses every call of done is refused at construction, like a ward removing done', () => {
    const { gates } = countedGates();
    const build = (verifier: Verifier) => () => createCircle({ gates, wards: { maxTurns: 3 }, verifiers: [verifier] });
    expect(build(allowDenyVerifier('only-echo', { allow: ['echo'] }))).toThrow(expect.objectContaining({ code: 'missing_done_gate' }));
    expect(build(allowDenyVerifier('no-done', { deny: ['done'] }))).toThrow(expect.objectContaining({ code: 'missing_done_gate' }));
    expect(() => createCircle({ gates, wards: { maxTurns: 3 }, verifiers: [noFetch, noFetch] })).toThrow(expect.objectContaining({ code: 'invalid_ward' }));
  });

  it('WARD-1: a child entity runs every verifier of its parent', async () => {
    const child = new ScriptedCrystal([step('fetch', { text: 'from the child' }), step('done', { answer: 'child done' })], 'child');
    const { cantrip, ran } = verifiedCantrip(
      [step('call_entity', { intent: 'fetch something', gates: ['fetch'] }), step('done', { answer: 'parent done' })],
      [noFetch],
      { maxTurns: 6 },
      [callEntityGate({ crystal: child })],
    );
    await cantrip.cast('go');
    expect(ran).toEqual([]);
    const childTurn = cantrip.loom.turns().find((turn) => turn.role === 'crystal' && turn.gate_calls[0]?.gate === 'fetch')!;
    expect(childTurn.gate_calls[0]).toMatchObject({ ok: false, error: { code: 'verifier_rejected' } });
  });

  it('CIRCLE-6: in a code circle a refused call throws inside the program and its gate never runs', async () => {
    const crystal = new ScriptedCrystal([{ tool_calls: [gateCall('js', { code: 'var r; try { fetch("x"); } catch (e) { r = "refused"; } done(r)' })] }], 'coder');
    const { gates, ran } = countedGates();
    const cantrip = createCantrip({
      crystal,
      call: createCall({ systemPrompt: 'You write JavaScript.' }),
      circle: createCircle({ gates, wards: { maxTurns: 3, evalTimeoutMs: 3000 }, medium: codeMedium({ evalTimeoutMs: 3000 }), verifiers: [noFetch] }),
    });
    const result = await cantrip.cast('go');
    expect(ran).toEqual([]);
    expect(result).toMatchObject({ status: 'terminated', result: 'refused' });
    expect(result.turns[0]!.gate_calls[0]).toMatchObject({ gate: 'fetch', ok: false, error: { code: 'verifier_rejected' } });
  });
});

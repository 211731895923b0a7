import { describe, expect, it } from 'vitest';
import { gateCall } from '../crystal/scripted.ts';
import { CallbackCrystal } from '../crystal/callback.ts';
import { createCall } from '../call/call.ts';
import { createCircle } from '../circle/circle.ts';
import { doneGate } from '../circle/done.ts';
import { defineGate } from '../circle/gate.ts';
import { CantripError } from '../errors.ts';
import { echoGate, scriptedCantrip, usage } from '../testing/kit.ts';
import { createCantrip } from './cantrip.ts';

const done = (answer: unknown) => ({ tool_calls: [gateCall('done', { answer })] });
const echo = (text: string) => ({ tool_calls: [gateCall('echo', { text })] });

describe('the loop (chapter 1)', () => {
  it('LOOP-1: every crystal turn pairs one utterance with one observation, and the crystal sees each observation before it speaks again', async () => {
    const { crystal, cantrip } = scriptedCantrip([echo('a'), echo('b'), done('ok')]);
    const result = await cantrip.cast('echo twice');
    expect(result.turns.map((turn) => turn.sequence)).toEqual([1, 2, 3]);
    for (const turn of result.turns) expect(turn.gate_calls).toHaveLength(1);
    // Between two assistant messages there is always the tool result of the first.
    const roles = crystal.requests[2]!.messages.map((message) => message.role);
    expect(roles).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'tool']);
  });

  it('LOOP-2, CIRCLE-2: a circle without a turn or time ward is refused with missing_truncation_ward', () => {
    expect(() => createCircle({ gates: [doneGate()], wards: {} })).toThrow(expect.objectContaining({ code: 'missing_truncation_ward' }));
    expect(() => createCircle({ gates: [doneGate()], wards: { maxTokens: 100 } })).toThrow(expect.objectContaining({ code: 'missing_truncation_ward' }));
  });

  it('LOOP-3, CIRCLE-8: done ends the cast with its answer and later calls in the same utterance are not run', async () => {
    let echoes = 0;
    const counting = defineGate({ name: 'echo', description: 'count', parameters: { type: 'object' } }, async () => ++echoes);
    const { crystal, cantrip } = scriptedCantrip(
      [{ tool_calls: [gateCall('echo'), gateCall('done', { answer: 42 }), gateCall('echo')] }],
      { gates: [doneGate(), counting] },
    );
    const result = await cantrip.cast('finish');
    expect(result.status).toBe('terminated');
    expect(result.result).toBe(42);
    expect(echoes).toBe(1);
    expect(result.turns.at(-1)!.gate_calls.map((call) => call.gate)).toEqual(['echo', 'done']);
    expect(crystal.requests).toHaveLength(1);
  });

  it('LOOP-4: a max_turns ward truncates on the last allowed turn, records the cause, and summarises the work', async () => {
    const { cantrip } = scriptedCantrip([echo('1'), echo('2'), echo('3'), echo('4')], { wards: { maxTurns: 3 } });
    const result = await cantrip.cast('never finish');
    expect(result.status).toBe('truncated');
    expect(result.truncationCause).toBe('max_turns');
    expect(result.turns).toHaveLength(3);
    expect(result.turns.at(-1)).toMatchObject({ truncated: true, terminated: false, truncation_cause: 'max_turns' });
    expect(result.summary).toContain('echo x3');
  });

  it('LOOP-4: a timeout ward ends a cast whose gate never returns', async () => {
    const hang = defineGate({ name: 'hang', description: 'never returns', parameters: { type: 'object' } }, () => new Promise(() => {}));
    const { cantrip } = scriptedCantrip([{ tool_calls: [gateCall('hang')] }], { gates: [doneGate(), hang], wards: { timeoutMs: 30 } });
    const result = await cantrip.cast('wait forever');
    expect(result).toMatchObject({ status: 'truncated', truncationCause: 'timeout' });
    expect(result.turns.at(-1)!.truncated).toBe(true);
  });

  it('LOOP-5, CALL-2, INTENT-2: every query starts with the system prompt, then the intent as first user message', async () => {
    const { crystal, cantrip } = scriptedCantrip([echo('a'), echo('b'), done(1)]);
    await cantrip.cast('the intent');
    for (const request of crystal.requests) {
      expect(request.messages[0]).toEqual({ role: 'system', content: 'You are a careful assistant.' });
      expect(request.messages.find((message) => message.role === 'user')).toEqual({ role: 'user', content: 'the intent' });
    }
  });

  it('INTENT-2: without a system prompt the intent is the very first message', async () => {
    const { crystal, cantrip } = scriptedCantrip([done(1)], { systemPrompt: null });
    await cantrip.cast('only the intent');
    expect(crystal.requests[0]!.messages[0]).toEqual({ role: 'user', content: 'only the intent' });
  });

  it('LOOP-6: a text-only reply ends the cast when done is not required, with the text as result', async () => {
    const { crystal, cantrip } = scriptedCantrip([{ content: 'all done here' }, done('unused')]);
    const result = await cantrip.cast('talk');
    expect(result).toMatchObject({ status: 'terminated', result: 'all done here' });
    expect(crystal.requests).toHaveLength(1);
    expect(result.turns[0]!.terminated).toBe(true);
  });

  it('LOOP-6: with require_done a text-only reply is just a turn, and only done ends the cast', async () => {
    const { crystal, cantrip } = scriptedCantrip([{ content: 'thinking aloud' }, done('final')], { requireDone: true });
    const result = await cantrip.cast('talk');
    expect(result).toMatchObject({ status: 'terminated', result: 'final' });
    expect(result.turns[0]).toMatchObject({ terminated: false, truncated: false });
    expect(crystal.requests).toHaveLength(2);
    // The crystal is told why it is being asked again, so the context still alternates.
    expect(crystal.requests[1]!.messages.at(-1)!.role).toBe('user');
  });
});

describe('cantrip, intent and entity (§1.4)', () => {
  it('CANTRIP-1: crystal, call and circle are each required', () => {
    const { cantrip } = scriptedCantrip([]);
    const parts = { crystal: cantrip.crystal, call: cantrip.call, circle: cantrip.circle };
    for (const [missing, code] of [['crystal', 'missing_crystal'], ['call', 'missing_call'], ['circle', 'missing_circle']] as const) {
      const options = { ...parts, [missing]: undefined } as unknown as Parameters<typeof createCantrip>[0];
      expect(() => createCantrip(options)).toThrow(expect.objectContaining({ code }));
    }
  });

  it('CANTRIP-2, ENTITY-2: two casts of one cantrip make independent entities with distinct ids', async () => {
    const { crystal, cantrip } = scriptedCantrip([echo('first'), done(1), done(2)]);
    const first = await cantrip.cast('one');
    const second = await cantrip.cast('two');
    expect(first.entityId).not.toBe(second.entityId);
    // The second cast's context holds nothing of the first.
    const contents = JSON.stringify(crystal.requests[2]!.messages);
    expect(contents).not.toContain('first');
    expect(contents).toContain('two');
  });

  it('CANTRIP-3, CIRCLE-1: a circle without done is refused at construction', () => {
    expect(() => createCircle({ gates: [echoGate()], wards: { maxTurns: 3 } })).toThrow(expect.objectContaining({ code: 'missing_done_gate' }));
    expect(() => createCircle({ gates: [doneGate()], wards: { maxTurns: 3, removeGates: ['done'] } })).toThrow(
      expect.objectContaining({ code: 'missing_done_gate' }),
    );
  });

  it('INTENT-1: a cast without an intent is refused and leaves no trace in the loom', async () => {
    const { cantrip } = scriptedCantrip([done(1)]);
    await expect(cantrip.cast('')).rejects.toMatchObject({ code: 'missing_intent' });
    await expect(cantrip.cast(undefined as unknown as string)).rejects.toBeInstanceOf(CantripError);
    expect(cantrip.loom.turns()).toHaveLength(0);
  });

  it('INTENT-3: a crystal that rewrites the intent in the request it gets cannot change it for later turns', async () => {
    let refused = 0;
    const crystal = new CallbackCrystal((request, index) => {
      const intent = request.messages.find((message) => message.role === 'user')!;
      try {
        intent.content = 'rewritten by the crystal';
      } catch {
        refused += 1;
      }
      const gate = index < 2 ? gateCall('echo', { text: 'x' }) : gateCall('done', { answer: 1 });
      return { content: null, tool_calls: [gate], usage: usage(1) };
    });
    const cantrip = createCantrip({
      crystal,
      call: createCall({ systemPrompt: 'sys' }),
      circle: createCircle({ gates: [doneGate(), echoGate()], wards: { maxTurns: 5 } }),
    });
    const result = await cantrip.cast('original intent');
    // Requests are recorded before the crystal tampers with them: each turn was sent the original.
    expect(crystal.requests.map((request) => request.messages[1]!.content)).toEqual(['original intent', 'original intent', 'original intent']);
    expect(result.turns[0]!.intent).toBe('original intent');
    expect(refused).toBe(3);
  });

  it('ENTITY-1, ENTITY-5, ENTITY-3: an invoked entity keeps its state across casts and only grows', async () => {
    const { crystal, cantrip } = scriptedCantrip([echo('remember me'), done(1), done(2)]);
    const entity = cantrip.invoke();
    const first = await entity.cast('first intent');
    const sizeAfterFirst = entity.messages.length;
    const second = await entity.cast('second intent');
    expect(first.entityId).toBe(entity.id);
    expect(second.entityId).toBe(entity.id);
    expect(entity.messages.length).toBeGreaterThan(sizeAfterFirst);
    const lastRequest = JSON.stringify(crystal.requests[2]!.messages);
    expect(lastRequest).toContain('remember me');
    expect(lastRequest).toContain('second intent');
    // Sequences continue across casts, and the second cast hangs from the first's last turn.
    expect(second.turns[0]!.sequence).toBe(3);
    expect(second.turns[0]!.parent_id).toBe(first.turns.at(-1)!.id);
  });

  it('ENTITY-2: a caller-provided entity id is used as given', async () => {
    const { cantrip } = scriptedCantrip([done(1)]);
    const entity = cantrip.invoke({ entityId: 'entity_chosen' });
    expect((await entity.cast('x')).turns[0]!.entity_id).toBe('entity_chosen');
  });

  it('ENTITY-4: after a cast ends its turns remain in the loom', async () => {
    const { cantrip } = scriptedCantrip([echo('a'), done(1)]);
    const result = await cantrip.cast('x');
    expect(cantrip.loom.thread(result.turns.at(-1)!.id).map((turn) => turn.role)).toEqual(['call', 'crystal', 'crystal']);
  });

  it('ENTITY-6: two invocations are independent entities', async () => {
    const { crystal, cantrip } = scriptedCantrip([echo('secret'), done(1), done(2)]);
    await cantrip.invoke().cast('one');
    await cantrip.invoke().cast('two');
    expect(JSON.stringify(crystal.requests[2]!.messages)).not.toContain('secret');
  });
});

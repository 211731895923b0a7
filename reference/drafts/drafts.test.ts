import { describe, expect, it } from 'vitest';
import type { CantripSetup, CrystalResponse, Host, StreamEvent, Turn } from '../../schemas/index.ts';
import { createCall } from '../call/call.ts';
import { createCircle } from '../circle/circle.ts';
import { doneGate } from '../circle/done.ts';
import { defineGate, type Gate } from '../circle/gate.ts';
import { codeMedium } from '../circle/medium/code-medium.ts';
import type { Wards } from '../circle/wards.ts';
import { callEntityBatchGate } from '../composition/call-entity-batch.ts';
import { callEntityGate } from '../composition/call-entity.ts';
import { gateCall, ScriptedCrystal } from '../crystal/scripted.ts';
import { createCantrip } from '../entity/cantrip.ts';
import { Loom } from '../loom/loom.ts';
import { secretRedactor } from '../production/redaction.ts';
import { echoGate, failGate } from '../testing/kit.ts';
import { buildCantrip } from '../adapter/setup.ts';
import { createReferenceAdapter } from '../adapter/reference-adapter.ts';
import { agentCantrip, AGENT_DRAFT } from '../acp/agent-cantrip.ts';
import { GENERIC_CHILD_PROMPT } from './child-identity.ts';
import { DEFAULT_DRAFT, draftOf, REFERENCE_DRAFTS, type Draft } from './draft.ts';
import { readRecord, type GateCallRecordText } from './gate-call-records.ts';

const reply = (gate: string, args: Record<string, unknown>): Partial<CrystalResponse> => ({ tool_calls: [gateCall(gate, args)] });
const code = (program: string): Partial<CrystalResponse> => reply('js', { code: program });
const toolNames = (crystal: ScriptedCrystal, index = 0): string[] => (crystal.requests[index]?.tools ?? []).map((tool) => tool.name).sort();
const crystalTurns = (turns: readonly Turn[]): Turn[] => turns.filter((turn) => turn.role === 'crystal');

/** A gate only children may be given (0.2.0+ pool); the parent's circle never holds it. */
const searchGate = (): Gate =>
  defineGate({ name: 'search', description: 'Finds things.', parameters: { type: 'object', properties: { q: { type: 'string' } } } }, async (args) => `found ${String(args.q)}`);

/** A parent cantrip with call_entity (and batch) whose child crystal is scripted, built for `draft`. */
function family(
  draft: Draft,
  options: {
    parent: Partial<CrystalResponse>[];
    child?: Partial<CrystalResponse>[];
    other?: Partial<CrystalResponse>[];
    wards?: Wards;
    extraGates?: Gate[];
    childCall?: boolean;
  },
) {
  const parent = new ScriptedCrystal(options.parent, 'parent');
  const child = new ScriptedCrystal(options.child ?? [reply('done', { answer: 'child done' })], 'child');
  const other = new ScriptedCrystal(options.other ?? [reply('done', { answer: 'other done' })], 'other');
  const dependencies = {
    crystal: child,
    draft,
    childGates: [searchGate()],
    crystalNamed: (name: string) => {
      if (name !== 'other') throw new Error(`no crystal '${name}'`);
      return other;
    },
    ...(options.childCall ? { call: createCall({ systemPrompt: 'Configured child.' }) } : {}),
  };
  const cantrip = createCantrip({
    crystal: parent,
    call: createCall({ systemPrompt: 'You are the distinctive parent.', hyperparameters: { temperature: 0.3 } }),
    circle: createCircle({
      gates: [doneGate(undefined, draft), echoGate(), ...(options.extraGates ?? []), callEntityGate(dependencies), callEntityBatchGate(dependencies)],
      wards: options.wards ?? { maxTurns: 5 },
    }),
    draft,
  });
  return { parent, child, other, cantrip };
}

describe('which draft a cantrip is built for', () => {
  it('a setup without a draft builds for 0.1.0; a draft the reference lacks is refused with unsupported', () => {
    expect(DEFAULT_DRAFT).toBe('0.1.0');
    expect(draftOf(undefined)).toBe('0.1.0');
    expect(draftOf('0.3.1')).toBe('0.3.1');
    expect(() => draftOf('0.9.9')).toThrow(expect.objectContaining({ code: 'unsupported' }));
  });

  it('CantripSetup.draft reaches the cantrip the adapter builds, and its children', () => {
    const host = { queryCrystal: async () => ({ ok: false as const, error: { message: 'unused' } }), callGate: async () => ({ ok: true as const, result: null }), sleep: async () => {} } as Host;
    const setup: CantripSetup = { crystal: { name: 'parent' }, call: {}, circle: { medium: 'conversation', gates: [{ name: 'done' }], wards: { max_turns: 2 } } };
    const loom = new Loom();
    expect(buildCantrip(setup, host, loom).draft).toBe('0.1.0');
    for (const draft of REFERENCE_DRAFTS) expect(buildCantrip({ ...setup, draft }, host, loom).draft).toBe(draft);
    expect(() => buildCantrip({ ...setup, draft: '1.0.0' }, host, loom)).toThrow(expect.objectContaining({ code: 'unsupported' }));
  });

  it("describe() declares the three drafts and keeps spec_version; construct refuses a draft it lacks", async () => {
    const adapter = createReferenceAdapter();
    try {
      const description = await adapter.describe();
      expect(description.drafts).toEqual(['0.1.0', '0.2.0', '0.3.1']);
      expect(description.spec_version).toBe('0.1.0-draft');
      const host = { queryCrystal: async () => ({ ok: false as const, error: { message: 'unused' } }), callGate: async () => ({ ok: true as const, result: null }), sleep: async () => {} } as Host;
      const refused = await adapter.construct({ crystal: { name: 'c' }, call: {}, circle: { medium: 'conversation', gates: [{ name: 'done' }], wards: { max_turns: 2 } }, draft: '0.0.1' }, host);
      expect(refused).toMatchObject({ ok: false, error: { code: 'unsupported' } });
    } finally {
      await adapter.dispose();
    }
  });

  it('PROD-6, PROD-7 (0.2.0+): the ACP agent builds its cantrip for 0.3.1', () => {
    const cantrip = agentCantrip({ systemPrompt: 'brief', maxTurns: 2, root: undefined }, new ScriptedCrystal([]), { onEvent: () => {}, redact: (text) => text });
    expect(AGENT_DRAFT).toBe('0.3.1');
    expect(cantrip.draft).toBe('0.3.1');
  });
});

describe("a child's circle: COMP-1 at 0.1.0 / COMP-1 (reversed) at 0.2.0+", () => {
  it('COMP-1 at 0.1.0: a gate the parent lacks is refused (gate_not_granted) / COMP-1 (reversed) at 0.2.0 and 0.3.1: a gate configured for children is granted', async () => {
    const at010 = family('0.1.0', { parent: [reply('call_entity', { intent: 'look up', gates: ['search'] }), reply('done', { answer: 1 })] });
    const refused = await at010.cantrip.cast('go');
    expect(refused.turns[0]!.gate_calls[0]).toMatchObject({ gate: 'call_entity', ok: false, error: { code: 'gate_not_granted' } });
    expect(at010.child.requests).toHaveLength(0);
    for (const draft of ['0.2.0', '0.3.1'] as const) {
      const later = family(draft, { parent: [reply('call_entity', { intent: 'look up', gates: ['search'] }), reply('done', { answer: 1 })] });
      const granted = await later.cantrip.cast('go');
      expect(readRecord(granted.turns[0]!.gate_calls[0]!)).toMatchObject({ gate: 'call_entity', ok: true, result: 'child done' });
      expect(toolNames(later.child)).toEqual(['done', 'search']);
      expect(toolNames(later.parent)).not.toContain('search');
    }
  });

  it('WARD-1 at every draft, COMP-1 (reversed) at 0.2.0+: a gate the parent\'s ward removed is not handed to a child, even from the children\'s gates', async () => {
    for (const draft of REFERENCE_DRAFTS) {
      const { cantrip, child } = family(draft, {
        parent: [reply('call_entity', { intent: 'look up', gates: ['search'] }), reply('done', { answer: 1 })],
        wards: { maxTurns: 5, removeGates: ['search'] },
      });
      const result = await cantrip.cast('go');
      expect(readRecord(result.turns[0]!.gate_calls[0]!)).toMatchObject({ ok: false, error: { code: 'gate_not_granted' } });
      expect(child.requests).toHaveLength(0);
    }
  });

  it('COMP-1, COMP-7 at 0.1.0: a child keeps its parent\'s medium, another is refused / COMP-1, COMP-7 (reversed) at 0.2.0+: a conversation parent spawns a code child', async () => {
    const at010 = family('0.1.0', { parent: [reply('call_entity', { intent: 'compute', medium: 'code' }), reply('done', { answer: 1 })] });
    const refused = await at010.cantrip.cast('go');
    expect(refused.turns[0]!.gate_calls[0]).toMatchObject({ ok: false, error: { code: 'gate_not_granted' } });
    expect(at010.child.requests).toHaveLength(0);

    const at020 = family('0.2.0', { parent: [reply('call_entity', { intent: 'compute', medium: 'code' }), reply('done', { answer: 1 })], child: [code('done(6 * 7)')] });
    const granted = await at020.cantrip.cast('go');
    expect(readRecord(granted.turns[0]!.gate_calls[0]!)).toMatchObject({ ok: true, result: 42 });
    expect(toolNames(at020.child)).toEqual(['js']);
    expect(at020.child.requests[0]!.tool_choice).toBeDefined();
    // The parent's presentation lists the new options only from 0.2.0 on (CIRCLE-11).
    const options = (draft: ScriptedCrystal) => Object.keys((draft.requests[0]!.tools!.find((tool) => tool.name === 'call_entity')!.parameters as { properties: object }).properties);
    expect(options(at010.parent)).not.toContain('medium');
    expect(options(at020.parent)).toEqual(expect.arrayContaining(['medium', 'llm']));
  });

  it('COMP-7 at 0.1.0: an llm argument is refused / COMP-7 (reversed) at 0.2.0+: the child runs on the LLM the request names, and the parent\'s turn cap still bounds it (WARD-1)', async () => {
    const at010 = family('0.1.0', { parent: [reply('call_entity', { intent: 'elsewhere', llm: 'other' }), reply('done', { answer: 1 })] });
    const refused = await at010.cantrip.cast('go');
    expect(refused.turns[0]!.gate_calls[0]).toMatchObject({ ok: false, error: { code: 'invalid_gate_arguments' } });

    const at031 = family('0.3.1', {
      parent: [reply('call_entity', { intent: 'elsewhere', llm: 'other', max_turns: 9 }), reply('done', { answer: 1 })],
      other: [reply('echo', { text: 'a' }), reply('echo', { text: 'b' }), reply('done', { answer: 'late' })],
      wards: { maxTurns: 2 },
    });
    const result = await at031.cantrip.cast('go');
    expect(at031.child.requests).toHaveLength(0);
    expect(at031.other.requests).toHaveLength(2);
    expect(readRecord(result.turns[0]!.gate_calls[0]!)).toMatchObject({ ok: false, error: { code: 'child_failed' } });
  });
});

describe('batch size: COMP-3 at 0.1.0 / COMP-3 (amended) at 0.2.0+', () => {
  it('COMP-3 at 0.1.0: a batch of 51 runs every child / COMP-3 (amended) at 0.2.0 and 0.3.1: it is refused before any child runs; 50 still run', async () => {
    const intents = (n: number) => Array.from({ length: n }, (_, index) => ({ intent: `part ${index}` }));
    const everyChild = (n: number) => Array.from({ length: n }, () => reply('done', { answer: 'piece' }));
    const at010 = family('0.1.0', { parent: [reply('call_entity_batch', { intents: intents(51) }), reply('done', { answer: 1 })], child: everyChild(51) });
    const all = await at010.cantrip.cast('go');
    expect((all.turns[0]!.gate_calls[0]!.result as unknown[]).length).toBe(51);
    expect(at010.child.requests).toHaveLength(51);
    for (const draft of ['0.2.0', '0.3.1'] as const) {
      const refused = family(draft, { parent: [reply('call_entity_batch', { intents: intents(51) }), reply('done', { answer: 1 })], child: everyChild(51) });
      const result = await refused.cantrip.cast('go');
      expect(readRecord(result.turns[0]!.gate_calls[0]!)).toMatchObject({ ok: false, error: { code: 'invalid_gate_arguments' } });
      expect(refused.child.requests).toHaveLength(0);
    }
    const fifty = family('0.3.1', { parent: [reply('call_entity_batch', { intents: intents(50) }), reply('done', { answer: 1 })], child: everyChild(50) });
    const ran = await fifty.cantrip.cast('go');
    expect((readRecord(ran.turns[0]!.gate_calls[0]!).result as unknown[]).length).toBe(50);
  });
});

describe("a child's identity: COMP-7 at 0.1.0 and 0.2.0 / COMP-10 at 0.3.1", () => {
  it("COMP-7 at 0.1.0 and 0.2.0: a child given no identity speaks with the parent's call / COMP-10 at 0.3.1: it gets a generic identity, never the parent's prompt", async () => {
    for (const draft of REFERENCE_DRAFTS) {
      const { cantrip, child } = family(draft, { parent: [reply('call_entity', { intent: 'work' }), reply('done', { answer: 1 })] });
      await cantrip.cast('go');
      const system = child.requests[0]!.messages[0]!;
      expect(system.role).toBe('system');
      if (draft === '0.3.1') {
        expect(system.content).toBe(GENERIC_CHILD_PROMPT);
        expect(child.requests[0]!.hyperparameters).toEqual({});
      } else {
        expect(system.content).toBe('You are the distinctive parent.');
      }
    }
  });

  it('COMP-7 at every draft, COMP-10 at 0.3.1: an identity the request or the gate names is the child\'s', async () => {
    for (const draft of REFERENCE_DRAFTS) {
      const asked = family(draft, { parent: [reply('call_entity', { intent: 'work', system_prompt: 'Asked persona.' }), reply('done', { answer: 1 })] });
      await asked.cantrip.cast('go');
      expect(asked.child.requests[0]!.messages[0]).toEqual({ role: 'system', content: 'Asked persona.' });
      const configured = family(draft, { parent: [reply('call_entity', { intent: 'work' }), reply('done', { answer: 1 })], childCall: true });
      await configured.cantrip.cast('go');
      expect(configured.child.requests[0]!.messages[0]).toEqual({ role: 'system', content: 'Configured child.' });
    }
  });
});

describe('delegation at depth 0: COMP-6 at 0.1.0 / COMP-6 and COMP-11 at 0.3.1', () => {
  it('COMP-6 at 0.1.0, COMP-11 at 0.2.0 and 0.3.1: a child whose composed depth is 0 is offered no delegation gate, even when it asks for one', async () => {
    for (const draft of REFERENCE_DRAFTS) {
      const { cantrip, child } = family(draft, {
        parent: [reply('call_entity', { intent: 'work', gates: ['echo', 'call_entity', 'call_entity_batch'] }), reply('done', { answer: 1 })],
      });
      await cantrip.cast('go');
      expect(toolNames(child)).toEqual(['done', 'echo']);
    }
  });
});

describe('a malformed done: LOOP-3 at 0.1.0 / LOOP-7 at 0.2.0+', () => {
  const cantripFor = (draft: Draft, script: Partial<CrystalResponse>[], maxTurns = 4) => {
    const crystal = new ScriptedCrystal(script);
    return createCantrip({
      crystal,
      call: createCall({ systemPrompt: 'x' }),
      circle: createCircle({ gates: [doneGate(undefined, draft), echoGate()], wards: { maxTurns } }),
      draft,
    });
  };

  it('LOOP-3 at 0.1.0: done without its answer ends the cast (no answer) / LOOP-7 at 0.2.0 and 0.3.1: it is a failed call, the cast goes on to a proper done', async () => {
    const script = [reply('done', {}), reply('done', { answer: 'now' })];
    const at010 = await cantripFor('0.1.0', script).cast('x');
    expect(at010).toMatchObject({ status: 'terminated', result: null });
    expect(at010.turns).toHaveLength(1);
    for (const draft of ['0.2.0', '0.3.1'] as const) {
      const later = await cantripFor(draft, script).cast('x');
      expect(later).toMatchObject({ status: 'terminated', result: 'now' });
      expect(later.turns).toHaveLength(2);
      expect(later.turns[0]).toMatchObject({ terminated: false, truncated: false });
      expect(later.turns[0]!.gate_calls[0]).toMatchObject({ gate_name: 'done', is_error: true, arguments: '{}' });
    }
  });

  it('LOOP-7 at 0.2.0+: a done that is only ever malformed ends truncated by the turn ward, never terminated', async () => {
    const result = await cantripFor('0.3.1', [reply('done', {}), reply('done', {})], 2).cast('x');
    expect(result).toMatchObject({ status: 'truncated', truncationCause: 'max_turns' });
    expect(result.turns.every((turn) => !turn.terminated)).toBe(true);
  });

  it('LOOP-3 at 0.1.0 / LOOP-7 at 0.2.0+, code medium: done() with no answer ends the program at 0.1.0, and is thrown into it from 0.2.0', async () => {
    const program = 'try { done(); } catch (error) { done("caught " + error.name); }';
    const run = (draft: Draft) =>
      createCantrip({
        crystal: new ScriptedCrystal([code(program)]),
        call: createCall({ systemPrompt: 'code' }),
        circle: createCircle({ gates: [doneGate(undefined, draft)], wards: { maxTurns: 2, evalTimeoutMs: 3000 }, medium: codeMedium({ evalTimeoutMs: 3000 }) }),
        draft,
      }).cast('x');
    const at010 = await run('0.1.0');
    expect(at010.status).toBe('terminated');
    expect(at010.result ?? null).toBeNull();
    const at031 = await run('0.3.1');
    expect(at031).toMatchObject({ status: 'terminated', result: 'caught CantripError' });
    expect(at031.turns[0]!.gate_calls.map((record) => (record as unknown as GateCallRecordText).is_error)).toEqual([true, false]);
  });
});

describe('gate call records: the 0.1.0 shape / {gate_name, arguments, result, is_error} from 0.2.0 (CIRCLE-4, CIRCLE-5, CIRCLE-7)', () => {
  const run = (draft: Draft) =>
    createCantrip({
      crystal: new ScriptedCrystal([{ tool_calls: [gateCall('echo', { text: 'one' }), gateCall('fail', {}), gateCall('echo', { text: 'two' })] }, reply('done', { answer: [1, 'two'] })]),
      call: createCall({ systemPrompt: 'x' }),
      circle: createCircle({ gates: [doneGate(undefined, draft), echoGate(), failGate('DiskFull')], wards: { maxTurns: 3 } }),
      draft,
    }).cast('x');

  it('CIRCLE-7 at 0.1.0: records keep values, ids and error names / CIRCLE-7 and §4.3 at 0.2.0 and 0.3.1: one text record per call, in call order', async () => {
    const at010 = await run('0.1.0');
    expect(at010.turns[0]!.gate_calls).toEqual([
      { tool_call_id: expect.any(String), gate: 'echo', arguments: { text: 'one' }, ok: true, result: 'one' },
      { tool_call_id: expect.any(String), gate: 'fail', arguments: {}, ok: false, error: { name: 'DiskFull', message: 'the gate failed on purpose' } },
      { tool_call_id: expect.any(String), gate: 'echo', arguments: { text: 'two' }, ok: true, result: 'two' },
    ]);
    for (const draft of ['0.2.0', '0.3.1'] as const) {
      const later = await run(draft);
      const records = later.turns[0]!.gate_calls as unknown as GateCallRecordText[];
      expect(records.map(({ gate_name, arguments: args, result, is_error }) => ({ gate_name, arguments: args, result, is_error }))).toEqual([
        { gate_name: 'echo', arguments: '{"text":"one"}', result: '"one"', is_error: false },
        { gate_name: 'fail', arguments: '{}', result: 'the gate failed on purpose', is_error: true },
        { gate_name: 'echo', arguments: '{"text":"two"}', result: '"two"', is_error: false },
      ]);
      for (const record of records) {
        expect(typeof record.arguments).toBe('string');
        expect(typeof record.result).toBe('string');
        expect(record).not.toHaveProperty('ok');
        expect(record).not.toHaveProperty('gate');
      }
      expect(later.turns[1]!.gate_calls[0]).toMatchObject({ gate_name: 'done', result: '[1,"two"]', is_error: false });
    }
  });

  it('LOOM-4 at every draft: a conversation fork rebuilds the same context from 0.1.0 records and from text records', async () => {
    const contexts: unknown[] = [];
    for (const draft of REFERENCE_DRAFTS) {
      const crystal = new ScriptedCrystal([{ tool_calls: [gateCall('echo', { text: 'one' }, 'c1'), gateCall('fail', {}, 'c2')] }, reply('done', { answer: 'a' }), reply('done', { answer: 'b' })]);
      const cantrip = createCantrip({
        crystal,
        call: createCall({ systemPrompt: 'x' }),
        circle: createCircle({ gates: [doneGate(undefined, draft), echoGate(), failGate('DiskFull')], wards: { maxTurns: 3 } }),
        draft,
      });
      const original = await cantrip.cast('x');
      const forked = await cantrip.fork(original.turns[0]!.id).resume();
      expect(forked.result).toBe('b');
      contexts.push(crystal.requests[2]!.messages);
      expect(crystal.requests[2]!.messages).toEqual(crystal.requests[1]!.messages);
    }
    expect(contexts[1]).toEqual(contexts[0]);
    expect(contexts[2]).toEqual(contexts[0]);
  });

  it('LOOM-4 at 0.1.0 / LOOM-13 at 0.2.0 and 0.3.1: a code fork replays from the recorded results, text or not, and runs no gate again', async () => {
    for (const draft of REFERENCE_DRAFTS) {
      let counted = 0;
      const counter = defineGate({ name: 'count', description: 'Counts its calls.', parameters: { type: 'object', properties: {} } }, async () => ({ n: ++counted }));
      const cantrip = createCantrip({
        crystal: new ScriptedCrystal([code('var seen = count(); var failed; try { fail(); } catch (e) { failed = e.name; }'), code('done([seen.n, failed])'), code('done([seen.n + 100, failed])')]),
        call: createCall({ systemPrompt: 'code' }),
        circle: createCircle({ gates: [doneGate(undefined, draft), counter, failGate('DiskFull')], wards: { maxTurns: 3, evalTimeoutMs: 3000 }, medium: codeMedium({ evalTimeoutMs: 3000 }) }),
        draft,
      });
      const original = await cantrip.cast('x');
      expect(original.result).toEqual([1, 'DiskFull']);
      const forked = await cantrip.fork(original.turns[0]!.id).resume();
      expect(forked.result).toEqual([101, 'DiskFull']);
      expect(counted).toBe(1);
    }
  });
});

describe('secrets: PROD-8 at 0.2.0+ (no rule at 0.1.0, the reference redacts there too)', () => {
  const SECRET = 'sk-test-0123456789';

  it('PROD-8: a secret a gate returns or the LLM repeats reaches no observation, record, utterance, result or event, at any draft', async () => {
    for (const draft of REFERENCE_DRAFTS) {
      const events: StreamEvent[] = [];
      const leaky = defineGate({ name: 'leak', description: 'Returns a credential.', parameters: { type: 'object', properties: {} } }, async () => ({ token: SECRET }));
      const crystal = new ScriptedCrystal([
        { content: `using ${SECRET}`, tool_calls: [gateCall('leak', { key: SECRET })] },
        reply('done', { answer: `key was ${SECRET}` }),
      ]);
      const cantrip = createCantrip({
        crystal,
        call: createCall({ systemPrompt: 'x' }),
        circle: createCircle({ gates: [doneGate(undefined, draft), leaky], wards: { maxTurns: 3 } }),
        redact: secretRedactor([SECRET]),
        onEvent: (event) => void events.push(event),
        draft,
      });
      const result = await cantrip.cast('x');
      expect(result.status).toBe('terminated');
      expect(JSON.stringify(cantrip.loom.turns())).not.toContain(SECRET);
      expect(JSON.stringify(events)).not.toContain(SECRET);
      expect(JSON.stringify(crystal.requests[1]!.messages.filter((message) => message.role === 'tool'))).not.toContain(SECRET);
      expect(JSON.stringify(cantrip.loom.turns())).toContain('[REDACTED]');
    }
  });

  it('PROD-8: the adapter treats the API keys of the crystal endpoints as secrets', () => {
    const host = { queryCrystal: async () => ({ ok: false as const, error: { message: 'unused' } }), callGate: async () => ({ ok: true as const, result: null }), sleep: async () => {} } as Host;
    const cantrip = buildCantrip(
      {
        crystal: { name: 'parent' },
        call: {},
        circle: { medium: 'conversation', gates: [{ name: 'done' }], wards: { max_turns: 2 } },
        crystal_endpoints: { parent: { format: 'openai', stream: false, base_url: 'http://127.0.0.1:9', model: 'm', api_key: SECRET } },
        draft: '0.3.1',
      },
      host,
      new Loom(),
    );
    expect(cantrip.redact?.(`header ${SECRET}`)).toBe('header [REDACTED]');
  });
});

import { describe, it, expect } from 'vitest';
import { formatProblems, validate, type SchemaProblem } from '../../schemas/loader.ts';
import type { CrystalRequest, Turn } from '../../schemas/records.ts';
import { RULE_IDS } from '../../spec/catalog.ts';
import {
  ATTRIBUTED_SCHEMAS,
  causeKey,
  keywordOfMessage,
  normalisePointer,
  parseCauseKey,
  problemsByRule,
  problemsInText,
  rulesForProblem,
  rulesForProblems,
  rulesOfSchema,
  schemaCause,
} from './schema-rules.ts';

const TURN: Turn = {
  id: 't2', parent_id: 't1', cantrip_id: 'c', entity_id: 'e', role: 'crystal', sequence: 1, utterance: '',
  observation: '', gate_calls: [{ tool_call_id: 'tc_1', gate: 'done', ok: true, result: 1 }], reward: null, terminated: true, truncated: false,
  metadata: { tokens_prompt: 3, tokens_completion: 2, tokens_cached: 0, duration_ms: 1, timestamp: '2025-01-01T00:00:00Z' },
};
const REQUEST: CrystalRequest = {
  messages: [
    { role: 'system', content: 'S' },
    { role: 'user', content: 'go' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', gate: 'echo', arguments: '{}' }] },
    { role: 'tool', content: 'ok', tool_call_id: 'c1' },
  ],
  tools: [{ name: 'done', description: 'ends', parameters: { type: 'object' } }],
  tool_choice: 'auto',
};

/** Validates, asserts the value is rejected, and returns its problems. */
function problemsOf(schema: string, value: unknown): SchemaProblem[] {
  const result = validate(schema, value);
  if (result.ok) throw new Error(`expected ${schema} to reject ${JSON.stringify(value)}`);
  return result.problems;
}

/** Drops one property from a copy; mutate() edits the copy first. */
function turnWith(mutate: (t: Record<string, unknown>) => void): unknown {
  const copy = structuredClone(TURN) as unknown as Record<string, unknown>;
  mutate(copy);
  return copy;
}
function requestWith(mutate: (r: { messages: Record<string, unknown>[]; tools: Record<string, unknown>[] } & Record<string, unknown>) => void): unknown {
  const copy = structuredClone(REQUEST) as unknown as { messages: Record<string, unknown>[]; tools: Record<string, unknown>[] } & Record<string, unknown>;
  mutate(copy);
  return copy;
}

describe('the fixtures of this test are valid to start with', () => {
  it('TURN and REQUEST pass their schemas', () => {
    expect(validate('turn', TURN)).toEqual({ ok: true });
    expect(validate('crystal-request', REQUEST)).toEqual({ ok: true });
  });
});

describe('turn: each requirement goes to the rule that makes it', () => {
  const gateCall = (t: Record<string, unknown>) => (t.gate_calls as Record<string, unknown>[])[0]!;
  it.each([
    ['LOOM-2: a missing id', (t: Record<string, unknown>) => delete t.id, ['LOOM-2'], '§6.1'],
    ['LOOM-2: a missing parent_id', (t: Record<string, unknown>) => delete t.parent_id, ['LOOM-2'], '§6.1'],
    ['LOOM-9: no duration', (t: Record<string, unknown>) => delete (t.metadata as Record<string, unknown>).duration_ms, ['LOOM-9'], '§6.1'],
    ['LOOM-9, PROD-3: negative prompt tokens', (t: Record<string, unknown>) => ((t.metadata as Record<string, unknown>).tokens_prompt = -1), ['LOOM-9', 'PROD-3'], '§6.1'],
    ['LOOM-9: no metadata at all', (t: Record<string, unknown>) => delete t.metadata, ['LOOM-9'], '§6.1'],
    ['§6.1: a timestamp without a zone', (t: Record<string, unknown>) => ((t.metadata as Record<string, unknown>).timestamp = '2025-01-01 10:00'), [], '§6.1'],
    ['LOOM-7: no terminated flag', (t: Record<string, unknown>) => delete t.terminated, ['LOOM-7'], '§6.1'],
    ['LOOM-7: terminated and truncated both set', (t: Record<string, unknown>) => Object.assign(t, { truncated: true, truncation_cause: 'max_turns' }), ['LOOM-7'], '§6.1'],
    ['LOOM-7: a cause on a turn that is not truncated', (t: Record<string, unknown>) => (t.truncation_cause = 'max_turns'), ['LOOM-7'], '§6.1'],
    ['COMP-9: a truncation without a cause', (t: Record<string, unknown>) => Object.assign(t, { terminated: false, truncated: true }), ['COMP-9'], '§5.1'],
    // 0.1.0's §4.3 shows the stored record and no sentence requires its shape: CIRCLE-4, CIRCLE-5 and
    // CIRCLE-7 are about what the entity sees, read on the requests (issue 21), so no rule is blamed (issue 29).
    ['§4.3: a gate record whose tool_call_id is not a text', (t: Record<string, unknown>) => (gateCall(t).tool_call_id = 5), [], '§4.3'],
    ['§4.3: a gate record without the gate name', (t: Record<string, unknown>) => delete gateCall(t).gate, [], '§4.3'],
    ['§4.3: a gate record without ok', (t: Record<string, unknown>) => delete gateCall(t).ok, [], '§4.3'],
    ['§4.3: a failed gate call without an error (and with a result)', (t: Record<string, unknown>) => (gateCall(t).ok = false), [], '§4.3'],
    ['§4.3: an error without a message', (t: Record<string, unknown>) => Object.assign(gateCall(t), { ok: false, result: undefined, error: { name: 'Error' } }), [], '§4.3'],
    ['§4.3: a gate record that is not an object', (t: Record<string, unknown>) => (t.gate_calls = ['done']), [], '§4.3'],
    ['CALL-4: a call record without hyperparameters', (t: Record<string, unknown>) => Object.assign(t, { role: 'call', terminated: false, call: { system_prompt: null } }), ['CALL-4'], '§3.4'],
    ['LOOM-4: an unknown fork strategy', (t: Record<string, unknown>) => (t.fork = { strategy: 'clone' }), ['LOOM-4'], '§6.6'],
    // The range is optional (the spec's Turn has none), but one that is there must be sequences.
    ['LOOM-5: a fold turn with a malformed range', (t: Record<string, unknown>) => Object.assign(t, { role: 'fold', terminated: false, fold: { from_sequence: 'a', to_sequence: 1 } }), ['LOOM-5'], '§6.8'],
    ['§6.1: an unknown role', (t: Record<string, unknown>) => (t.role = 'tool'), [], '§6.1'],
    ['§6.1: a crystal turn with sequence 0', (t: Record<string, unknown>) => (t.sequence = 0), [], '§6.1'],
    ['§6.1: a crystal turn without an entity', (t: Record<string, unknown>) => (t.entity_id = null), [], '§6.1'],
    ['§6.1: no cantrip_id', (t: Record<string, unknown>) => delete t.cantrip_id, [], '§6.1'],
    ['§6.1: no utterance', (t: Record<string, unknown>) => delete t.utterance, [], '§6.1'],
    ['§6.1: an observation that is not text', (t: Record<string, unknown>) => (t.observation = []), [], '§6.1'],
    ['§6.1: no gate_calls list', (t: Record<string, unknown>) => delete t.gate_calls, [], '§6.1'],
    ['§6.4: no reward slot', (t: Record<string, unknown>) => delete t.reward, [], '§6.4'],
  ])('%s', (_label, mutate, rules, section) => {
    const problems = problemsOf('turn', turnWith(mutate));
    const union = rulesForProblems('turn', problems);
    expect(union.rules).toEqual(rules);
    expect(union.sections).toEqual([section]);
  });

  it('a gate record problem is blamed on no rule: neither the turn\'s (LOOM-2, LOOM-9) nor the gate rules', () => {
    const problems = problemsOf('turn', turnWith((t) => (gateCall(t).tool_call_id = 5)));
    expect(problems).toEqual([expect.objectContaining({ pointer: '/gate_calls/0/tool_call_id', keyword: 'type' })]);
    expect(rulesForProblem('turn', problems[0]!)).toEqual({ rules: [], section: '§4.3' });
  });

  // Nothing the spec leaves open is closed (issue 29): each of these is a valid turn.
  it.each([
    ['a medium\'s own field on a gate record (§4.3)', (t: Record<string, unknown>) => (gateCall(t).latency = 3)],
    ['a provider field kept as metadata (CRYSTAL-6)', (t: Record<string, unknown>) => ((t.metadata as Record<string, unknown>).stop_reason = 'end_turn')],
    ['a field of the implementation\'s own on the turn (§6.1 closes nothing)', (t: Record<string, unknown>) => (t.score = 1)],
    ['a call kept on a crystal turn', (t: Record<string, unknown>) => (t.call = { system_prompt: null, hyperparameters: {} })],
    ['a call record with other fields (0.3.1 lets the identity carry rendered gates, IDENTITY-3)', (t: Record<string, unknown>) => Object.assign(t, { role: 'call', terminated: false, call: { system_prompt: 'S', hyperparameters: {}, tools: [] } })],
    ['a call without a system prompt, the null left out', (t: Record<string, unknown>) => Object.assign(t, { role: 'call', terminated: false, call: { hyperparameters: {} } })],
  ])('accepted: %s', (_label, mutate) => {
    expect(validate('turn', turnWith(mutate))).toEqual({ ok: true });
  });

  it('problemsByRule: what breaks a rule fails, what no rule asks for does not', () => {
    const problems = problemsOf('turn', turnWith((t) => {
      delete t.parent_id;
      delete (t.metadata as Record<string, unknown>).timestamp;
      delete gateCall(t).ok;
    }));
    const { breaking, outside } = problemsByRule('turn', problems);
    expect(breaking.map((p) => p.pointer)).toEqual(['/parent_id']);
    expect(outside.map((p) => p.pointer).sort()).toEqual(['/gate_calls/0/ok', '/metadata/timestamp']);
    // A turn that only lacks what no rule asks for breaks nothing.
    expect(problemsByRule('turn', problemsOf('turn', turnWith((t) => delete (t.metadata as Record<string, unknown>).timestamp))).breaking).toEqual([]);
  });

  it('several problems in one turn give the union, in catalog order', () => {
    const problems = problemsOf('turn', turnWith((t) => {
      delete t.parent_id;
      delete (t.metadata as Record<string, unknown>).duration_ms;
      gateCall(t).tool_call_id = 5;
    }));
    expect(rulesForProblems('turn', problems)).toEqual({ rules: ['LOOM-2', 'LOOM-9'], sections: ['§6.1', '§4.3'] });
  });

  it('the `if` companion ajv adds beside a branch failure attributes nothing of its own', () => {
    const problems = problemsOf('turn', turnWith((t) => Object.assign(t, { truncated: true, truncation_cause: 'max_turns' })));
    const companion = problems.find((p) => p.keyword === 'if')!;
    expect(companion.pointer).toBe('/');
    expect(rulesForProblem('turn', companion)).toEqual({ rules: [], section: '§6.1', companion: true });
    // Alone, a companion still names where it sits.
    expect(rulesForProblems('turn', [companion])).toEqual({ rules: [], sections: ['§6.1'] });
    expect(rulesForProblem('turn', { pointer: '/gate_calls/3', keyword: 'if' })).toEqual({ rules: [], section: '§4.3', companion: true });
  });
});

describe('crystal-request: messages, tool calls and tools', () => {
  it.each([
    ['CRYSTAL-1: no messages', (r: Record<string, unknown>) => delete r.messages, ['CRYSTAL-1'], '§2.1'],
    ['LOOP-5: an empty context', (r: Record<string, unknown>) => (r.messages = []), ['LOOP-5'], '§2.1'],
    ['CRYSTAL-1: an unknown role', (r: { messages: Record<string, unknown>[] }) => (r.messages[1]!.role = 'human'), ['CRYSTAL-1'], '§2.1'],
    ['CRYSTAL-1: a user message without text', (r: { messages: Record<string, unknown>[] }) => (r.messages[1]!.content = null), ['CRYSTAL-1'], '§2.1'],
    ['CRYSTAL-3: a silent assistant message without gate calls', (r: { messages: Record<string, unknown>[] }) => delete r.messages[2]!.tool_calls, ['CRYSTAL-3'], '§2.1'],
    ['CRYSTAL-4: a tool call without an id', (r: { messages: Record<string, unknown>[] }) => delete (r.messages[2]!.tool_calls as Record<string, unknown>[])[0]!.id, ['CRYSTAL-4'], '§2.1'],
    ['CRYSTAL-4: arguments that are not a JSON string', (r: { messages: Record<string, unknown>[] }) => ((r.messages[2]!.tool_calls as Record<string, unknown>[])[0]!.arguments = {}), ['CRYSTAL-4'], '§2.1'],
    ['CIRCLE-4: a tool message without tool_call_id', (r: { messages: Record<string, unknown>[] }) => delete r.messages[3]!.tool_call_id, ['CIRCLE-4'], '§4.3'],
    ['CIRCLE-11: a tool definition without a description', (r: { tools: Record<string, unknown>[] }) => delete r.tools[0]!.description, ['CIRCLE-11'], '§4.6'],
    ['CALL-3, CIRCLE-11: tools that are not a list', (r: Record<string, unknown>) => (r.tools = {}), ['CALL-3', 'CIRCLE-11'], '§2.1'],
    ['CRYSTAL-5: an unknown tool choice', (r: Record<string, unknown>) => (r.tool_choice = 'maybe'), ['CRYSTAL-5'], '§2.1'],
    ['§3.1: hyperparameters that are not an object', (r: Record<string, unknown>) => (r.hyperparameters = 0.2), [], '§3.1'],
  ] as [string, (r: never) => void, string[], string][])('%s', (_label, mutate, rules, section) => {
    const problems = problemsOf('crystal-request', requestWith(mutate as (r: unknown) => void));
    expect(rulesForProblems('crystal-request', problems)).toEqual({ rules, sections: [section] });
  });
});

describe('other record schemas', () => {
  it('gate-call-record on its own maps like the records inside a turn', () => {
    const problems = problemsOf('gate-call-record', { tool_call_id: 7, gate: 'read', ok: false });
    expect(rulesForProblems('gate-call-record', problems)).toEqual({ rules: [], sections: ['§4.3'] });
  });

  it('CRYSTAL-4: a gate record naming the empty gate records a nameless call that was acted on, at every draft\'s record; a record missing its name breaks no rule', () => {
    const nameless = problemsOf('gate-call-record', { tool_call_id: 'a', gate: '', ok: true, result: 1 });
    expect(rulesForProblems('gate-call-record', nameless)).toEqual({ rules: ['CRYSTAL-4'], sections: ['§2.1'] });
    const text = problemsOf('gate-call-record-text', { gate_name: '', arguments: '{}', result: 'x', is_error: false });
    expect(rulesForProblems('gate-call-record-text', text).rules).toEqual(['CRYSTAL-4']);
    // A record missing its name breaks no rule (no sentence asks the stored record for §4.3's shape, issue 29): informational.
    const unnamed = problemsOf('gate-call-record', { tool_call_id: 'a', ok: true, result: 1 });
    expect(rulesForProblems('gate-call-record', unnamed).rules).toEqual([]);
  });

  it('CRYSTAL-3: a response with neither text nor gate calls; CRYSTAL-6 for the rest of the contract', () => {
    const silent = problemsOf('crystal-response', { content: null, usage: { prompt: 1, completion: 1, cached: 0 } });
    expect(rulesForProblems('crystal-response', silent).rules).toEqual(['CRYSTAL-3']);
    const noUsage = problemsOf('crystal-response', { content: 'hi' });
    expect(rulesForProblems('crystal-response', noUsage).rules).toEqual(['CRYSTAL-6']);
  });

  it('loom-line: its own fields are LOOM-3; the turn it carries maps through the turn table', () => {
    expect(rulesForProblems('loom-line', problemsOf('loom-line', { kind: 'reward', turn_id: 't1' })).rules).toEqual(['LOOM-3']);
    const noId = structuredClone(TURN) as Partial<Turn>;
    delete noId.id;
    expect(rulesForProblems('loom-line', problemsOf('loom-line', { kind: 'turn', turn: noId })).rules).toEqual(['LOOM-2']);
  });

  it('an unknown schema attributes nothing', () => {
    expect(rulesForProblem('report', { pointer: '/cases', keyword: 'required' })).toEqual({ rules: [] });
  });

  it('every rule id in the tables is a catalog rule', () => {
    const all = ATTRIBUTED_SCHEMAS.flatMap((s) => rulesOfSchema(s));
    expect(all.filter((r) => !(RULE_IDS as readonly string[]).includes(r))).toEqual([]);
    expect(rulesOfSchema('turn')).toEqual(expect.arrayContaining(['LOOM-2', 'LOOM-7', 'LOOM-9', 'CALL-4']));
  });
});

describe('cause keys', () => {
  it('array indices become *, so the same field in any turn or gate call gives one key', () => {
    expect(normalisePointer('/gate_calls/12/tool_call_id')).toBe('/gate_calls/*/tool_call_id');
    expect(normalisePointer('/')).toBe('/');
    const a = problemsOf('turn', turnWith((t) => ((t.gate_calls as Record<string, unknown>[])[0]!.tool_call_id = 5)));
    const b = problemsOf('turn', turnWith((t) => {
      t.id = 'another-id';
      t.gate_calls = [{ tool_call_id: 'x', gate: 'echo', ok: true }, { tool_call_id: 9, gate: 'done', ok: true }];
    }));
    expect(schemaCause('turn', a)).toBe('turn:/gate_calls/*/tool_call_id [type]');
    expect(schemaCause('turn', b)).toBe(schemaCause('turn', a));
  });

  it('a cause lists each distinct problem once, sorted, without the `if` companions', () => {
    const problems = problemsOf('turn', turnWith((t) => {
      Object.assign(t, { truncated: true, truncation_cause: 'max_turns' });
      delete t.parent_id;
    }));
    expect(schemaCause('turn', problems).split('\n')).toEqual(['turn:/parent_id [required]', 'turn:/truncated [const]']);
  });

  it('parseCauseKey reads back what causeKey wrote, including a keyword with a space', () => {
    const key = causeKey('turn', { pointer: '/call', keyword: 'false schema' });
    expect(parseCauseKey(key)).toEqual({ schema: 'turn', pointer: '/call', keyword: 'false schema' });
    expect(parseCauseKey('turn id t1 appears twice')).toBeUndefined();
  });

  it('problems written by formatProblems are read back with their keywords', () => {
    const problems = problemsOf('turn', turnWith((t) => {
      Object.assign(t, { truncated: true, truncation_cause: 'max_turns' });
      (t.gate_calls as Record<string, unknown>[])[0]!.tool_call_id = 5;
      (t.metadata as Record<string, unknown>).tokens_prompt = -1;
      t.fork = { strategy: 'clone' };
    }));
    const text = `loom turn [0] (t2):\n${formatProblems(problems)}`;
    const read = problemsInText(text);
    expect(read.map((p) => [p.pointer, p.keyword])).toEqual(problems.map((p) => [p.pointer, p.keyword]));
    expect(schemaCause('turn', read)).toBe(schemaCause('turn', problems));
  });

  it('keywordOfMessage knows the messages ajv writes', () => {
    expect(keywordOfMessage('must be string,null')).toBe('type');
    expect(keywordOfMessage('must NOT have fewer than 1 items')).toBe('minItems');
    expect(keywordOfMessage('must match format "date-time"')).toBe('format');
    expect(keywordOfMessage('something else')).toBeUndefined();
  });
});

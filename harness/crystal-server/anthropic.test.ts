/**
 * The Anthropic Messages format of the crystal server: requests read back into the crystal contract,
 * replies (plain and streamed) in the published shapes, thinking blocks, and the turn-order checks.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { CrystalRequest, CrystalResponse } from '../../schemas/records.ts';
import { startCrystalServer } from './server.ts';
import type { CrystalServer, ServedReply } from './types.ts';
import { foldAnthropic, post, readSse } from './test-client.ts';

const servers: CrystalServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(...replies: ServedReply[]): Promise<{ server: CrystalServer; asked: Array<[string, CrystalRequest]> }> {
  const asked: Array<[string, CrystalRequest]> = [];
  const server = await startCrystalServer({
    answer: async (crystal, request) => {
      asked.push([crystal, request]);
      const next = replies.shift();
      if (!next) throw new Error('no reply left');
      return next;
    },
  });
  servers.push(server);
  return { server, asked };
}

const ok = (response: CrystalResponse, provider?: ServedReply['provider']): ServedReply => ({ ok: true, response, ...(provider && { provider }) });
const textReply: CrystalResponse = { content: 'Hello there — ünïcode ✓ 🎉', usage: { prompt: 12, completion: 7, cached: 0 } };
const callReply: CrystalResponse = {
  content: 'Let me call.',
  tool_calls: [
    { id: 'toolu_1', gate: 'echo', arguments: '{"text":"a \\"quoted\\" wörd 🎉"}' },
    { id: 'toolu_2', gate: 'done', arguments: '{"answer":42}' },
  ],
  usage: { prompt: 30, completion: 9, cached: 0 },
};
const cachedReply: CrystalResponse = { content: 'cached', usage: { prompt: 1200, completion: 5, cached: 1024 } };
const thinkingReply: CrystalResponse = { content: 'Answer.', thinking: 'Let me think… 🤔', usage: { prompt: 3, completion: 4, cached: 0 } };

const tools = [
  { name: 'echo', description: 'Echoes text.', input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  { name: 'done', description: 'Finishes.', input_schema: { type: 'object', properties: { answer: {} } } },
];
const first = {
  model: 'parent',
  max_tokens: 64,
  system: 'Be terse.',
  messages: [{ role: 'user', content: 'Do it' }],
  tools,
  tool_choice: { type: 'any' },
  temperature: 0.2,
  top_p: 0.9,
  stop_sequences: ['END'],
};

describe('Anthropic: plain replies', () => {
  it('a text reply: a message with one text block, end_turn, usage', async () => {
    const { server, asked } = await serve(ok(textReply));
    const res = await post(server, 'anthropic', first);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, any>;
    expect(body).toEqual({
      id: expect.stringMatching(/^msg_/),
      type: 'message',
      role: 'assistant',
      model: 'parent',
      content: [{ type: 'text', text: textReply.content }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 12, output_tokens: 7, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
    });
    expect(res.headers.get('request-id')).toMatch(/^req_/);
    expect(asked).toEqual([
      [
        'parent',
        {
          messages: [{ role: 'system', content: 'Be terse.' }, { role: 'user', content: 'Do it' }],
          tools: [
            { name: 'echo', description: 'Echoes text.', parameters: tools[0]!.input_schema },
            { name: 'done', description: 'Finishes.', parameters: tools[1]!.input_schema },
          ],
          tool_choice: 'required',
          hyperparameters: { max_tokens: 64, temperature: 0.2, top_p: 0.9, stop: ['END'] },
        },
      ],
    ]);
    expect(server.exchanges[0]!.problems).toEqual([]);
  });

  it('a tool-call reply: tool_use blocks with ids and input objects, stop_reason tool_use', async () => {
    const { server } = await serve(ok(callReply));
    const body = (await (await post(server, 'anthropic', first)).json()) as Record<string, any>;
    expect(body['content']).toEqual([
      { type: 'text', text: 'Let me call.' },
      { type: 'tool_use', id: 'toolu_1', name: 'echo', input: { text: 'a "quoted" wörd 🎉' } },
      { type: 'tool_use', id: 'toolu_2', name: 'done', input: { answer: 42 } },
    ]);
    expect(body['stop_reason']).toBe('tool_use');
  });

  it('usage with cached tokens: cache_read_input_tokens, input_tokens the uncached rest', async () => {
    const { server } = await serve(ok(cachedReply));
    const body = (await (await post(server, 'anthropic', first)).json()) as Record<string, any>;
    expect(body['usage']).toEqual({ input_tokens: 176, cache_read_input_tokens: 1024, cache_creation_input_tokens: 0, output_tokens: 5 });
  });

  it('thinking comes first, as a thinking block with a signature', async () => {
    const { server } = await serve(ok(thinkingReply));
    const body = (await (await post(server, 'anthropic', first)).json()) as Record<string, any>;
    expect(body['content']).toEqual([
      { type: 'thinking', thinking: 'Let me think… 🤔', signature: expect.any(String) },
      { type: 'text', text: 'Answer.' },
    ]);
  });
});

describe('Anthropic: streamed replies equal the plain ones', () => {
  for (const [name, reply] of [['text', textReply], ['tool calls', callReply], ['cached usage', cachedReply], ['thinking', thinkingReply]] as const) {
    it(name, async () => {
      const { server } = await serve(ok(reply), ok(reply));
      const plain = (await (await post(server, 'anthropic', first)).json()) as Record<string, any>;
      const res = await post(server, 'anthropic', { ...first, stream: true });
      expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
      const { events } = await readSse(res);
      expect(events[0]!.event).toBe('message_start');
      expect(events.at(-1)!.event).toBe('message_stop');
      const folded = foldAnthropic(events);
      expect(folded['stopped']).toBe(true);
      expect(folded['content']).toEqual(plain['content']);
      expect(folded['stop_reason']).toBe(plain['stop_reason']);
      expect(folded['usage']).toEqual(plain['usage']);
      expect(server.exchanges[1]!.stream).toBe(true);
    });
  }

  it('a tool_use block starts with empty input and grows by input_json_delta', async () => {
    const { server } = await serve(ok(callReply, { split: { argument_chars: 4 } }));
    const { events } = await readSse(await post(server, 'anthropic', { ...first, stream: true }));
    const starts = events.filter((e) => e.event === 'content_block_start').map((e) => JSON.parse(e.data).content_block);
    expect(starts).toEqual([
      { type: 'text', text: '' },
      { type: 'tool_use', id: 'toolu_1', name: 'echo', input: {} },
      { type: 'tool_use', id: 'toolu_2', name: 'done', input: {} },
    ]);
    const deltas = events.filter((e) => e.event === 'content_block_delta').map((e) => JSON.parse(e.data).delta);
    expect(deltas.filter((d) => d.type === 'input_json_delta')[0]).toEqual({ type: 'input_json_delta', partial_json: '{"te' });
  });
});

describe('Anthropic: a round trip with a tool result', () => {
  it('tool_use blocks come back as tool calls, tool_result blocks as tool messages, text after as a user message', async () => {
    const { server, asked } = await serve(ok(callReply), ok(textReply));
    const one = (await (await post(server, 'anthropic', first)).json()) as Record<string, any>;
    const second = {
      ...first,
      messages: [
        ...first.messages,
        { role: 'assistant', content: one['content'] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: 'a "quoted" wörd 🎉' },
            { type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: '42' }], is_error: false },
            { type: 'text', text: 'Carry on.' },
          ],
        },
      ],
    };
    expect((await post(server, 'anthropic', second)).status).toBe(200);
    expect(asked[1]![1].messages.slice(2)).toEqual([
      { role: 'assistant', content: 'Let me call.', tool_calls: [
        { id: 'toolu_1', gate: 'echo', arguments: JSON.stringify({ text: 'a "quoted" wörd 🎉' }) },
        { id: 'toolu_2', gate: 'done', arguments: '{"answer":42}' },
      ] },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'a "quoted" wörd 🎉' },
      { role: 'tool', tool_call_id: 'toolu_2', content: '42' },
      { role: 'user', content: 'Carry on.' },
    ]);
    expect(server.exchanges[1]!.problems).toEqual([]);
  });

  it('system blocks each become a system message', async () => {
    const { asked, server } = await serve(ok(textReply));
    await post(server, 'anthropic', { ...first, system: [{ type: 'text', text: 'One.' }, { type: 'text', text: 'Two.', cache_control: { type: 'ephemeral' } }] });
    expect(asked[0]![1].messages.slice(0, 2)).toEqual([{ role: 'system', content: 'One.' }, { role: 'system', content: 'Two.' }]);
  });
});

describe('Anthropic: tool_choice', () => {
  it.each([
    [{ type: 'auto' }, 'auto'],
    [{ type: 'none' }, 'none'],
    [{ type: 'any' }, 'required'],
    [{ type: 'tool', name: 'echo' }, 'required'],
  ])('%j is read as %s', async (wire, choice) => {
    const { server, asked } = await serve(ok(textReply));
    await post(server, 'anthropic', { ...first, tool_choice: wire });
    expect(asked[0]![1].tool_choice).toBe(choice);
    expect(server.exchanges[0]!.problems).toEqual([]);
  });

  it('a string tool_choice (the OpenAI spelling) is a problem', async () => {
    const { server } = await serve(ok(textReply));
    await post(server, 'anthropic', { ...first, tool_choice: 'required' });
    expect(server.exchanges[0]!.problems.map((p) => p.check)).toEqual(['tool_choice']);
  });
});

describe('Anthropic: wire checks', () => {
  const use = { type: 'tool_use', id: 'toolu_1', name: 'echo', input: { text: 'x' } };
  const result = { type: 'tool_result', tool_use_id: 'toolu_1', content: 'r' };
  const problems = async (body: Record<string, unknown>, headers?: Record<string, string>): Promise<Array<[string, string]>> => {
    const { server } = await serve(ok(textReply));
    expect((await post(server, 'anthropic', { model: 'parent', max_tokens: 10, tools, ...body }, headers ? { headers } : {})).status).toBe(200);
    return server.exchanges[0]!.problems.map((p) => [p.severity, p.check]);
  };

  it('a tool_result answering no tool_use of the previous assistant message', async () => {
    expect(await problems({ messages: [{ role: 'user', content: [result] }] })).toEqual([['error', 'tool_result_unmatched']]);
    const stale = [
      { role: 'user', content: 'x' },
      { role: 'assistant', content: [use] },
      { role: 'user', content: [result] },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: [result] },
    ];
    expect(await problems({ messages: stale })).toEqual([['error', 'tool_result_unmatched']]);
  });

  it('a tool_use whose result is missing from the next user message', async () => {
    const list = [{ role: 'user', content: 'x' }, { role: 'assistant', content: [use] }, { role: 'user', content: 'no result here' }];
    expect(await problems({ messages: list })).toEqual([['error', 'tool_call_unanswered']]);
  });

  it('text before the tool_result in the user message', async () => {
    const list = [{ role: 'user', content: 'x' }, { role: 'assistant', content: [use] }, { role: 'user', content: [{ type: 'text', text: 'first' }, result] }];
    expect(await problems({ messages: list })).toEqual([['error', 'tool_result_position']]);
  });

  it('tool results sent as OpenAI-style tool messages, a system role in messages', async () => {
    const list = [{ role: 'user', content: 'x' }, { role: 'assistant', content: [use] }, { role: 'tool', tool_call_id: 'toolu_1', content: 'r' }];
    expect(await problems({ messages: list })).toEqual([['error', 'role'], ['error', 'tool_call_unanswered']]);
    expect(await problems({ messages: [{ role: 'system', content: 's' }, { role: 'user', content: 'x' }] })).toEqual([['error', 'role']]);
  });

  it('tool_use input as a JSON string instead of an object', async () => {
    const list = [{ role: 'user', content: 'x' }, { role: 'assistant', content: [{ ...use, input: '{"text":"x"}' }] }, { role: 'user', content: [result] }];
    expect(await problems({ messages: list })).toEqual([['error', 'arguments_type']]);
  });

  it('consecutive turns of one role are noted (the API combines them); the checks apply to the combined turn', async () => {
    const list = [
      { role: 'user', content: 'x' },
      { role: 'assistant', content: [use] },
      { role: 'user', content: [result] },
      { role: 'user', content: 'and more' },
    ];
    expect(await problems({ messages: list })).toEqual([['note', 'consecutive_role']]);
  });

  it('a missing max_tokens or anthropic-version header, an input_schema missing', async () => {
    const { server } = await serve(ok(textReply));
    await post(server, 'anthropic', { model: 'parent', messages: [{ role: 'user', content: 'x' }], tools: [{ name: 'echo', description: 'd' }] });
    expect(server.exchanges[0]!.problems.map((p) => p.check)).toEqual(['missing_field', 'tool_definition']);
    const missingVersion = await fetch(`${server.baseUrl('anthropic')}/messages`, {
      method: 'POST',
      headers: { 'x-api-key': server.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'parent', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(missingVersion.status).toBe(500); // the scripted replies ran out: the request itself was served
    expect(server.exchanges[1]!.problems.map((p) => p.check)).toEqual(['header']);
  });
});

/**
 * The OpenAI Chat Completions format of the crystal server: requests read back into the crystal
 * contract, replies (plain and streamed) in the published shapes, and the wire-order checks.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { CrystalRequest, CrystalResponse } from '../../schemas/records.ts';
import { startCrystalServer } from './server.ts';
import type { CrystalServer, ServedReply } from './types.ts';
import { foldOpenAI, post, readSse } from './test-client.ts';

const servers: CrystalServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A server whose crystals answer from a list, recording what they were asked. */
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
  content: null,
  tool_calls: [
    { id: 'tc1', gate: 'echo', arguments: '{"text":"a \\"quoted\\" wörd 🎉"}' },
    { id: 'tc2', gate: 'done', arguments: '{"answer":42}' },
  ],
  usage: { prompt: 30, completion: 9, cached: 0 },
};
const cachedReply: CrystalResponse = { content: 'cached', usage: { prompt: 1200, completion: 5, cached: 1024 } };

const tools = [
  { type: 'function', function: { name: 'echo', description: 'Echoes text.', parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } } },
  { type: 'function', function: { name: 'done', description: 'Finishes.', parameters: { type: 'object', properties: { answer: {} } } } },
];
const first = { model: 'parent', messages: [{ role: 'system', content: 'Be terse.' }, { role: 'user', content: 'Do it' }], tools, tool_choice: 'required', temperature: 0.2, top_p: 0.9, max_tokens: 64, stop: ['END'] };

describe('OpenAI: plain replies', () => {
  it('a text reply: choices[0].message, finish_reason stop, usage', async () => {
    const { server, asked } = await serve(ok(textReply));
    const res = await post(server, 'openai', first);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    const body = (await res.json()) as Record<string, any>;
    expect(body).toMatchObject({
      object: 'chat.completion',
      model: 'parent',
      choices: [{ index: 0, message: { role: 'assistant', content: textReply.content }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19, prompt_tokens_details: { cached_tokens: 0 } },
    });
    expect(body['id']).toMatch(/^chatcmpl-/);
    expect(body['choices'][0].message.tool_calls).toBeUndefined();
    expect(asked).toEqual([
      [
        'parent',
        {
          messages: [{ role: 'system', content: 'Be terse.' }, { role: 'user', content: 'Do it' }],
          tools: [
            { name: 'echo', description: 'Echoes text.', parameters: tools[0]!.function.parameters },
            { name: 'done', description: 'Finishes.', parameters: tools[1]!.function.parameters },
          ],
          tool_choice: 'required',
          hyperparameters: { temperature: 0.2, top_p: 0.9, max_tokens: 64, stop: ['END'] },
        },
      ],
    ]);
    expect(server.exchanges[0]!.problems).toEqual([]);
  });

  it('a tool-call reply: ids kept, arguments a JSON string, finish_reason tool_calls', async () => {
    const { server } = await serve(ok(callReply));
    const body = (await (await post(server, 'openai', first)).json()) as Record<string, any>;
    const message = body['choices'][0].message;
    expect(message.content).toBeNull();
    expect(message.tool_calls).toEqual([
      { id: 'tc1', type: 'function', function: { name: 'echo', arguments: '{"text":"a \\"quoted\\" wörd 🎉"}' } },
      { id: 'tc2', type: 'function', function: { name: 'done', arguments: '{"answer":42}' } },
    ]);
    expect(body['choices'][0].finish_reason).toBe('tool_calls');
  });

  it('usage with cached tokens in prompt_tokens_details.cached_tokens', async () => {
    const { server } = await serve(ok(cachedReply));
    const body = (await (await post(server, 'openai', first)).json()) as Record<string, any>;
    expect(body['usage']).toMatchObject({ prompt_tokens: 1200, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 1024 } });
  });

  it('thinking goes out as reasoning_content', async () => {
    const { server } = await serve(ok({ content: 'x', thinking: 'hmm', usage: { prompt: 1, completion: 1, cached: 0 } }));
    const body = (await (await post(server, 'openai', first)).json()) as Record<string, any>;
    expect(body['choices'][0].message.reasoning_content).toBe('hmm');
  });
});

describe('OpenAI: streamed replies equal the plain ones', () => {
  for (const [name, reply] of [['text', textReply], ['tool calls', callReply], ['cached usage', cachedReply]] as const) {
    it(`${name}`, async () => {
      const { server } = await serve(ok(reply), ok(reply));
      const plain = (await (await post(server, 'openai', first)).json()) as Record<string, any>;
      const res = await post(server, 'openai', { ...first, stream: true, stream_options: { include_usage: true } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
      const { events } = await readSse(res);
      expect(events.at(-1)!.data).toBe('[DONE]');
      for (const e of events.slice(0, -1)) expect(JSON.parse(e.data).object).toBe('chat.completion.chunk');
      const folded = foldOpenAI(events);
      expect(folded['done']).toBe(true);
      expect(folded['choices'][0].message.content).toEqual(plain['choices'][0].message.content);
      expect(folded['choices'][0].message.tool_calls).toEqual(plain['choices'][0].message.tool_calls);
      expect(folded['choices'][0].finish_reason).toBe(plain['choices'][0].finish_reason);
      expect(folded['usage']).toEqual(plain['usage']);
      // The usage chunk comes last, with no choices.
      expect(JSON.parse(events.at(-2)!.data).choices).toEqual([]);
      expect(server.exchanges[1]!.problems).toEqual([]);
    });
  }

  it('a stream that does not ask for usage gets none, and the exchange notes it', async () => {
    const { server } = await serve(ok(cachedReply));
    const { events } = await readSse(await post(server, 'openai', { ...first, stream: true }));
    expect(foldOpenAI(events)['usage']).toBeUndefined();
    expect(server.exchanges[0]!.problems).toEqual([expect.objectContaining({ severity: 'note', check: 'usage_not_requested' })]);
  });

  it('the first chunk of each tool call carries its id and name, later ones only argument pieces', async () => {
    const { server } = await serve(ok(callReply, { split: { argument_chars: 5 } }));
    const { events } = await readSse(await post(server, 'openai', { ...first, stream: true }));
    const pieces = events.filter((e) => e.data !== '[DONE]').flatMap((e) => JSON.parse(e.data).choices[0]?.delta?.tool_calls ?? []);
    expect(pieces[0]).toEqual({ index: 0, id: 'tc1', type: 'function', function: { name: 'echo', arguments: '' } });
    expect(pieces[1]).toEqual({ index: 0, function: { arguments: '{"tex' } });
    expect(pieces.filter((p: any) => p.id !== undefined).map((p: any) => p.id)).toEqual(['tc1', 'tc2']);
  });
});

describe('OpenAI: a round trip with a tool result', () => {
  it('the second request carries the assistant tool calls and the tool messages, read back exactly', async () => {
    const { server, asked } = await serve(ok(callReply), ok(textReply));
    const one = (await (await post(server, 'openai', first)).json()) as Record<string, any>;
    const assistant = one['choices'][0].message;
    const second = {
      ...first,
      messages: [
        ...first.messages,
        { role: 'assistant', content: null, tool_calls: assistant.tool_calls },
        { role: 'tool', tool_call_id: 'tc1', content: 'a "quoted" wörd 🎉' },
        { role: 'tool', tool_call_id: 'tc2', content: [{ type: 'text', text: '42' }] },
      ],
    };
    expect((await post(server, 'openai', second)).status).toBe(200);
    expect(asked[1]![1].messages.slice(2)).toEqual([
      { role: 'assistant', content: null, tool_calls: callReply.tool_calls },
      { role: 'tool', tool_call_id: 'tc1', content: 'a "quoted" wörd 🎉' },
      { role: 'tool', tool_call_id: 'tc2', content: '42' },
    ]);
    expect(server.exchanges[1]!.problems).toEqual([]);
  });
});

describe('OpenAI: tool_choice', () => {
  it.each([
    ['auto', 'auto'],
    ['none', 'none'],
    ['required', 'required'],
    [{ type: 'function', function: { name: 'echo' } }, 'required'],
  ])('%j is read as %s', async (wire, choice) => {
    const { server, asked } = await serve(ok(textReply));
    await post(server, 'openai', { ...first, tool_choice: wire });
    expect(asked[0]![1].tool_choice).toBe(choice);
    if (typeof wire === 'object') expect(server.exchanges[0]!.tool_choice_wire).toEqual(wire);
    expect(server.exchanges[0]!.problems).toEqual([]);
  });

  it('transport options are kept apart from hyperparameters', async () => {
    const { server, asked } = await serve(ok(textReply));
    await post(server, 'openai', { ...first, parallel_tool_calls: false, user: 'u1', stream: false });
    expect(asked[0]![1].hyperparameters).toEqual({ temperature: 0.2, top_p: 0.9, max_tokens: 64, stop: ['END'] });
    expect(server.exchanges[0]!.wire_options).toEqual({ parallel_tool_calls: false, user: 'u1' });
  });
});

describe('OpenAI: wire checks', () => {
  const call = { id: 'c1', type: 'function', function: { name: 'echo', arguments: '{"text":"x"}' } };
  const checks = async (messages: unknown[], extra: Record<string, unknown> = {}): Promise<string[]> => {
    const { server } = await serve(ok(textReply));
    expect((await post(server, 'openai', { model: 'parent', messages, tools, ...extra })).status).toBe(200);
    return server.exchanges[0]!.problems.filter((p) => p.severity === 'error').map((p) => p.check);
  };

  it('a tool message with no assistant tool_calls before it', async () => {
    expect(await checks([{ role: 'user', content: 'x' }, { role: 'tool', tool_call_id: 'c1', content: 'r' }])).toEqual(['tool_result_unmatched']);
  });

  it('a tool message answering an id the previous assistant message did not call', async () => {
    expect(await checks([{ role: 'user', content: 'x' }, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: 'c9', content: 'r' }])).toEqual([
      'tool_result_unmatched',
      'tool_call_unanswered',
    ]);
  });

  it('a tool message that comes after another message, not right after the tool calls', async () => {
    const list = [
      { role: 'user', content: 'x' },
      { role: 'assistant', content: null, tool_calls: [call] },
      { role: 'user', content: 'interjection' },
      { role: 'tool', tool_call_id: 'c1', content: 'r' },
    ];
    expect(await checks(list)).toEqual(['tool_call_unanswered', 'tool_result_unmatched']);
  });

  it('a tool call left unanswered, and one answered twice', async () => {
    expect(await checks([{ role: 'user', content: 'x' }, { role: 'assistant', content: null, tool_calls: [call] }])).toEqual(['tool_call_unanswered']);
    const twice = [
      { role: 'user', content: 'x' },
      { role: 'assistant', content: null, tool_calls: [call] },
      { role: 'tool', tool_call_id: 'c1', content: 'r' },
      { role: 'tool', tool_call_id: 'c1', content: 'r' },
    ];
    expect(await checks(twice)).toEqual(['tool_result_duplicate']);
  });

  it('arguments sent as an object instead of a JSON string; a call without id; a reused id', async () => {
    const bad = { id: 'c1', type: 'function', function: { name: 'echo', arguments: { text: 'x' } } };
    expect(await checks([{ role: 'user', content: 'x' }, { role: 'assistant', content: null, tool_calls: [bad] }, { role: 'tool', tool_call_id: 'c1', content: 'r' }])).toEqual([
      'arguments_type',
    ]);
    const noId = { type: 'function', function: { name: 'echo', arguments: '{}' } };
    expect(await checks([{ role: 'user', content: 'x' }, { role: 'assistant', content: null, tool_calls: [noId] }])).toContain('tool_call_id');
    const reused = [
      { role: 'user', content: 'x' },
      { role: 'assistant', content: null, tool_calls: [call] },
      { role: 'tool', tool_call_id: 'c1', content: 'r' },
      { role: 'assistant', content: null, tool_calls: [call] },
      { role: 'tool', tool_call_id: 'c1', content: 'r' },
    ];
    expect(await checks(reused)).toEqual(['duplicate_tool_call_id']);
  });

  it('an unknown role, a tool_choice without tools', async () => {
    expect(await checks([{ role: 'function', content: 'x' }])).toEqual(['role']);
    const { server } = await serve(ok(textReply));
    await post(server, 'openai', { model: 'parent', messages: [{ role: 'user', content: 'x' }], tool_choice: 'required' });
    expect(server.exchanges[0]!.problems.map((p) => p.check)).toEqual(['tool_choice']);
  });

  it('strict mode answers 400 on an error-level problem, as OpenAI would', async () => {
    const server = await startCrystalServer({ strict: true, answer: async () => ok(textReply) });
    servers.push(server);
    const res = await post(server, 'openai', { model: 'parent', messages: [{ role: 'user', content: 'x' }, { role: 'tool', tool_call_id: 'c1', content: 'r' }] });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { type: 'invalid_request_error', message: expect.stringMatching(/role 'tool'/) } });
  });
});

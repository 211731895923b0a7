/**
 * The Gemini format of the crystal server: the model and method in the path, the key in
 * `x-goog-api-key` or `?key=`, requests read back into the crystal contract (ids of calls sent back
 * without one recovered from what was served), the turn checks (user/model alternate, a
 * functionResponse answers a functionCall of the model turn before), replies plain, as SSE and as a
 * JSON array, and the provider steps in Gemini's own shapes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { CrystalRequest, CrystalResponse } from '../../schemas/records.ts';
import { startCrystalServer } from './server.ts';
import type { CrystalServer, ProviderStep, ServedReply } from './types.ts';
import { foldGemini, postGemini, readSse } from './test-client.ts';

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

const ok = (response: CrystalResponse, provider?: ProviderStep): ServedReply => ({ ok: true, response, ...(provider && { provider }) });
const textReply: CrystalResponse = { content: 'Hello there — ünïcode ✓ 🎉', usage: { prompt: 12, completion: 7, cached: 0 } };
const callReply: CrystalResponse = {
  content: 'Let me call.',
  tool_calls: [
    { id: 'tc1', gate: 'echo', arguments: '{"text":"a \\"quoted\\" wörd 🎉","n":[1,{"k":"日本"}]}' },
    { id: 'tc2', gate: 'done', arguments: '{"answer":42}' },
  ],
  usage: { prompt: 30, completion: 9, cached: 0 },
};
const cachedReply: CrystalResponse = { content: 'cached', usage: { prompt: 1200, completion: 5, cached: 1024 } };
const thinkingReply: CrystalResponse = { content: 'Answer.', thinking: 'Let me think… 🤔', usage: { prompt: 3, completion: 4, cached: 0 } };

const declarations = [
  { name: 'echo', description: 'Echoes text.', parametersJsonSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  { name: 'done', description: 'Finishes.', parametersJsonSchema: { type: 'object', properties: { answer: {} } } },
];
const first = {
  systemInstruction: { parts: [{ text: 'Be terse.' }] },
  contents: [{ role: 'user', parts: [{ text: 'Do it' }] }],
  tools: [{ functionDeclarations: declarations }],
  toolConfig: { functionCallingConfig: { mode: 'ANY' } },
  generationConfig: { temperature: 0.2, topP: 0.9, maxOutputTokens: 64, stopSequences: ['END'] },
};
/** The conversation after `callReply`, as a Gemini client sends it back: calls without ids, results matched by name. */
const second = {
  ...first,
  contents: [
    ...first.contents,
    {
      role: 'model',
      parts: [
        { text: 'Let me call.' },
        { functionCall: { name: 'echo', args: { text: 'a "quoted" wörd 🎉', n: [1, { k: '日本' }] } } },
        { functionCall: { name: 'done', args: { answer: 42 } } },
      ],
    },
    {
      role: 'user',
      parts: [
        { functionResponse: { name: 'echo', response: { result: 'echoed' } } },
        { functionResponse: { name: 'done', response: { output: { accepted: true } } } },
      ],
    },
  ],
};

function checks(server: CrystalServer, seq: number): string[] {
  return server.exchanges[seq]!.problems.filter((p) => p.severity === 'error').map((p) => p.check);
}

describe('Gemini: the request read back into the crystal contract', () => {
  it('model and method from the path; system, contents, tools, ANY → required, generationConfig → hyperparameters', async () => {
    const { server, asked } = await serve(ok(textReply));
    const res = await postGemini(server, first, { model: 'parent' });
    expect(res.status).toBe(200);
    expect(asked).toEqual([
      [
        'parent',
        {
          messages: [{ role: 'system', content: 'Be terse.' }, { role: 'user', content: 'Do it' }],
          tools: [
            { name: 'echo', description: 'Echoes text.', parameters: declarations[0]!.parametersJsonSchema },
            { name: 'done', description: 'Finishes.', parameters: declarations[1]!.parametersJsonSchema },
          ],
          tool_choice: 'required',
          hyperparameters: { temperature: 0.2, top_p: 0.9, max_tokens: 64, stop: ['END'] },
        },
      ],
    ]);
    expect(server.exchanges[0]).toMatchObject({ format: 'gemini', crystal: 'parent', stream: false, path: '/v1beta/models/parent:generateContent' });
    expect(server.exchanges[0]!.problems).toEqual([]);
  });

  it('CRYSTAL-4: calls sent back without ids get the ids that were served; each functionResponse is linked to its call', async () => {
    const { server, asked } = await serve(ok(callReply), ok(textReply));
    await postGemini(server, first);
    await postGemini(server, second);
    expect(asked[1]![1].messages.slice(2)).toEqual([
      { role: 'assistant', content: 'Let me call.', tool_calls: callReply.tool_calls },
      { role: 'tool', tool_call_id: 'tc1', content: 'echoed' },
      { role: 'tool', tool_call_id: 'tc2', content: '{"output":{"accepted":true}}' },
    ]);
    expect(server.exchanges[1]!.problems).toEqual([]);
  });

  it('calls served to another crystal are recovered too (a fork that moved the conversation)', async () => {
    const { server, asked } = await serve(ok(callReply), ok(textReply));
    await postGemini(server, first, { model: 'first_model' });
    await postGemini(server, second, { model: 'second_model' });
    expect(asked[1]![1].messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(['tc1', 'tc2']);
    expect(server.exchanges[1]!.problems).toEqual([]);
  });

  it('ids the client sends back (functionCall.id, functionResponse.id) are taken as sent', async () => {
    const { server, asked } = await serve(ok(callReply), ok(textReply));
    await postGemini(server, first);
    const withIds = structuredClone(second);
    (withIds.contents[1]!.parts[1] as any).functionCall.id = 'mine-1';
    (withIds.contents[1]!.parts[2] as any).functionCall.id = 'mine-2';
    (withIds.contents[2]!.parts[0] as any).functionResponse.id = 'mine-1';
    (withIds.contents[2]!.parts[1] as any).functionResponse.id = 'mine-2';
    await postGemini(server, withIds);
    const tools = asked[1]![1].messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
    expect(tools).toEqual(['mine-1', 'mine-2']);
    expect(asked[1]![1].messages[2]!.tool_calls!.map((c) => c.id)).toEqual(['mine-1', 'mine-2']);
    expect(checks(server, 1)).toEqual([]);
  });

  it('the key in the key query parameter is accepted and never recorded', async () => {
    const { server } = await serve(ok(textReply));
    const res = await postGemini(server, first, { keyInQuery: true });
    expect(res.status).toBe(200);
    expect(JSON.stringify(server.exchanges)).not.toContain(server.apiKey);
    expect(server.exchanges[0]!.path).not.toContain('key');
  });

  it('a missing key is 403 PERMISSION_DENIED, a wrong one 400 API_KEY_INVALID, and the callback is not reached', async () => {
    const { server, asked } = await serve(ok(textReply));
    const missing = await postGemini(server, first, { key: null });
    expect(missing.status).toBe(403);
    expect(((await missing.json()) as any).error).toMatchObject({ code: 403, status: 'PERMISSION_DENIED' });
    const wrong = await postGemini(server, first, { key: 'wrong', keyInQuery: true });
    expect(wrong.status).toBe(400);
    const body = (await wrong.json()) as any;
    expect(body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect(body.error.details[0].reason).toBe('API_KEY_INVALID');
    expect(asked).toEqual([]);
    expect(server.exchanges.map((e) => e.auth)).toEqual(['missing', 'wrong']);
  });

  it('an unknown model is 404 NOT_FOUND when the crystals are listed', async () => {
    const server = await startCrystalServer({ answer: async () => ok(textReply), crystals: ['parent'] });
    servers.push(server);
    const res = await postGemini(server, first, { model: 'other' });
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
  });

  it('no contents is a 400 INVALID_ARGUMENT; an unknown top-level field an error-level problem', async () => {
    const { server } = await serve(ok(textReply));
    const res = await postGemini(server, { contents: [] });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.status).toBe('INVALID_ARGUMENT');
    await postGemini(server, { ...first, temperature: 0.3 });
    expect(checks(server, 1)).toEqual(['unknown_field']);
  });
});

describe('Gemini: wire checks', () => {
  async function problemsOf(body: unknown, served: ServedReply[] = []): Promise<string[]> {
    const { server } = await serve(...served, ok(textReply));
    for (let i = 0; i < served.length; i++) await postGemini(server, first);
    await postGemini(server, body);
    return checks(server, served.length);
  }

  it('user and model turns must alternate', async () => {
    const twice = { contents: [{ role: 'user', parts: [{ text: 'a' }] }, { role: 'user', parts: [{ text: 'b' }] }] };
    expect(await problemsOf(twice)).toEqual(['consecutive_role']);
  });

  it("a role other than user or model ('assistant', 'system', 'tool') is an error", async () => {
    for (const role of ['assistant', 'system', 'tool']) {
      expect(await problemsOf({ contents: [{ role: 'user', parts: [{ text: 'a' }] }, { role, parts: [{ text: 'b' }] }] })).toContain('role');
    }
  });

  it('a functionResponse must answer a functionCall of the model turn right before it', async () => {
    const stray = { contents: [{ role: 'user', parts: [{ text: 'a' }] }, { role: 'model', parts: [{ text: 'no calls' }] }, { role: 'user', parts: [{ functionResponse: { name: 'echo', response: { result: 'x' } } }] }] };
    expect(await problemsOf(stray)).toEqual(['tool_result_unmatched']);
    const wrongName = structuredClone(second);
    (wrongName.contents[2]!.parts[0] as any).functionResponse.name = 'other';
    expect(await problemsOf(wrongName, [ok(callReply)])).toEqual(['tool_result_unmatched', 'tool_call_unanswered']);
  });

  it('every functionCall of a model turn is answered in the next turn', async () => {
    const half = structuredClone(second);
    half.contents[2]!.parts.pop();
    expect(await problemsOf(half, [ok(callReply)])).toEqual(['tool_call_unanswered']);
    const dangling = { ...second, contents: second.contents.slice(0, 2) };
    expect(await problemsOf(dangling, [ok(callReply)])).toEqual(['tool_call_unanswered']);
  });

  it('a functionCall turn must come right after a user turn; args must be an object', async () => {
    const opening = { contents: [{ role: 'model', parts: [{ functionCall: { name: 'echo', args: 'text' } }] }, { role: 'user', parts: [{ functionResponse: { name: 'echo', response: { result: 'x' } } }] }] };
    const found = await problemsOf(opening);
    expect(found).toContain('role_order');
    expect(found).toContain('arguments_type');
  });

  it('ANY without declarations, allowedFunctionNames naming no declaration, and an unknown mode are errors', async () => {
    expect(await problemsOf({ contents: first.contents, toolConfig: { functionCallingConfig: { mode: 'ANY' } } })).toEqual(['tool_choice']);
    expect(await problemsOf({ ...first, toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['nope'] } } })).toEqual(['tool_choice']);
    expect(await problemsOf({ ...first, toolConfig: { functionCallingConfig: { mode: 'REQUIRED' } } })).toEqual(['tool_choice']);
  });
});

describe('Gemini: replies', () => {
  it('a text reply: one candidate of the model role, STOP, usageMetadata', async () => {
    const { server } = await serve(ok(textReply));
    const body = (await (await postGemini(server, first)).json()) as any;
    expect(body).toEqual({
      candidates: [{ content: { role: 'model', parts: [{ text: textReply.content }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 7, totalTokenCount: 19 },
      modelVersion: 'parent',
      responseId: expect.stringMatching(/^resp-/),
    });
  });

  it('calls: functionCall parts with the served id, args an object; thinking as a thought part first', async () => {
    const { server } = await serve(ok(callReply), ok(thinkingReply));
    const calls = (await (await postGemini(server, first)).json()) as any;
    expect(calls.candidates[0].content.parts).toEqual([
      { text: 'Let me call.' },
      { functionCall: { id: 'tc1', name: 'echo', args: { text: 'a "quoted" wörd 🎉', n: [1, { k: '日本' }] } } },
      { functionCall: { id: 'tc2', name: 'done', args: { answer: 42 } } },
    ]);
    const thinking = (await (await postGemini(server, first)).json()) as any;
    expect(thinking.candidates[0].content.parts).toEqual([{ text: 'Let me think… 🤔', thought: true }, { text: 'Answer.' }]);
  });

  it('LOOM-9: cached tokens in cachedContentTokenCount, promptTokenCount the whole prompt', async () => {
    const { server } = await serve(ok(cachedReply));
    const body = (await (await postGemini(server, first)).json()) as any;
    expect(body.usageMetadata).toEqual({ promptTokenCount: 1200, candidatesTokenCount: 5, totalTokenCount: 1205, cachedContentTokenCount: 1024 });
  });

  for (const [name, reply] of [['text', textReply], ['calls', callReply], ['cached usage', cachedReply], ['thinking', thinkingReply]] as const) {
    it(`streamed (${name}): SSE chunks with CRLF line ends fold to exactly the plain reply`, async () => {
      const { server } = await serve(ok(reply), ok(reply));
      const plain = (await (await postGemini(server, first)).json()) as any;
      const res = await postGemini(server, first, { stream: true });
      expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
      const { events, chunks } = await readSse(res);
      expect(Buffer.concat(chunks).toString('utf8')).toMatch(/^data: .*\r\n\r\n/);
      expect(server.exchanges[1]).toMatchObject({ stream: true, path: '/v1beta/models/parent:streamGenerateContent' });
      const folded = foldGemini(events);
      expect(folded).toEqual({ ...plain, responseId: folded['responseId'] });
    });
  }

  it('without alt=sse the stream is one JSON array of the same chunks', async () => {
    const { server } = await serve(ok(callReply), ok(callReply));
    const sse = await readSse(await postGemini(server, first, { stream: true }));
    const res = await postGemini(server, first, { stream: true, sse: false });
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    const array = (await res.json()) as unknown[];
    expect(array.map((c: any) => ({ ...c, responseId: 'x' }))).toEqual(sse.events.map((e) => ({ ...JSON.parse(e.data), responseId: 'x' })));
    expect(server.exchanges[1]!.problems.map((p) => p.check)).toEqual(['stream_framing']);
  });
});

describe('Gemini: provider steps', () => {
  it.each([
    [429, 'RESOURCE_EXHAUSTED'],
    [500, 'INTERNAL'],
    [503, 'UNAVAILABLE'],
    [400, 'INVALID_ARGUMENT'],
    [401, 'UNAUTHENTICATED'],
    [404, 'NOT_FOUND'],
  ])('status %i: {error: {code, message, status: %s}}, plain and streamed', async (status, name) => {
    const step: ProviderStep = { status };
    const { server } = await serve(ok(textReply, step), ok(textReply, step));
    for (const stream of [false, true]) {
      const res = await postGemini(server, first, { stream });
      expect(res.status).toBe(status);
      expect(await res.json()).toEqual({ error: { code: status, message: expect.any(String), status: name } });
    }
  });

  it('429 with a wait: a retry-after header and RetryInfo in the body', async () => {
    const { server } = await serve(ok(textReply, { status: 429, retry_after: 2 }));
    const res = await postGemini(server, first);
    expect(res.headers.get('retry-after')).toBe('2');
    expect(((await res.json()) as any).error.details).toEqual([{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '2s' }]);
  });

  it('CRYSTAL-2: an overflow is 400 INVALID_ARGUMENT "The input token count (N) exceeds the maximum number of tokens allowed (M)."', async () => {
    const overflow: ServedReply = { ok: false, error: { code: 'context_limit_exceeded', message: 'request of ~1234 tokens exceeds the window of 1000' } };
    const { server } = await serve(overflow, ok(textReply, { overflow: { tokens: 250000, limit: 200000 } }));
    const a = await postGemini(server, first, { stream: true });
    expect(a.status).toBe(400);
    expect(await a.json()).toEqual({ error: { code: 400, message: 'The input token count (1234) exceeds the maximum number of tokens allowed (1000).', status: 'INVALID_ARGUMENT' } });
    const b = (await (await postGemini(server, first)).json()) as any;
    expect(b.error.message).toBe('The input token count (250000) exceeds the maximum number of tokens allowed (200000).');
  });

  it('malformed bodies: truncated, not JSON, no candidates', async () => {
    const { server } = await serve(ok(callReply, { malformed: 'truncated' }), ok(callReply, { malformed: 'truncated' }), ok(callReply, { malformed: 'not_json' }), ok(callReply, { malformed: 'wrong_shape' }));
    const plain = await (await postGemini(server, first)).text();
    expect(() => JSON.parse(plain)).toThrow();
    const streamed = await (await postGemini(server, first, { stream: true })).text();
    expect(streamed.endsWith('\r\n\r\n')).toBe(false);
    const notJson = await (await postGemini(server, first)).text();
    expect(() => JSON.parse(notJson)).toThrow();
    expect(((await (await postGemini(server, first)).json()) as any).candidates).toEqual([]);
  });

  it('tool_call_ids omit: functionCall parts without ids, plain and streamed', async () => {
    const { server } = await serve(ok(callReply, { tool_call_ids: 'omit' }), ok(callReply, { tool_call_ids: 'omit' }));
    const plain = (await (await postGemini(server, first)).json()) as any;
    const folded = foldGemini((await readSse(await postGemini(server, first, { stream: true }))).events);
    for (const body of [plain, folded]) {
      const calls = body.candidates[0].content.parts.filter((p: any) => p.functionCall);
      expect(calls.map((p: any) => 'id' in p.functionCall)).toEqual([false, false]);
    }
  });

  it('a raw finish reason; an in-stream error chunk {error} after n events', async () => {
    const { server } = await serve(ok(textReply, { finish_reason: 'MAX_TOKENS' }), ok(callReply, { stream_error_after: { events: 2, message: 'Overloaded' } }));
    expect(((await (await postGemini(server, first)).json()) as any).candidates[0].finishReason).toBe('MAX_TOKENS');
    const { events } = await readSse(await postGemini(server, first, { stream: true }));
    expect(events).toHaveLength(3);
    expect(JSON.parse(events[2]!.data)).toEqual({ error: { code: 503, message: 'Overloaded', status: 'UNAVAILABLE' } });
  });

  it('an awkward split cuts text into 1-2 character parts and bytes inside characters, and still folds to the plain reply', async () => {
    const { server } = await serve(ok(callReply), ok(callReply, { split: 'awkward' }));
    const plain = (await (await postGemini(server, first)).json()) as any;
    const { events, chunks } = await readSse(await postGemini(server, first, { stream: true }));
    expect(events.length).toBeGreaterThan(5);
    const strict = new TextDecoder('utf-8', { fatal: true });
    const inside = chunks.filter((c) => {
      try {
        strict.decode(c);
        return false;
      } catch {
        return true;
      }
    });
    expect(inside.length).toBeGreaterThan(0);
    const folded = foldGemini(events);
    expect(folded).toEqual({ ...plain, responseId: folded['responseId'] });
  });
});

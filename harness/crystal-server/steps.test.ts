/**
 * Provider-level steps of the crystal server, in both formats: error statuses with and without
 * `retry-after`, the context overflow in each format's shape, malformed bodies, tool calls without
 * ids, finish reasons, in-stream errors, and streams cut at awkward places (inside JSON arguments,
 * inside multi-byte UTF-8 characters) that still reassemble to the plain reply.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { CrystalResponse } from '../../schemas/records.ts';
import { startCrystalServer } from './server.ts';
import type { CrystalServer, ProviderStep, ServedReply, WireFormat } from './types.ts';
import { foldAnthropic, foldOpenAI, post, readSse } from './test-client.ts';
import { cutBytes, endsInsideCharacter } from './wire-util.ts';

const servers: CrystalServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(...replies: ServedReply[]): Promise<CrystalServer> {
  const server = await startCrystalServer({
    answer: async () => {
      const next = replies.shift();
      if (!next) throw new Error('no reply left');
      return next;
    },
  });
  servers.push(server);
  return server;
}

/** Gemini's steps are tested in gemini.test.ts. */
type Format = Exclude<WireFormat, 'gemini'>;
const FORMATS: Format[] = ['openai', 'anthropic'];
const request = (format: WireFormat, stream = false): Record<string, unknown> =>
  format === 'openai'
    ? { model: 'parent', messages: [{ role: 'user', content: 'go' }], ...(stream && { stream: true, stream_options: { include_usage: true } }) }
    : { model: 'parent', max_tokens: 100, messages: [{ role: 'user', content: 'go' }], ...(stream && { stream: true }) };

const reply: CrystalResponse = {
  content: 'Voilà — ünïcödé 日本語 ✓ 🎉🎉 done',
  tool_calls: [
    { id: 'tc1', gate: 'echo', arguments: '{"text":"a \\"quoted\\" wörd 🎉","n":[1,2,{"k":"日本"}]}' },
    { id: 'tc2', gate: 'done', arguments: '{"answer":"fin ✓"}' },
  ],
  usage: { prompt: 120, completion: 17, cached: 64 },
};
const ok = (provider?: ProviderStep): ServedReply => ({ ok: true, response: reply, ...(provider && { provider }) });

function errorShape(format: WireFormat, body: any): { message: string; kind: string } {
  if (format === 'openai') {
    expect(body).toEqual({ error: { message: expect.any(String), type: expect.any(String), param: null, code: body.error?.code ?? null } });
    expect(body.error.code === null || typeof body.error.code === 'string').toBe(true);
    return { message: body.error.message, kind: body.error.type };
  }
  expect(body).toEqual({ type: 'error', error: { type: expect.any(String), message: expect.any(String) } });
  return { message: body.error.message, kind: body.error.type };
}

describe.each(FORMATS)('%s: error statuses', (format) => {
  const expectedType: Record<number, Record<Format, string>> = {
    400: { openai: 'invalid_request_error', anthropic: 'invalid_request_error' },
    401: { openai: 'invalid_request_error', anthropic: 'authentication_error' },
    404: { openai: 'invalid_request_error', anthropic: 'not_found_error' },
    429: { openai: 'requests', anthropic: 'rate_limit_error' },
    500: { openai: 'server_error', anthropic: 'api_error' },
    503: { openai: 'server_error', anthropic: 'api_error' },
    529: { openai: 'server_error', anthropic: 'overloaded_error' },
  };

  it.each([
    [429, 2],
    [429, undefined],
    [500, undefined],
    [503, 1],
    [400, undefined],
    [401, undefined],
    [404, undefined],
    [529, undefined],
  ])('status %i (retry-after %s), plain and streamed', async (status, retryAfter) => {
    const step: ProviderStep = { status, ...(retryAfter !== undefined && { retry_after: retryAfter }) };
    const server = await serve(ok(step), ok(step));
    for (const stream of [false, true]) {
      const res = await post(server, format, request(format, stream));
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      expect(res.headers.get('retry-after')).toBe(retryAfter === undefined ? null : String(retryAfter));
      expect(errorShape(format, await res.json()).kind).toBe(expectedType[status]![format]);
    }
  });

  it('a failed reply with a status uses it, with its message; one without a status is a 400', async () => {
    const server = await serve({ ok: false, error: { status: 503, message: 'scripted outage', code: 'overloaded' } }, { ok: false, error: { message: 'no scripted response left' } });
    const a = await post(server, format, request(format));
    expect(a.status).toBe(503);
    expect(errorShape(format, await a.json()).message).toBe('scripted outage');
    const b = await post(server, format, request(format));
    expect(b.status).toBe(400);
    expect(errorShape(format, await b.json()).message).toBe('no scripted response left');
  });

  it('a body given with the status goes out verbatim, with extra headers', async () => {
    const server = await serve(ok({ status: 502, body: '<html>bad gateway</html>', headers: { 'x-upstream': 'down' } }));
    const res = await post(server, format, request(format));
    expect(res.status).toBe(502);
    expect(res.headers.get('x-upstream')).toBe('down');
    expect(await res.text()).toBe('<html>bad gateway</html>');
  });
});

describe('context overflow in each format', () => {
  const overflow: ServedReply = { ok: false, error: { code: 'context_limit_exceeded', message: 'request of ~1234 tokens exceeds the window of 1000' } };

  it('OpenAI: 400 invalid_request_error with code context_length_exceeded, plain or streamed', async () => {
    const server = await serve(overflow, overflow, ok({ overflow: true }));
    for (const stream of [false, true, false]) {
      const res = await post(server, 'openai', request('openai', stream));
      expect(res.status).toBe(400);
      const body = (await res.json()) as any;
      expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'context_length_exceeded', param: 'messages' });
      if (server.exchanges.length < 3) expect(body.error.message).toBe("This model's maximum context length is 1000 tokens. However, your messages resulted in 1234 tokens. Please reduce the length of the messages.");
    }
  });

  it('Anthropic: 400 invalid_request_error "prompt is too long: N tokens > M maximum"', async () => {
    const server = await serve(overflow, ok({ overflow: { tokens: 250000, limit: 200000 } }));
    const a = await post(server, 'anthropic', request('anthropic', true));
    expect(a.status).toBe(400);
    expect(await a.json()).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 1234 tokens > 1000 maximum' } });
    const b = await post(server, 'anthropic', request('anthropic'));
    expect(((await b.json()) as any).error.message).toBe('prompt is too long: 250000 tokens > 200000 maximum');
  });
});

describe.each(FORMATS)('%s: malformed bodies', (format) => {
  it('truncated: a plain body that stops mid-JSON; a stream that stops mid-event with no final event', async () => {
    const server = await serve(ok({ malformed: 'truncated' }), ok({ malformed: 'truncated' }));
    const plain = await post(server, format, request(format));
    expect(plain.status).toBe(200);
    const text = await plain.text();
    expect(() => JSON.parse(text)).toThrow();
    expect(text.length).toBeGreaterThan(20);
    const res = await post(server, format, request(format, true));
    const raw = await res.text();
    expect(raw).not.toMatch(format === 'openai' ? /\[DONE\]/ : /message_stop/);
    expect(raw.endsWith('\n\n')).toBe(false);
  });

  it('not_json: text that is not JSON; in a stream one event whose data is not JSON', async () => {
    const server = await serve(ok({ malformed: 'not_json' }), ok({ malformed: 'not_json' }));
    const text = await (await post(server, format, request(format))).text();
    expect(() => JSON.parse(text)).toThrow();
    const { events } = await readSse(await post(server, format, request(format, true)));
    const bad = events.filter((e) => e.data !== '[DONE]').filter((e) => {
      try {
        JSON.parse(e.data);
        return false;
      } catch {
        return true;
      }
    });
    expect(bad).toHaveLength(1);
  });

  it('wrong_shape: valid JSON that is not a reply; {text}: exactly that body', async () => {
    const server = await serve(ok({ malformed: 'wrong_shape' }), ok({ malformed: { text: '{"surprise": true}' } }));
    const body = (await (await post(server, format, request(format))).json()) as any;
    if (format === 'openai') expect(body.choices).toEqual([]);
    else expect(body.content).toBeNull();
    expect(await (await post(server, format, request(format))).text()).toBe('{"surprise": true}');
  });
});

describe.each(FORMATS)('%s: tool calls without ids', (format) => {
  it.each(['omit', 'empty'] as const)('%s, plain and streamed', async (mode) => {
    const server = await serve(ok({ tool_call_ids: mode }), ok({ tool_call_ids: mode }));
    const plain = (await (await post(server, format, request(format))).json()) as any;
    const { events } = await readSse(await post(server, format, request(format, true)));
    const calls =
      format === 'openai'
        ? [plain.choices[0].message.tool_calls, foldOpenAI(events)['choices'][0].message.tool_calls]
        : [plain.content.filter((b: any) => b.type === 'tool_use'), foldAnthropic(events)['content'].filter((b: any) => b.type === 'tool_use')];
    for (const list of calls) {
      expect(list).toHaveLength(2);
      for (const call of list) {
        if (mode === 'omit') expect('id' in call).toBe(false);
        else expect(call.id).toBe('');
      }
    }
  });
});

describe.each(FORMATS)('%s: finish reasons and in-stream errors', (format) => {
  it('a raw finish reason overrides the derived one', async () => {
    const wire = format === 'openai' ? 'length' : 'max_tokens';
    const server = await serve(ok({ finish_reason: wire }), ok({ finish_reason: wire }));
    const plain = (await (await post(server, format, request(format))).json()) as any;
    const { events } = await readSse(await post(server, format, request(format, true)));
    if (format === 'openai') {
      expect(plain.choices[0].finish_reason).toBe('length');
      expect(foldOpenAI(events)['choices'][0].finish_reason).toBe('length');
    } else {
      expect(plain.stop_reason).toBe('max_tokens');
      expect(foldAnthropic(events)['stop_reason']).toBe('max_tokens');
    }
  });

  it('a stream that fails after three events with the format error event', async () => {
    const server = await serve(ok({ stream_error_after: { events: 3, message: 'Overloaded' } }));
    const res = await post(server, format, request(format, true));
    expect(res.status).toBe(200);
    const { events } = await readSse(res);
    expect(events).toHaveLength(4);
    const last = JSON.parse(events[3]!.data);
    if (format === 'openai') expect(last).toMatchObject({ error: { message: 'Overloaded', type: 'server_error' } });
    else {
      expect(events[3]!.event).toBe('error');
      expect(last).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    }
  });
});

describe.each(FORMATS)('%s: streams cut at awkward places', (format) => {
  it('reassemble to exactly the plain reply', async () => {
    const server = await serve(ok(), ok({ split: 'awkward' }));
    const plain = (await (await post(server, format, request(format))).json()) as any;
    const res = await post(server, format, request(format, true));
    const { events, chunks } = await readSse(res);
    const exchange = server.exchanges[1]!;
    expect(exchange.streamed!.pieces).toBeGreaterThan(exchange.streamed!.events * 3);
    // Pieces arrive apart, and some begin or end inside a multi-byte character.
    expect(chunks.length).toBeGreaterThan(10);
    const strict = new TextDecoder('utf-8', { fatal: true });
    const broken = chunks.filter((c) => {
      try {
        strict.decode(c);
        return false;
      } catch {
        return true;
      }
    });
    expect(broken.length).toBeGreaterThan(0);
    if (format === 'openai') {
      const folded = foldOpenAI(events);
      expect(folded['choices'][0].message.content).toBe(plain.choices[0].message.content);
      expect(folded['choices'][0].message.tool_calls).toEqual(plain.choices[0].message.tool_calls);
      expect(folded['usage']).toEqual(plain.usage);
      // Argument deltas end inside strings and escapes: one ends with the backslash of \".
      const argPieces = events
        .filter((e) => e.data !== '[DONE]')
        .flatMap((e) => JSON.parse(e.data).choices[0]?.delta?.tool_calls ?? [])
        .map((p: any) => p.function?.arguments ?? '');
      expect(argPieces.some((p: string) => p.endsWith('\\'))).toBe(true);
    } else {
      const folded = foldAnthropic(events);
      expect(folded['content']).toEqual(plain.content);
      expect(folded['usage']).toEqual(plain.usage);
      const partial = events.map((e) => JSON.parse(e.data)).filter((d) => d.delta?.type === 'input_json_delta').map((d) => d.delta.partial_json as string);
      expect(partial.some((p) => p.endsWith('\\'))).toBe(true);
    }
  });

  it('a fixed byte stride reassembles too', async () => {
    const server = await serve(ok({ split: { bytes: 5, text_chars: 1, argument_chars: 1, pause_ms: 0 } }));
    const { events } = await readSse(await post(server, format, request(format, true)));
    const calls = format === 'openai' ? foldOpenAI(events)['choices'][0].message.tool_calls.map((c: any) => c.function.arguments) : foldAnthropic(events)['content'].filter((b: any) => b.type === 'tool_use').map((b: any) => JSON.stringify(b.input));
    expect(calls).toEqual(reply.tool_calls!.map((c) => JSON.stringify(JSON.parse(c.arguments))));
  });
});

describe('cutBytes', () => {
  it('awkward cuts fall inside every multi-byte character and the pieces rejoin to the input', () => {
    const frames = ['data: {"t":"é"}\n\n', 'data: {"t":"日本🎉"}\n\n'];
    const pieces = cutBytes(frames, 'awkward');
    expect(Buffer.concat(pieces).toString('utf8')).toBe(frames.join(''));
    const ends = new Set<number>();
    let offset = 0;
    for (const p of pieces) ends.add((offset += p.length));
    const all = Buffer.from(frames.join(''));
    for (let i = 0; i < all.length; i++) if ((all[i] ?? 0) >= 0xc0) expect(ends.has(i + 1)).toBe(true);
  });

  it('the pieces that end inside a character are exactly the ones after a lead byte (where the server pauses)', () => {
    const frames = ['data: {"t":"é"}\n\n', 'data: {"t":"日本🎉 plain ascii text"}\n\n'];
    const pieces = cutBytes(frames, 'awkward');
    const inside = pieces.filter(endsInsideCharacter);
    expect(inside.length).toBe(4);
    for (const p of inside) expect(p[p.length - 1]! >= 0xc0).toBe(true);
    expect(endsInsideCharacter(Buffer.from('🎉'))).toBe(false);
    expect(endsInsideCharacter(Buffer.from('🎉').subarray(0, 3))).toBe(true);
  });
});

/**
 * The crystal server's own guarantees: loopback only, the per-run key required in each format's
 * header, the key never recorded, every socket closed by close() (even mid-request), and the
 * answers to requests it cannot serve.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { request as httpRequest, Agent } from 'node:http';
import { networkInterfaces } from 'node:os';
import type { CrystalRequest } from '../../schemas/records.ts';
import { startCrystalServer } from './server.ts';
import type { CrystalServer, CrystalServerOptions, ServedReply } from './types.ts';
import { post, postGemini, readSse } from './test-client.ts';

const servers: CrystalServer[] = [];
async function start(options: Partial<CrystalServerOptions> = {}): Promise<CrystalServer> {
  const server = await startCrystalServer({
    answer: async () => ({ ok: true, response: { content: 'hello', usage: { prompt: 10, completion: 2, cached: 0 } } }),
    ...options,
  });
  servers.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const openaiBody = { model: 'parent', messages: [{ role: 'user', content: 'hi' }] };
const anthropicBody = { model: 'parent', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] };

/** Resolves true when a TCP connection to host:port succeeds, false when it is refused. */
function canConnect(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.setTimeout(2000, () => {
      socket.destroy();
      resolve(false);
    });
  });
}

describe('binding', () => {
  it('listens on 127.0.0.1 at an ephemeral port, and gives base URLs there', async () => {
    const server = await start();
    expect(server.port).toBeGreaterThan(0);
    expect(server.origin).toBe(`http://127.0.0.1:${server.port}`);
    expect(server.baseUrl('openai')).toBe(`${server.origin}/v1`);
    expect(server.baseUrl('anthropic')).toBe(`${server.origin}/v1`);
    expect(await canConnect(server.port)).toBe(true);
  });

  it('is not reachable on any other interface', async () => {
    const server = await start();
    const others = Object.values(networkInterfaces())
      .flat()
      .filter((a) => a !== undefined && !a.internal && a.family === 'IPv4')
      .map((a) => a!.address);
    for (const address of others) expect(await canConnect(server.port, address)).toBe(false);
    // IPv6 loopback is another interface too.
    expect(await canConnect(server.port, '::1')).toBe(false);
  });

  it('two servers get two ports and two keys', async () => {
    const a = await start();
    const b = await start();
    expect(a.port).not.toBe(b.port);
    expect(a.apiKey).not.toBe(b.apiKey);
    expect(a.apiKey.length).toBeGreaterThanOrEqual(32);
  });
});

describe('the API key', () => {
  it('OpenAI: missing or wrong Bearer key gets 401 in the OpenAI error shape; the right one is served', async () => {
    let answered = 0;
    const server = await start({ answer: async () => (answered++, { ok: true, response: { content: 'x', usage: { prompt: 1, completion: 1, cached: 0 } } }) });
    for (const key of [null, 'wrong-key', '']) {
      const res = await post(server, 'openai', openaiBody, { key });
      expect(res.status).toBe(401);
      const body = (await res.json()) as { error: { message: string; type: string; code: unknown } };
      expect(body.error.type).toBe('invalid_request_error');
      expect(typeof body.error.message).toBe('string');
    }
    // The Anthropic header does not authorize an OpenAI request.
    const other = await post(server, 'openai', openaiBody, { key: null, headers: { 'x-api-key': server.apiKey } });
    expect(other.status).toBe(401);
    expect(answered).toBe(0);
    expect((await post(server, 'openai', openaiBody)).status).toBe(200);
    expect(answered).toBe(1);
    expect(server.exchanges.map((e) => e.auth)).toEqual(['missing', 'wrong', 'wrong', 'missing', 'ok']);
  });

  it('Anthropic: missing or wrong x-api-key gets 401 authentication_error', async () => {
    const server = await start();
    for (const key of [null, 'wrong-key']) {
      const res = await post(server, 'anthropic', anthropicBody, { key });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ type: 'error', error: { type: 'authentication_error', message: expect.any(String) } });
    }
    const bearer = await post(server, 'anthropic', anthropicBody, { key: null, headers: { authorization: `Bearer ${server.apiKey}` } });
    expect(bearer.status).toBe(401);
    expect((await post(server, 'anthropic', anthropicBody)).status).toBe(200);
  });

  it('never records the key: a canary key appears in no exchange, problem, reply or error', async () => {
    const canary = 'canary-XYZ-7f3a9c';
    const server = await start({
      apiKey: canary,
      // A crystal that echoes whatever it was sent, and a failing one, so every path is taken.
      answer: async (crystal: string, request: CrystalRequest): Promise<ServedReply> => {
        if (crystal === 'boom') throw new Error(`callback saw ${JSON.stringify(request)}`);
        return { ok: true, response: { content: JSON.stringify(request), usage: { prompt: 1, completion: 1, cached: 0 } } };
      },
    });
    const leaky = { model: `m-${canary}`, messages: [{ role: 'user', content: `my key is ${canary}` }, { role: 'tool', tool_call_id: canary, content: canary }] };
    await post(server, 'openai', leaky);
    await post(server, 'openai', { ...leaky, stream: true });
    await post(server, 'anthropic', { ...leaky, max_tokens: 5 });
    await post(server, 'openai', { model: 'boom', messages: [{ role: 'user', content: canary }] });
    await post(server, 'openai', leaky, { key: `${canary}-wrong` });
    await post(server, 'openai', null, { rawBody: `{not json ${canary}` });
    await fetch(`${server.origin}/v1/other?key=${canary}`, { method: 'POST', body: '{}' });
    // Gemini: the key in the query string, a model named after it in the path, and the key in the contents.
    await postGemini(server, { contents: [{ role: 'user', parts: [{ text: canary }] }] }, { keyInQuery: true, model: `m-${canary}`, stream: true });
    await postGemini(server, { contents: [{ role: 'user', parts: [{ text: canary }] }] }, { key: `${canary}-wrong` });
    expect(server.exchanges.length).toBe(9);
    const recorded = JSON.stringify(server.exchanges);
    expect(recorded).not.toContain(canary);
    expect(recorded).toContain('[redacted]');
    expect(server.exchanges[3]!.error).toMatch(/callback failed/);
  });
});

describe('close()', () => {
  it('closes the port, and is idempotent', async () => {
    const server = await start();
    expect((await post(server, 'openai', openaiBody)).status).toBe(200);
    await server.close();
    await server.close();
    expect(await canConnect(server.port)).toBe(false);
  });

  it('closes idle keep-alive connections', async () => {
    const server = await start();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        `${server.baseUrl('openai')}/chat/completions`,
        { method: 'POST', agent, headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(openaiBody));
    });
    expect(status).toBe(200);
    const [socket] = Object.values(agent.freeSockets).flat();
    expect(socket).toBeDefined();
    const closed = new Promise<void>((resolve) => socket!.once('close', () => resolve()));
    const started = Date.now();
    await server.close();
    await closed;
    expect(Date.now() - started).toBeLessThan(1000);
    agent.destroy();
  });

  it('closes everything even while a request waits on its answer', async () => {
    let arrived!: () => void;
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    const server = await start({
      answer: () => {
        arrived();
        return new Promise(() => undefined); // never answers
      },
    });
    const inFlight = post(server, 'anthropic', { ...anthropicBody, stream: true }).then(
      () => 'answered',
      () => 'failed',
    );
    await arrival;
    await server.close();
    expect(await inFlight).toBe('failed');
    expect(await canConnect(server.port)).toBe(false);
    expect(server.exchanges[0]!.error).toMatch(/closed before/);
  });

  it('closes a stream that is being written', async () => {
    const server = await start({
      answer: async () => ({
        ok: true,
        response: { content: 'x'.repeat(400), usage: { prompt: 1, completion: 1, cached: 0 } },
        provider: { split: { text_chars: 1, bytes: 8, pause_ms: 5 } },
      }),
    });
    const res = await post(server, 'openai', { ...openaiBody, stream: true });
    expect(res.status).toBe(200);
    const reading = readSse(res).then(
      () => 'complete',
      () => 'cut',
    );
    await new Promise((r) => setTimeout(r, 30));
    await server.close();
    expect(await reading).toBe('cut');
    expect(await canConnect(server.port)).toBe(false);
  });
});

describe('requests it cannot serve', () => {
  it('an unknown path is 404, a GET is 405, a body that is not JSON is 400 in the format shape', async () => {
    const server = await start();
    expect((await fetch(`${server.origin}/v1/embeddings`, { method: 'POST', body: '{}' })).status).toBe(404);
    const get = await fetch(`${server.baseUrl('openai')}/chat/completions`, { headers: { authorization: `Bearer ${server.apiKey}` } });
    expect(get.status).toBe(405);
    const bad = await post(server, 'anthropic', null, { rawBody: '{"model": "parent",' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(server.exchanges[2]!.problems[0]).toMatchObject({ severity: 'error', check: 'json' });
  });

  it('a request missing model or messages is 400', async () => {
    const server = await start();
    expect((await post(server, 'openai', { messages: [] })).status).toBe(400);
    expect((await post(server, 'openai', { model: 'parent', messages: [] })).status).toBe(400);
    expect((await post(server, 'anthropic', { model: 'parent', max_tokens: 5 })).status).toBe(400);
  });

  it('with a crystal list, another model gets the format 404', async () => {
    const server = await start({ crystals: ['parent'] });
    const res = await post(server, 'openai', { ...openaiBody, model: 'gpt-nope' });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: 'model_not_found', type: 'invalid_request_error' } });
    const anth = await post(server, 'anthropic', { ...anthropicBody, model: 'claude-nope' });
    expect(anth.status).toBe(404);
    expect(await anth.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
  });

  it('a callback that throws becomes a 500 and is recorded', async () => {
    const server = await start({ answer: async () => Promise.reject(new Error('script broke')) });
    const res = await post(server, 'openai', openaiBody);
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ error: { type: 'server_error' } });
    expect(server.exchanges[0]!.error).toMatch(/script broke/);
  });

  it('records arrival times and the answer, and calls onExchange once per request', async () => {
    const seen: number[] = [];
    let t = 1000;
    const server = await start({ now: () => (t += 250), onExchange: (e) => seen.push(e.seq) });
    await post(server, 'openai', openaiBody);
    await post(server, 'anthropic', anthropicBody);
    await new Promise((r) => setTimeout(r, 20));
    expect(seen).toEqual([0, 1]);
    const [a, b] = server.exchanges;
    expect(a!.at_ms).toBeLessThan(b!.at_ms);
    expect(a!.ended_ms).toBeGreaterThan(a!.at_ms);
    expect(a).toMatchObject({ format: 'openai', crystal: 'parent', status: 200, stream: false, auth: 'ok' });
    expect(b).toMatchObject({ format: 'anthropic', crystal: 'parent', status: 200 });
  });
});

describe('summaries', () => {
  it('one line per exchange, problems listed errors first', async () => {
    const { summarizeExchange, formatProblems, wireErrors } = await import('./summary.ts');
    const server = await start({ answer: async () => ({ ok: false, error: { status: 429, message: 'slow down' }, provider: { retry_after: 2 } }) });
    const res = await post(server, 'openai', { model: 'parent', messages: [{ role: 'tool', tool_call_id: 'x', content: 'r' }], stream: true });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('2');
    const e = server.exchanges[0]!;
    expect(summarizeExchange(e)).toMatch(/^#0 \+\d+ms openai parent stream → 429 \(provider step: retry_after 2\)$/);
    expect(formatProblems(e.problems).split('\n')[0]).toMatch(/^ {2}error tool_result_unmatched at messages\[0\]: /);
    expect(wireErrors(server.exchanges)).toEqual([{ seq: 0, crystal: 'parent', problem: expect.objectContaining({ check: 'tool_result_unmatched' }) }]);
  });
});

/**
 * Shared pieces of the provider tests (imported only by `*.test.ts`): the recorded fixtures under
 * `fixtures/providers/<family>/`, an msw server that records what each provider sent, and the
 * per-family table the cross-provider tests iterate over.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import type { CrystalRequest, CrystalResponse, ErrorCode } from '../../../schemas/index.ts';
import type { Crystal } from '../contract.ts';
import { createAnthropicCrystal } from './anthropic.ts';
import { createGeminiCrystal } from './gemini.ts';
import type { IdMaker } from './ids.ts';
import { createLocalCrystal } from './local.ts';
import { createOpenAICrystal } from './openai.ts';
import type { ProviderOptions } from './options.ts';
import { createOpenRouterCrystal } from './openrouter.ts';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../../../fixtures/providers');

/** One recorded exchange. `stream` holds the same exchange as SSE event blocks, when recorded. */
export interface Fixture {
  description: string;
  reference: string;
  request: CrystalRequest;
  sent: { path: string; body: Record<string, unknown> };
  reply: { status: number; body: unknown };
  stream?: string[];
  stream_body_extra?: Record<string, unknown>;
  expected?: CrystalResponse;
  error?: { code: ErrorCode; status: number };
}

export function loadFixtures(family: string): Array<[string, Fixture]> {
  const dir = join(FIXTURES, family);
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => [file.replace(/\.json$/, ''), JSON.parse(readFileSync(join(dir, file), 'utf8')) as Fixture]);
}

export function loadFixture(family: string, name: string): Fixture {
  const found = loadFixtures(family).find(([n]) => n === name);
  if (!found) throw new Error(`no fixture ${family}/${name}`);
  return found[1];
}

/** What the provider put on the wire. */
export interface Sent {
  url: string;
  headers: Headers;
  body: Record<string, unknown>;
}

/** A reply the fake server gives: JSON with a status, or an SSE transcript. */
export type Reply = { status: number; body: unknown } | { sse: string[] } | { raw: string; status?: number } | { network: 'error' };

/** An msw server whose every POST is recorded and answered from a queue of replies. */
export function recordingServer() {
  const sent: Sent[] = [];
  const queue: Reply[] = [];
  const server = setupServer(
    http.post(/.*/, async ({ request }) => {
      sent.push({ url: request.url, headers: request.headers, body: (await request.json()) as Record<string, unknown> });
      const reply = queue.shift();
      if (!reply) return HttpResponse.json({ error: { message: 'test server: no reply queued' } }, { status: 599 });
      if ('network' in reply) return HttpResponse.error();
      if ('sse' in reply) {
        return new HttpResponse(reply.sse.join('\n\n') + '\n\n', { headers: { 'content-type': 'text/event-stream' } });
      }
      if ('raw' in reply) return new HttpResponse(reply.raw, { status: reply.status ?? 200, headers: { 'content-type': 'application/json' } });
      return HttpResponse.json(reply.body as Record<string, unknown>, { status: reply.status });
    }),
  );
  return {
    server,
    sent,
    /** Queues replies for the next requests, in order. */
    reply(...replies: Reply[]) {
      queue.push(...replies);
    },
    reset() {
      sent.length = 0;
      queue.length = 0;
    },
  };
}

/** Deterministic ids for calls that arrive without one. */
export function counterIds(prefix: string): IdMaker {
  let n = 0;
  return () => `${prefix}-${++n}`;
}

/** A sleep that records the requested backoff and returns at once (PROD-2 tests never wait). */
export function recordingSleep() {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}

/** A fake key that must never surface anywhere. */
export const CANARY = 'sk-CANARY-9f8e7d6c5b4a39281706';

/** Each family, how to build it against the fake server, and where its queries go. */
export interface FamilyCase {
  family: 'openai' | 'anthropic' | 'gemini' | 'openrouter' | 'local';
  host: string;
  make: (options: ProviderOptions, model?: string) => Crystal;
}

export const FAMILY_CASES: FamilyCase[] = [
  { family: 'openai', host: 'https://api.openai.com', make: (o, m = 'gpt-4o-mini') => createOpenAICrystal(m, { apiKey: CANARY, ...o }) },
  { family: 'anthropic', host: 'https://api.anthropic.com', make: (o, m = 'claude-sonnet-4-5') => createAnthropicCrystal(m, { apiKey: CANARY, ...o }) },
  {
    family: 'gemini',
    host: 'https://generativelanguage.googleapis.com',
    make: (o, m = 'gemini-2.5-flash') => createGeminiCrystal(m, { apiKey: CANARY, newId: counterIds('gemini-call'), ...o }),
  },
  { family: 'openrouter', host: 'https://openrouter.ai', make: (o, m = 'anthropic/claude-3.5-haiku') => createOpenRouterCrystal(m, { apiKey: CANARY, ...o }) },
  {
    family: 'local',
    host: 'http://127.0.0.1:11434',
    make: (o, m = 'llama3.2') => createLocalCrystal('http://127.0.0.1:11434/v1', m, { apiKey: CANARY, env: {}, newId: counterIds('local-call'), ...o }),
  },
];

export function familyCase(family: FamilyCase['family']): FamilyCase {
  const found = FAMILY_CASES.find((c) => c.family === family);
  if (!found) throw new Error(`no family ${family}`);
  return found;
}

/**
 * The recorded-exchange suite of one family: for every fixture, the provider must send exactly the
 * recorded body to the recorded path and normalize the recorded reply to the expected response or
 * error code (CRYSTAL-2, CRYSTAL-4, CRYSTAL-6); for fixtures with a stream recording, the streamed
 * result must equal the plain one.
 */
export function describeFixtures(family: FamilyCase['family'], options: ProviderOptions = {}): void {
  const { host, make } = familyCase(family);
  const fake = recordingServer();
  beforeAll(() => fake.server.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => fake.reset());
  afterAll(() => fake.server.close());
  for (const [name, fixture] of loadFixtures(family)) {
    const model = typeof fixture.sent.body['model'] === 'string' ? fixture.sent.body['model'] : undefined;
    const build = () => make({ retry: { sleep: async () => {} }, ...options }, model);
    it(`CRYSTAL-6: ${family}/${name}: ${fixture.description}`, async () => {
      fake.reply(fixture.reply);
      const crystal = build();
      if (fixture.error) {
        await expect(crystal.query(fixture.request)).rejects.toMatchObject(fixture.error);
      } else {
        expect(await crystal.query(fixture.request)).toEqual(fixture.expected);
      }
      expect(fake.sent).toHaveLength(1);
      expect(new URL(fake.sent[0]!.url).pathname).toBe(fixture.sent.path);
      expect(new URL(fake.sent[0]!.url).origin).toBe(host);
      expect(fake.sent[0]!.body).toEqual(fixture.sent.body);
    });
    const stream = fixture.stream;
    if (stream) {
      it(`CRYSTAL-6 (streaming, spec §7.4): ${family}/${name}: the streamed reply normalizes to the same response, with deltas surfaced`, async () => {
        fake.reply({ sse: stream });
        const events: Array<{ type: string; data: unknown }> = [];
        const result = await build().query(fixture.request, { onEvent: (e) => events.push(e) });
        expect(result).toEqual(fixture.expected);
        expect(fake.sent[0]!.body).toEqual({ ...fixture.sent.body, ...fixture.stream_body_extra });
        const text = events.filter((e) => e.type === 'text').map((e) => (e.data as { delta: string }).delta).join('');
        expect(text).toBe(fixture.expected?.content ?? '');
        const thinking = events.filter((e) => e.type === 'thinking').map((e) => (e.data as { delta: string }).delta).join('');
        expect(thinking).toBe(fixture.expected?.thinking ?? '');
        const calls = fixture.expected?.tool_calls ?? [];
        calls.forEach((call, index) => {
          const pieces = events.filter((e) => e.type === 'gate_call' && (e.data as { index: number }).index === index);
          const data = pieces.map((e) => e.data as { id?: string; gate?: string; arguments_delta: string });
          expect(data[0]).toMatchObject({ id: call.id, gate: call.gate });
          expect(JSON.parse(data.map((d) => d.arguments_delta).join(''))).toEqual(JSON.parse(call.arguments));
        });
        expect(events[events.length - 1]).toEqual({ type: 'usage', data: fixture.expected?.usage });
      });
    }
  }
}

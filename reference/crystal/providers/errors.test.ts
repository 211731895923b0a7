import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CrystalRequest } from '../../../schemas/index.ts';
import { CrystalError } from '../crystal-error.ts';
import { CANARY, FAMILY_CASES, loadFixture, recordingServer, recordingSleep } from './test-support.ts';

const fake = recordingServer();
beforeAll(() => fake.server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => fake.reset());
afterAll(() => fake.server.close());

const ask: CrystalRequest = { messages: [{ role: 'user', content: 'Say hi.' }] };

/** Everything observable about a failure, flattened to text, for the canary check. */
function everything(error: unknown): string {
  const parts: string[] = [String(error)];
  let current: unknown = error;
  while (current instanceof Error) {
    parts.push(current.message, current.stack ?? '', JSON.stringify(current));
    current = current.cause;
  }
  return parts.join('\n');
}

async function failure(promise: Promise<unknown>): Promise<CrystalError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(CrystalError);
    return error as CrystalError;
  }
  throw new Error('expected the query to fail');
}

for (const { family, make } of FAMILY_CASES) {
  const ok = loadFixture(family, 'text').reply;
  describe(`${family} provider: failures and retries`, () => {
    it('PROD-2: a 429 is retried after 1 s and the retried query returns one response', async () => {
      const { waits, sleep } = recordingSleep();
      fake.reply({ status: 429, body: { error: { message: 'rate limited' } } }, ok);
      const response = await make({ retry: { sleep } }).query(ask);
      expect(response.content).toBe('Hi.');
      expect(fake.sent).toHaveLength(2);
      expect(waits).toEqual([1000]);
    });

    it('PROD-2: three 5xx retries with backoff 1000/2000/4000, then it gives up after 4 attempts', async () => {
      const { waits, sleep } = recordingSleep();
      const boom = { status: 500, body: { error: { message: 'server error' } } };
      fake.reply(boom, boom, boom, boom, ok);
      const error = await failure(make({ retry: { sleep } }).query(ask));
      expect(error).toMatchObject({ code: 'crystal_error', status: 500, retryable: true });
      expect(fake.sent).toHaveLength(4);
      expect(waits).toEqual([1000, 2000, 4000]);
    });

    it('PROD-2: a 400 is not retried', async () => {
      const { waits, sleep } = recordingSleep();
      fake.reply({ status: 400, body: { error: { message: 'bad field' } } }, ok);
      const error = await failure(make({ retry: { sleep } }).query(ask));
      expect(error).toMatchObject({ code: 'crystal_error', status: 400, retryable: false });
      expect(fake.sent).toHaveLength(1);
      expect(waits).toEqual([]);
    });

    it('CRYSTAL-2: a context-overflow reply is context_limit_exceeded and is not retried', async () => {
      const { waits, sleep } = recordingSleep();
      const overflow = loadFixture(family === 'local' ? 'openai' : family, 'context-overflow').reply;
      fake.reply(overflow, ok);
      const error = await failure(make({ retry: { sleep } }).query(ask));
      expect(error).toMatchObject({ code: 'context_limit_exceeded', status: 400, retryable: false });
      expect(fake.sent).toHaveLength(1);
      expect(waits).toEqual([]);
    });

    it('CRYSTAL-3: a 200 whose body is not JSON is invalid_crystal_response', async () => {
      fake.reply({ raw: '<html>upstream hiccup</html>' });
      const error = await failure(make({}).query(ask));
      expect(error.code).toBe('invalid_crystal_response');
      expect(fake.sent).toHaveLength(1);
    });

    it('CRYSTAL-3: a JSON body of the wrong shape is invalid_crystal_response', async () => {
      fake.reply({ status: 200, body: { unexpected: true } });
      const error = await failure(make({}).query(ask));
      expect(error.code).toBe('invalid_crystal_response');
    });

    it('CRYSTAL-3: a reply with neither text nor gate calls is invalid_crystal_response', async () => {
      const empty = JSON.parse(JSON.stringify(ok.body).replace(/"Hi\."/g, '""')) as unknown;
      fake.reply({ status: 200, body: empty });
      const error = await failure(make({}).query(ask));
      expect(error.code).toBe('invalid_crystal_response');
    });

    it('CRYSTAL-6: the API key never appears in errors, whatever the path', async () => {
      const { sleep } = recordingSleep();
      const echo = { error: { message: `Incorrect API key provided: ${CANARY}`, type: 'invalid_request_error' } };
      const masked = { error: { message: `key ${CANARY.slice(0, 8)}***${CANARY.slice(-4)} is revoked` } };
      const failures = [
        { status: 401, body: echo },
        { status: 403, body: masked },
        { status: 400, body: { error: { message: `maximum context length exceeded for ${CANARY}`, code: 'context_length_exceeded' } } },
        { raw: `not json ${CANARY}` },
      ];
      for (const reply of failures) {
        fake.reply(reply);
        const error = await failure(make({ retry: { sleep } }).query(ask));
        expect(everything(error)).not.toContain(CANARY);
        expect(everything(error)).not.toContain(CANARY.slice(0, 8));
      }
      // Transport failure: the connection breaks.
      fake.reply({ network: 'error' });
      const offline = await failure(make({ retry: { sleep, maxRetries: 0 } }).query(ask));
      expect(offline).toMatchObject({ code: 'crystal_error', retryable: true });
      expect(everything(offline)).not.toContain(CANARY);
    });

    it('CRYSTAL-6: the key travels only in its auth header, never in the URL or the body', async () => {
      fake.reply(ok);
      await make({}).query(ask);
      const sent = fake.sent[0]!;
      expect(sent.url).not.toContain(CANARY);
      expect(JSON.stringify(sent.body)).not.toContain(CANARY);
      const carriers = [...sent.headers.entries()].filter(([, value]) => value.includes(CANARY)).map(([name]) => name);
      const expected = { anthropic: ['x-api-key'], gemini: ['x-goog-api-key'] }[family as string] ?? ['authorization'];
      expect(carriers).toEqual(expected);
    });

    it('CRYSTAL-6: events and metadata of a streamed or plain reply never carry the key', async () => {
      fake.reply(ok);
      const events: unknown[] = [];
      const response = await make({ stream: false }).query(ask, { onEvent: (e) => events.push(e) });
      expect(JSON.stringify({ response, events })).not.toContain(CANARY);
    });

    it('PROD-2: a query aborted by its caller is not retried', async () => {
      const { waits, sleep } = recordingSleep();
      const controller = new AbortController();
      controller.abort();
      fake.reply(ok);
      const error = await failure(make({ retry: { sleep } }).query(ask, { signal: controller.signal }));
      expect(error).toMatchObject({ code: 'crystal_error', retryable: false });
      expect(waits).toEqual([]);
    });
  });
}

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { familyCase, loadFixture, recordingServer, recordingSleep } from './test-support.ts';

const fake = recordingServer();
beforeAll(() => fake.server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => fake.reset());
afterAll(() => fake.server.close());

const ask = { messages: [{ role: 'user' as const, content: 'Weather in Paris?' }] };

describe('streamed replies that fail', () => {
  it('PROD-2: an Anthropic overloaded_error inside the stream is retried, and the retry streams the answer', async () => {
    const { waits, sleep } = recordingSleep();
    const good = loadFixture('anthropic', 'tool-call');
    const broken = [good.stream![0]!, 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'];
    fake.reply({ sse: broken }, { sse: good.stream! });
    const response = await familyCase('anthropic').make({ retry: { sleep } }).query(good.request, { onEvent: () => {} });
    expect(response).toEqual(good.expected);
    expect(waits).toEqual([1000]);
    expect(fake.sent).toHaveLength(2);
  });

  it('CRYSTAL-2: an OpenRouter mid-stream context error is context_limit_exceeded, not retried', async () => {
    const { waits, sleep } = recordingSleep();
    const error = 'data: {"error":{"code":400,"message":"maximum context length is 8192 tokens"}}';
    fake.reply({ sse: [': OPENROUTER PROCESSING', error] });
    await expect(familyCase('openrouter').make({ retry: { sleep }, stream: true }).query(ask)).rejects.toMatchObject({
      code: 'context_limit_exceeded',
      status: 400,
    });
    expect(waits).toEqual([]);
  });

  it('CRYSTAL-3: a stream chunk that is not JSON is invalid_crystal_response', async () => {
    fake.reply({ sse: ['data: {"id":"x","choices":[{"index":0,"delta":{"content":"Hi"}}]}', 'data: {broken'] });
    await expect(familyCase('openai').make({ stream: true }).query(ask)).rejects.toMatchObject({ code: 'invalid_crystal_response' });
  });

  it('PROD-2: a 429 before a stream starts is retried like any other query', async () => {
    const { waits, sleep } = recordingSleep();
    const good = loadFixture('openai', 'tool-calls');
    fake.reply({ status: 429, body: { error: { message: 'slow down' } } }, { sse: good.stream! });
    const response = await familyCase('openai').make({ retry: { sleep }, stream: true }).query(good.request);
    expect(response).toEqual(good.expected);
    expect(waits).toEqual([1000]);
  });
});

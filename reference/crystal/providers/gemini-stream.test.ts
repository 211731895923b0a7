/**
 * The Gemini provider streaming over `:streamGenerateContent?alt=sse`: chunks fold to the response a
 * plain call normalizes to, with deltas surfaced (CRYSTAL-6, spec §7.4); an in-stream error is retried
 * like its status (PROD-2); a stream that ends before a finishReason was cut short (CRYSTAL-3).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { familyCase, loadFixture, recordingServer, recordingSleep } from './test-support.ts';

const fake = recordingServer();
beforeAll(() => fake.server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => fake.reset());
afterAll(() => fake.server.close());

type Body = { candidates: Array<{ content: { parts: Array<Record<string, unknown>> }; finishReason?: string }>; usageMetadata?: unknown; modelVersion?: string; responseId?: string };

/** The recorded plain reply as Gemini streams it: text parts cut into pieces, calls whole, finishReason and usage on the last chunk. */
function chunked(body: Body): string[] {
  const candidate = body.candidates[0]!;
  const pieces: Array<Record<string, unknown>> = [];
  for (const part of candidate.content.parts) {
    if (typeof part['text'] === 'string') {
      const text = part['text'];
      for (let i = 0; i < text.length; i += 3) pieces.push({ ...part, text: text.slice(i, i + 3) });
    } else pieces.push(part);
  }
  return pieces.map((part, i) => {
    const last = i === pieces.length - 1;
    const chunk = {
      candidates: [{ content: { role: 'model', parts: [part] }, index: 0, ...(last && { finishReason: candidate.finishReason }) }],
      ...(last && { usageMetadata: body.usageMetadata }),
      modelVersion: body.modelVersion,
      responseId: body.responseId,
    };
    return `data: ${JSON.stringify(chunk)}`;
  });
}

describe('gemini provider: streaming', () => {
  for (const name of ['text', 'thinking', 'tool-call', 'tool-calls', 'usage-cached']) {
    it(`CRYSTAL-6: ${name}: the streamed chunks normalize to the plain response, with deltas and usage surfaced`, async () => {
      const fixture = loadFixture('gemini', name);
      fake.reply({ sse: chunked(fixture.reply.body as Body) });
      const events: Array<{ type: string; data: any }> = [];
      const response = await familyCase('gemini').make({ stream: true }).query(fixture.request, { onEvent: (e) => events.push(e) });
      expect(response).toEqual(fixture.expected);
      const url = new URL(fake.sent[0]!.url);
      expect(url.pathname).toBe(fixture.sent.path.replace(':generateContent', ':streamGenerateContent'));
      expect(url.searchParams.get('alt')).toBe('sse');
      expect(fake.sent[0]!.body).toEqual(fixture.sent.body);
      expect(events.filter((e) => e.type === 'text').map((e) => e.data.delta).join('')).toBe(fixture.expected?.content ?? '');
      expect(events.filter((e) => e.type === 'thinking').map((e) => e.data.delta).join('')).toBe(fixture.expected?.thinking ?? '');
      expect(events.filter((e) => e.type === 'gate_call').map((e) => e.data.id)).toEqual((fixture.expected?.tool_calls ?? []).map((c) => c.id));
      expect(events.at(-1)).toEqual({ type: 'usage', data: fixture.expected?.usage });
    });
  }

  it('PROD-2: an UNAVAILABLE error chunk is retried after 1 s, and the retry streams the answer', async () => {
    const { waits, sleep } = recordingSleep();
    const good = loadFixture('gemini', 'text');
    fake.reply({ sse: ['data: {"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}'] }, { sse: chunked(good.reply.body as Body) });
    const response = await familyCase('gemini').make({ stream: true, retry: { sleep } }).query(good.request);
    expect(response).toEqual(good.expected);
    expect(waits).toEqual([1000]);
  });

  it('CRYSTAL-3: a stream that ends before any finishReason is invalid_crystal_response', async () => {
    const good = loadFixture('gemini', 'text');
    fake.reply({ sse: chunked(good.reply.body as Body).slice(0, -1) });
    await expect(familyCase('gemini').make({ stream: true }).query(good.request)).rejects.toMatchObject({ code: 'invalid_crystal_response' });
  });
});

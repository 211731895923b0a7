/**
 * The harness's MockCrystals plugged into the crystal server unchanged: a scripted case's replies
 * reach an HTTP client in each format, and the queries MockCrystals records are the requests the
 * client sent, read back into the crystal contract.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MockCrystals } from '../drive/mock-crystal.ts';
import { OutcomeWatch } from '../drive/outcome-watch.ts';
import { startCrystalServer } from './server.ts';
import type { CrystalServer, WireFormat } from './types.ts';
import { foldAnthropic, foldOpenAI, post, readSse } from './test-client.ts';

const servers: CrystalServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function scripted(): Promise<{ server: CrystalServer; mocks: MockCrystals }> {
  const watch = new OutcomeWatch({ crystal: 'parent', wards: {}, childCrystals: new Set(), childTurnCaps: new Map() }, () => 0);
  const mocks = new MockCrystals(
    {
      parent: {
        context_window: 400,
        script: [
          { tool_calls: [{ gate: 'echo', args: { text: 'héllo 🎉' }, id: 'call_a' }], usage: { prompt: 50, completion: 6, cached: 32 } },
          { error: { status: 429, message: 'slow down' } },
          { content: 'All done.' },
        ],
      },
    },
    {},
    async () => undefined,
    watch,
  );
  mocks.beginAction(0);
  const server = await startCrystalServer({ answer: (crystal, request) => mocks.query(crystal, request), crystals: ['parent'] });
  servers.push(server);
  return { server, mocks };
}

describe.each(['openai', 'anthropic'] as WireFormat[])('%s: MockCrystals behind the server', (format) => {
  it('serves the script in order: a tool call with cached usage, a 429, a text, then an overflow', async () => {
    const { server, mocks } = await scripted();
    const tools =
      format === 'openai'
        ? [{ type: 'function', function: { name: 'echo', description: 'Echo.', parameters: { type: 'object', properties: { text: { type: 'string' } } } } }]
        : [{ name: 'echo', description: 'Echo.', input_schema: { type: 'object', properties: { text: { type: 'string' } } } }];
    const base = format === 'openai' ? { model: 'parent', tools, stream: true, stream_options: { include_usage: true } } : { model: 'parent', tools, max_tokens: 50, stream: true };
    const firstMessages = format === 'openai' ? [{ role: 'system', content: 'S.' }, { role: 'user', content: 'Go' }] : [{ role: 'user', content: 'Go' }];
    const extra = format === 'anthropic' ? { system: 'S.' } : {};

    const one = await readSse(await post(server, format, { ...base, ...extra, messages: firstMessages }));
    if (format === 'openai') {
      const folded = foldOpenAI(one.events);
      expect(folded['choices'][0].message.tool_calls).toEqual([{ id: 'call_a', type: 'function', function: { name: 'echo', arguments: '{"text":"héllo 🎉"}' } }]);
      expect(folded['usage'].prompt_tokens_details.cached_tokens).toBe(32);
    } else {
      const folded = foldAnthropic(one.events);
      expect(folded['content']).toEqual([{ type: 'tool_use', id: 'call_a', name: 'echo', input: { text: 'héllo 🎉' } }]);
      expect(folded['usage'].cache_read_input_tokens).toBe(32);
    }

    const followUp =
      format === 'openai'
        ? [...firstMessages, { role: 'assistant', content: null, tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'echo', arguments: '{"text":"héllo 🎉"}' } }] }, { role: 'tool', tool_call_id: 'call_a', content: 'héllo 🎉' }]
        : [...firstMessages, { role: 'assistant', content: [{ type: 'tool_use', id: 'call_a', name: 'echo', input: { text: 'héllo 🎉' } }] }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_a', content: 'héllo 🎉' }] }];
    const limited = await post(server, format, { ...base, ...extra, messages: followUp });
    expect(limited.status).toBe(429);
    await limited.text();
    const two = await readSse(await post(server, format, { ...base, ...extra, messages: followUp }));
    const text = format === 'openai' ? foldOpenAI(two.events)['choices'][0].message.content : foldAnthropic(two.events)['content'][0].text;
    expect(text).toBe('All done.');

    // Past the declared window: the format's own overflow answer.
    const long = [...followUp, { role: 'user', content: 'x'.repeat(2000) }];
    const over = await post(server, format, { ...base, ...extra, messages: long });
    expect(over.status).toBe(400);
    const body = (await over.json()) as any;
    if (format === 'openai') expect(body.error.code).toBe('context_length_exceeded');
    else expect(body.error.message).toMatch(/^prompt is too long: \d+ tokens > 400 maximum$/);

    // What MockCrystals recorded is the contract form of what was sent.
    expect(mocks.queries.map((q) => q.crystal)).toEqual(['parent', 'parent', 'parent', 'parent']);
    expect(mocks.queries[1]!.request.messages.slice(2)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_a', gate: 'echo', arguments: '{"text":"héllo 🎉"}' }] },
      { role: 'tool', tool_call_id: 'call_a', content: 'héllo 🎉' },
    ]);
    expect(mocks.faults).toEqual([]);
    expect(server.exchanges.flatMap((e) => e.problems).filter((p) => p.severity === 'error')).toEqual([]);
  });
});

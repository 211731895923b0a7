import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CrystalRequest } from '../../../schemas/index.ts';
import { createGeminiCrystal } from './gemini.ts';
import { familyCase, loadFixture, recordingServer } from './test-support.ts';

const fake = recordingServer();
beforeAll(() => fake.server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => fake.reset());
afterAll(() => fake.server.close());

const ask: CrystalRequest = { messages: [{ role: 'user', content: 'Say hi.' }] };
const openai = () => familyCase('openai').make({});

function openaiCalls(calls: Array<{ id: string; name: string; arguments: string }>) {
  const body = structuredClone(loadFixture('openai', 'tool-call').reply.body) as {
    choices: Array<{ message: { tool_calls: unknown[] } }>;
  };
  body.choices[0]!.message.tool_calls = calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
  return { status: 200, body };
}

describe('CRYSTAL-4: gate calls as providers send them', () => {
  it('CRYSTAL-4: two calls with one id from the provider are duplicate_tool_call_id', async () => {
    fake.reply(openaiCalls([{ id: 'same', name: 'a', arguments: '{}' }, { id: 'same', name: 'b', arguments: '{}' }]));
    await expect(openai().query(ask)).rejects.toMatchObject({ code: 'duplicate_tool_call_id' });
  });

  it('CRYSTAL-4: arguments that are not a JSON object are invalid_tool_call', async () => {
    fake.reply(openaiCalls([{ id: 'c1', name: 'a', arguments: '{"city": "Par' }]));
    await expect(openai().query(ask)).rejects.toMatchObject({ code: 'invalid_tool_call' });
  });

  it('CRYSTAL-4: Gemini calls get distinct random ids when no id maker is injected', async () => {
    fake.reply(loadFixture('gemini', 'tool-calls').reply);
    const response = await createGeminiCrystal('gemini-2.5-flash', { apiKey: 'k' }).query(ask);
    const ids = (response.tool_calls ?? []).map((c) => c.id);
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
    for (const id of ids) expect(id).toMatch(/^call_[0-9a-f]{24}$/);
  });
});

describe('request translation: bad input is named, hyperparameters pass through (CALL-2)', () => {
  it('CRYSTAL-4: a tool message without tool_call_id is invalid_tool_call before anything is sent', async () => {
    const bad: CrystalRequest = { messages: [{ role: 'user', content: 'x' }, { role: 'tool', content: 'result' }] };
    for (const family of ['openai', 'anthropic', 'gemini'] as const) {
      await expect(familyCase(family).make({}).query(bad)).rejects.toMatchObject({ code: 'invalid_tool_call' });
    }
    expect(fake.sent).toHaveLength(0);
  });

  it('CRYSTAL-4: a Gemini tool result must answer an earlier call, since Gemini links results by gate name', async () => {
    const bad: CrystalRequest = { messages: [{ role: 'user', content: 'x' }, { role: 'tool', tool_call_id: 'nope', content: 'r' }] };
    await expect(familyCase('gemini').make({}).query(bad)).rejects.toMatchObject({ code: 'invalid_tool_call' });
  });

  it('CALL-2: stop becomes stop_sequences for Anthropic and stopSequences/maxOutputTokens for Gemini; others pass unchanged', async () => {
    fake.reply(loadFixture('anthropic', 'text').reply, loadFixture('gemini', 'text').reply, loadFixture('openai', 'text').reply);
    const hyper: CrystalRequest = { ...ask, hyperparameters: { stop: 'END', max_tokens: 100, top_p: 0.5 } };
    await familyCase('anthropic').make({}).query(hyper);
    await familyCase('gemini').make({}).query(hyper);
    await familyCase('openai').make({}).query(hyper);
    expect(fake.sent[0]!.body).toMatchObject({ stop_sequences: ['END'], max_tokens: 100, top_p: 0.5 });
    expect(fake.sent[0]!.body['stop']).toBeUndefined();
    expect(fake.sent[1]!.body['generationConfig']).toEqual({ stopSequences: ['END'], maxOutputTokens: 100, topP: 0.5 });
    expect(fake.sent[2]!.body).toMatchObject({ stop: 'END', max_tokens: 100, top_p: 0.5 });
  });
});

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CrystalRequest } from '../../../schemas/index.ts';
import { createAnthropicCrystal } from './anthropic.ts';
import { createLocalCrystal } from './local.ts';
import { familyCase, loadFixture, recordingServer } from './test-support.ts';

const fake = recordingServer();
beforeAll(() => fake.server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => fake.reset());
afterAll(() => fake.server.close());

const weather = loadFixture('openai', 'tool-call').request.tools!;
const required: CrystalRequest = { messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: weather, tool_choice: 'required' };
const local = () => createLocalCrystal('http://127.0.0.1:11434/v1', 'llama3.2', { env: {}, retry: { sleep: async () => {} } });
const localText = loadFixture('local', 'text').reply;
const localCall = loadFixture('local', 'tool-call-blank-id').reply;

describe('CRYSTAL-5: tool_choice', () => {
  it('CRYSTAL-5: a local server cannot force tools, so required is simulated by re-prompting', async () => {
    fake.reply(localText, localCall);
    const response = await local().query(required);
    expect(response.tool_calls).toHaveLength(1);
    expect(response.tool_calls?.[0]?.gate).toBe('get_weather');
    expect(response.metadata?.['tool_choice_reprompts']).toBe(1);
    // Both queries were paid for.
    expect(response.usage).toEqual({ prompt: 40, completion: 12, cached: 0 });
    expect(fake.sent).toHaveLength(2);
    expect(fake.sent[0]!.body['tool_choice']).toBeUndefined();
    const second = fake.sent[1]!.body['messages'] as Array<{ role: string; content: string }>;
    expect(second.slice(-2).map((m) => m.role)).toEqual(['assistant', 'user']);
    expect(second[second.length - 2]!.content).toBe('Hi.');
    expect(second[second.length - 1]!.content).toContain('get_weather');
  });

  it('CRYSTAL-5: the simulation is bounded: two extra queries, then invalid_crystal_response', async () => {
    fake.reply(localText, localText, localText, localCall);
    await expect(local().query(required)).rejects.toMatchObject({ code: 'invalid_crystal_response' });
    expect(fake.sent).toHaveLength(3);
  });

  it('CRYSTAL-5: none on a server that ignores tool_choice is honoured by not offering the tools', async () => {
    fake.reply(localText);
    await local().query({ ...required, tool_choice: 'none' });
    expect(fake.sent[0]!.body['tools']).toBeUndefined();
    expect(fake.sent[0]!.body['tool_choice']).toBeUndefined();
  });

  const native = [
    { family: 'openai', required: 'required', none: 'none', read: (b: Record<string, unknown>) => b['tool_choice'] },
    { family: 'openrouter', required: 'required', none: 'none', read: (b: Record<string, unknown>) => b['tool_choice'] },
    { family: 'anthropic', required: { type: 'any' }, none: { type: 'none' }, read: (b: Record<string, unknown>) => b['tool_choice'] },
    {
      family: 'gemini',
      required: { functionCallingConfig: { mode: 'ANY' } },
      none: { functionCallingConfig: { mode: 'NONE' } },
      read: (b: Record<string, unknown>) => b['toolConfig'],
    },
  ] as const;
  for (const row of native) {
    it(`CRYSTAL-5: ${row.family} forces tool use natively for required, and honours none`, async () => {
      const { make } = familyCase(row.family);
      fake.reply(loadFixture(row.family === 'openrouter' ? 'openai' : row.family, 'tool-call').reply);
      const response = await make({}).query(required);
      expect(response.tool_calls?.length).toBeGreaterThan(0);
      expect(row.read(fake.sent[0]!.body)).toEqual(row.required);
      fake.reply(loadFixture(row.family, 'text').reply);
      await make({}).query({ ...required, tool_choice: 'none' });
      expect(row.read(fake.sent[1]!.body)).toEqual(row.none);
    });
  }

  it('CRYSTAL-5: Anthropic with extended thinking cannot force tools, so it sends auto and re-prompts', async () => {
    const crystal = createAnthropicCrystal('claude-sonnet-4-5', { apiKey: 'k', retry: { sleep: async () => {} } });
    fake.reply(loadFixture('anthropic', 'thinking').reply, loadFixture('anthropic', 'tool-call').reply);
    const thinking = { thinking: { type: 'enabled', budget_tokens: 2000 }, max_tokens: 8000 };
    const response = await crystal.query({ ...required, hyperparameters: thinking });
    expect(fake.sent[0]!.body['tool_choice']).toEqual({ type: 'auto' });
    expect(response.tool_calls?.[0]?.id).toBe('toolu_01');
    expect(response.metadata?.['tool_choice_reprompts']).toBe(1);
  });

  it('CRYSTAL-5: auto with a text-only answer is accepted as is', async () => {
    fake.reply(localText);
    const response = await local().query({ ...required, tool_choice: 'auto' });
    expect(response.content).toBe('Hi.');
    expect(fake.sent).toHaveLength(1);
  });
});

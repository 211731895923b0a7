import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resolveCrystal } from './resolve.ts';
import { KEY_VARIABLES } from './env.ts';
import { CANARY, loadFixture, recordingServer } from './test-support.ts';

const fake = recordingServer();
beforeAll(() => fake.server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => fake.reset());
afterAll(() => fake.server.close());

const ask = { messages: [{ role: 'user' as const, content: 'Say hi.' }] };

describe('resolveCrystal', () => {
  const hosted = [
    ['openai:gpt-4o-mini', 'openai', 'https://api.openai.com/v1/chat/completions'],
    ['anthropic:claude-sonnet-4-5', 'anthropic', 'https://api.anthropic.com/v1/messages'],
    ['gemini:gemini-2.5-flash', 'gemini', 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent'],
    ['openrouter:anthropic/claude-3.5-haiku', 'openrouter', 'https://openrouter.ai/api/v1/chat/completions'],
  ] as const;
  for (const [spec, family, url] of hosted) {
    it(`CRYSTAL-6: '${spec}' builds a ${family} crystal that queries ${url}`, async () => {
      const crystal = resolveCrystal(spec, { env: { [KEY_VARIABLES[family]]: CANARY } });
      expect(crystal.name).toBe(spec);
      fake.reply(loadFixture(family, 'text').reply);
      await crystal.query(ask);
      expect(fake.sent[0]!.url).toBe(url);
    });

    it(`CRYSTAL-6: '${spec}' without ${KEY_VARIABLES[family]} is missing_crystal naming the variable`, () => {
      let caught: unknown;
      try {
        resolveCrystal(spec, { env: { OTHER: 'x' } });
      } catch (error) {
        caught = error;
      }
      expect(caught).toMatchObject({ code: 'missing_crystal' });
      expect((caught as Error).message).toContain(KEY_VARIABLES[family]);
    });
  }

  it('CRYSTAL-6: a local spec splits base URL and model at the last #, and needs no key', async () => {
    const crystal = resolveCrystal('local:http://127.0.0.1:11434/v1#llama3.2', { env: {} });
    fake.reply(loadFixture('local', 'text').reply);
    await crystal.query(ask);
    expect(fake.sent[0]!.url).toBe('http://127.0.0.1:11434/v1/chat/completions');
    expect(fake.sent[0]!.body['model']).toBe('llama3.2');
    expect(fake.sent[0]!.headers.get('authorization')).toBeNull();
  });

  it('CRYSTAL-6: a local server started with a key gets it from LOCAL_API_KEY as a bearer token', async () => {
    const crystal = resolveCrystal('local:http://127.0.0.1:8000/v1#qwen', { env: { LOCAL_API_KEY: 'local-secret' } });
    fake.reply(loadFixture('local', 'text').reply);
    await crystal.query(ask);
    expect(fake.sent[0]!.headers.get('authorization')).toBe('Bearer local-secret');
  });

  it('CRYSTAL-6: an explicit key wins over the environment', () => {
    expect(resolveCrystal('openai:gpt-4o-mini', { apiKey: 'given', env: {} }).name).toBe('openai:gpt-4o-mini');
  });

  for (const bad of ['mistral:large', 'openai:', 'openai', 'local:llama3.2', 'local:http://127.0.0.1:11434/v1#', '']) {
    it(`CRYSTAL-6: the spec '${bad}' is rejected as missing_crystal`, () => {
      expect(() => resolveCrystal(bad, { env: { OPENAI_API_KEY: 'k' } })).toThrow(expect.objectContaining({ code: 'missing_crystal' }));
    });
  }

  it('CRYSTAL-6: OpenRouter sends its attribution headers when given, and Anthropic its version header', async () => {
    fake.reply(loadFixture('openrouter', 'text').reply, loadFixture('anthropic', 'text').reply);
    await resolveCrystal('openrouter:anthropic/claude-3.5-haiku', { apiKey: 'k', referer: 'https://example.org', title: 'cantrip' }).query(ask);
    await resolveCrystal('anthropic:claude-sonnet-4-5', { apiKey: 'k' }).query(ask);
    expect(fake.sent[0]!.headers.get('http-referer')).toBe('https://example.org');
    expect(fake.sent[0]!.headers.get('x-title')).toBe('cantrip');
    expect(fake.sent[1]!.headers.get('anthropic-version')).toBe('2023-06-01');
  });
});

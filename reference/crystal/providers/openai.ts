import type { Crystal } from '../contract.ts';
import { requireKey } from './env.ts';
import { createOpenAICompatibleCrystal } from './openai-compatible.ts';
import type { ProviderOptions } from './options.ts';

export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/**
 * An OpenAI crystal over Chat Completions (CRYSTAL-2..6, PROD-2). Key from `OPENAI_API_KEY` unless
 * given; OpenAI honours `tool_choice: 'required'` natively.
 */
export function createOpenAICrystal(model: string, options: ProviderOptions = {}): Crystal {
  return createOpenAICompatibleCrystal({
    ...options,
    provider: 'openai',
    name: `openai:${model}`,
    model,
    baseUrl: options.baseUrl ?? OPENAI_BASE_URL,
    apiKey: requireKey('openai', options.apiKey, options.env),
    nativeToolChoice: true,
  });
}

import type { Crystal } from '../contract.ts';
import { requireKey } from './env.ts';
import { createOpenAICompatibleCrystal } from './openai-compatible.ts';
import type { ProviderOptions } from './options.ts';

export const OPENROUTER_BASE_URL = 'https://openrouter.ai/api/v1';

export interface OpenRouterOptions extends ProviderOptions {
  /** Optional attribution headers OpenRouter documents: `HTTP-Referer` and `X-Title`. */
  referer?: string;
  title?: string;
}

/**
 * An OpenRouter crystal (CRYSTAL-2..6, PROD-2): the OpenAI-compatible wire at OpenRouter's base URL,
 * `vendor/model` ids, optional attribution headers, reasoning returned as `message.reasoning`.
 * OpenRouter forwards `tool_choice` to the routed model; the re-prompt guard covers models that ignore it.
 */
export function createOpenRouterCrystal(model: string, options: OpenRouterOptions = {}): Crystal {
  const headers: Record<string, string> = {};
  if (options.referer) headers['HTTP-Referer'] = options.referer;
  if (options.title) headers['X-Title'] = options.title;
  return createOpenAICompatibleCrystal({
    ...options,
    provider: 'openrouter',
    name: `openrouter:${model}`,
    model,
    baseUrl: options.baseUrl ?? OPENROUTER_BASE_URL,
    apiKey: requireKey('openrouter', options.apiKey, options.env),
    headers,
    nativeToolChoice: true,
  });
}

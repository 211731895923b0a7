import type { Crystal } from '../contract.ts';
import { LOCAL_KEY_VARIABLE } from './env.ts';
import { createOpenAICompatibleCrystal } from './openai-compatible.ts';
import type { ProviderOptions } from './options.ts';

export interface LocalOptions extends Omit<ProviderOptions, 'baseUrl'> {
  /**
   * Whether the server honours `tool_choice`. Default false: Ollama's OpenAI-compatibility page lists
   * `tool_choice` as unsupported (github.com/ollama/ollama, docs/openai.md), so `required` is
   * simulated by re-prompting and `none` is honoured by not sending the tools (CRYSTAL-5).
   * Set true for servers known to force tool use.
   */
  nativeToolChoice?: boolean;
}

/**
 * A crystal on a local OpenAI-compatible server: Ollama, vLLM, LM Studio (CRYSTAL-2..6, PROD-2).
 * `baseUrl` ends before `/chat/completions`, e.g. `http://127.0.0.1:11434/v1`. No key is needed; one in
 * `LOCAL_API_KEY` (or given) is sent as a bearer token.
 */
export function createLocalCrystal(baseUrl: string, model: string, options: LocalOptions = {}): Crystal {
  const env = options.env ?? process.env;
  const apiKey = options.apiKey ?? (env[LOCAL_KEY_VARIABLE] || undefined);
  return createOpenAICompatibleCrystal({
    ...options,
    provider: 'local',
    name: `local:${baseUrl}#${model}`,
    model,
    baseUrl,
    ...(apiKey ? { apiKey } : {}),
    nativeToolChoice: options.nativeToolChoice ?? false,
  });
}

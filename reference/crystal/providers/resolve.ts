import type { Crystal } from '../contract.ts';
import { CrystalError } from '../crystal-error.ts';
import { createAnthropicCrystal } from './anthropic.ts';
import { createGeminiCrystal } from './gemini.ts';
import { createLocalCrystal, type LocalOptions } from './local.ts';
import { createOpenAICrystal } from './openai.ts';
import type { ProviderOptions } from './options.ts';
import { createOpenRouterCrystal, type OpenRouterOptions } from './openrouter.ts';

/** The crystal families the spec requires (CRYSTAL-6, §2.3). */
export const FAMILIES = ['openai', 'anthropic', 'gemini', 'openrouter', 'local'] as const;
export type Family = (typeof FAMILIES)[number];

export type ResolveOptions = ProviderOptions & OpenRouterOptions & LocalOptions;

/**
 * Builds a crystal from a one-line spec, e.g. `openai:gpt-4o-mini`, `anthropic:claude-sonnet-4-5`,
 * `gemini:gemini-2.5-flash`, `openrouter:meta-llama/llama-3.3-70b-instruct`, or
 * `local:http://127.0.0.1:11434/v1#llama3.2` (base URL, `#`, model). Keys come from the environment
 * (see `env.ts`); a missing key, an unknown family or an empty model is `missing_crystal`.
 */
export function resolveCrystal(spec: string, options: ResolveOptions = {}): Crystal {
  const colon = spec.indexOf(':');
  const family = colon === -1 ? spec : spec.slice(0, colon);
  const rest = colon === -1 ? '' : spec.slice(colon + 1).trim();
  if (!isFamily(family)) {
    throw new CrystalError('missing_crystal', `crystal spec '${spec}': unknown family '${family}' (expected one of ${FAMILIES.join(', ')})`);
  }
  if (rest === '') throw new CrystalError('missing_crystal', `crystal spec '${spec}': no model after '${family}:'`);
  switch (family) {
    case 'openai':
      return createOpenAICrystal(rest, options);
    case 'anthropic':
      return createAnthropicCrystal(rest, options);
    case 'gemini':
      return createGeminiCrystal(rest, options);
    case 'openrouter':
      return createOpenRouterCrystal(rest, options);
    case 'local': {
      const hash = rest.lastIndexOf('#');
      const baseUrl = hash === -1 ? '' : rest.slice(0, hash);
      const model = hash === -1 ? '' : rest.slice(hash + 1);
      if (!/^https?:\/\//.test(baseUrl) || model === '') {
        throw new CrystalError('missing_crystal', `crystal spec '${spec}': expected local:<http(s) base URL>#<model>`);
      }
      const { baseUrl: _ignored, ...rest2 } = options;
      return createLocalCrystal(baseUrl, model, rest2);
    }
  }
}

function isFamily(value: string): value is Family {
  return (FAMILIES as readonly string[]).includes(value);
}

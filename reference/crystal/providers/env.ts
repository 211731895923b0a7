import { CrystalError } from '../crystal-error.ts';

/** The environment variable that holds each hosted family's API key. Local servers need none. */
export const KEY_VARIABLES = {
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  gemini: 'GEMINI_API_KEY',
  openrouter: 'OPENROUTER_API_KEY',
} as const;

export type HostedFamily = keyof typeof KEY_VARIABLES;

/** Optional key for local servers started with one (e.g. `vllm serve --api-key`). */
export const LOCAL_KEY_VARIABLE = 'LOCAL_API_KEY';

/**
 * Returns the key given explicitly or found in the environment; otherwise throws `missing_crystal`
 * naming the variable to set. The message names the variable, never a value.
 */
export function requireKey(
  family: HostedFamily,
  apiKey: string | undefined,
  env: Record<string, string | undefined> = process.env,
): string {
  const variable = KEY_VARIABLES[family];
  const key = apiKey ?? env[variable];
  if (key === undefined || key.trim() === '') {
    throw new CrystalError('missing_crystal', `${family} crystal needs an API key: set the environment variable ${variable}`);
  }
  return key.trim();
}

import type { Usage } from '../../schemas/index.ts';

/** Zero counts. */
export function emptyUsage(): Usage {
  return { prompt: 0, completion: 0, cached: 0 };
}

/** PROD-3: usage adds up, per turn (over its queries) and per entity (over its turns). */
export function addUsage(total: Usage, more: Usage): Usage {
  return {
    prompt: total.prompt + more.prompt,
    completion: total.completion + more.completion,
    cached: total.cached + more.cached,
  };
}

/** Tokens that count against a `maxTokens` ward: what was sent plus what came back. */
export function billedTokens(usage: Usage): number {
  return usage.prompt + usage.completion;
}

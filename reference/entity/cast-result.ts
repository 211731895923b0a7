import type { Turn, TruncationCause, Usage } from '../../schemas/index.ts';
import type { CantripError } from '../errors.ts';

/** How one cast ended (the reference's form of the spec's terminated / truncated outcome). */
export interface CastResult {
  entityId: string;
  status: 'terminated' | 'truncated';
  /** The done gate's answer, or the text of an implicit termination (LOOP-6). */
  result?: unknown;
  truncationCause?: TruncationCause;
  /** LOOP-4: what was done before the cut. */
  summary?: string;
  /** Set when the cast ended because the crystal failed or answered with something unusable. */
  error?: CantripError;
  /** PROD-3: the entity's cumulative usage after this cast. */
  usage: Usage;
  /** This cast's turns, as stored in the loom. */
  turns: Turn[];
}

/** Where a cast starts: a fresh intent, or none for a forked entity carrying on its thread (LOOM-4). */
export interface CastStart {
  intent: string | null;
  /** Cancels this cast from outside: it ends truncated with the loop's `CANCELLED` cause, the entity lives on. */
  signal?: AbortSignal;
}

import { CantripError } from '../errors.ts';
import { atLeast, type Draft } from './draft.ts';

/** The most children one `call_entity_batch` call may ask for from 0.2.0 on (COMP-3's suggested limit). */
export const MAX_BATCH_SIZE = 50;

/**
 * How many children one batch may ask for, by draft.
 *
 * - 0.1.0, COMP-3: every child of a batch runs (concurrently, at most `max_concurrency` at a time);
 *   no size limit, since refusing a batch is not running its children.
 * - 0.2.0 and 0.3.1, COMP-3 (amended): implementations should bound batches, 8 at once and 50 per batch.
 *   The reference refuses a larger batch before any child runs (`invalid_gate_arguments`); the
 *   concurrency bound (default 8) is the same at every draft.
 *
 * The draft is the one the batch gate was built for (the adapter builds it for its cantrip's draft).
 */
// Stryker disable all: not constrained by the spec (docs/mutation.md): COMP-3's 50 per batch is a suggested default under a SHOULD, so any bound, or none, reads as conformant (docs/OPEN-CHOICES.md, "Batch limits"); no case sends more than four children.
export function checkBatchSize(draft: Draft, requested: number): void {
  if (atLeast(draft, '0.2.0') && requested > MAX_BATCH_SIZE) {
    throw new CantripError('invalid_gate_arguments', `a batch may ask for at most ${MAX_BATCH_SIZE} children, not ${requested}`);
  }
}
// Stryker restore all

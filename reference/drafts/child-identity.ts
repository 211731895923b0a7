import { createCall, type Call } from '../call/call.ts';
import { atLeast, type Draft } from './draft.ts';

/**
 * The system prompt of a child given no identity at 0.3.1 (COMP-10): a worker's, the reference's own words.
 */
export const GENERIC_CHILD_PROMPT = 'You are a child entity working on one delegated task. Pursue the intent you are given and finish by calling done with the result.';

/**
 * The call (identity) of a child whose request and composition gate named none.
 *
 * - 0.1.0, COMP-7 (and spec 5.1, whose `system_prompt` defaults to the parent's), and 0.2.0, COMP-7
 *   (defaults typically inherited from the parent): the parent's call.
 * - 0.3.1, COMP-10: a generic child identity of the reference's own, {@link GENERIC_CHILD_PROMPT} with no
 *   hyperparameters; never the parent's system prompt. The child is a worker, not a clone.
 *
 * A call named by the request (`system_prompt`) or configured on the composition gate wins at every draft.
 */
export function childCall(draft: Draft, named: Call | undefined, parent: Call): Call {
  if (named) return named;
  return atLeast(draft, '0.3.1') ? GENERIC_CHILD_CALL : parent;
}

const GENERIC_CHILD_CALL: Call = createCall({ systemPrompt: GENERIC_CHILD_PROMPT });

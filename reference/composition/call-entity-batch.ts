import { defineGate, type Gate } from '../circle/gate.ts';
import { toGateError } from '../circle/gate-execution.ts';
import { CantripError } from '../errors.ts';
import { answerOf, childRequestSchema, runChild, type CompositionDependencies } from './call-entity.ts';
import { CALL_ENTITY_BATCH } from './names.ts';
import { checkBatchSize } from '../drafts/batch-size.ts';
import { DEFAULT_DRAFT } from '../drafts/draft.ts';

/** Children of one batch running at once when no `maxConcurrency` ward says otherwise. */
export const DEFAULT_BATCH_CONCURRENCY = 8;

/**
 * The `call_entity_batch` gate (§5.2): runs several children at once (COMP-3), at most
 * `maxConcurrency` at a time (a ward), and returns one entry per request IN REQUEST ORDER, whatever
 * order they finish in. A child that finished gives its answer as it is, so the result is the plain
 * list the spec's 5.3 example joins; a child that failed gives `{ error: { name, message } }` in its
 * slot (our choice, docs/reference.md), and its failure is that slot's, not the batch's (COMP-8).
 * From 0.2.0 a batch of more than 50 is refused before any child runs (reference/drafts/batch-size.ts).
 */
export function callEntityBatchGate(dependencies: CompositionDependencies = {}, options: { maxConcurrency?: number } = {}): Gate {
  return defineGate(
    {
      name: CALL_ENTITY_BATCH,
      description: 'Delegate several sub-tasks to child entities running concurrently; returns their results in request order.',
      parameters: {
        type: 'object',
        properties: { intents: { type: 'array', items: childRequestSchema(dependencies.draft), minItems: 1, description: 'One entry per child.' } },
        required: ['intents'],
      },
    },
    async (args, context) => {
      const requests = args.intents;
      if (!Array.isArray(requests) || requests.length === 0) {
        throw new CantripError('invalid_gate_arguments', 'intents must be a non-empty list');
      }
      checkBatchSize(dependencies.draft ?? DEFAULT_DRAFT, requests.length);
      const limit = Math.max(1, options.maxConcurrency ?? DEFAULT_BATCH_CONCURRENCY);
      const results: unknown[] = new Array(requests.length);
      let next = 0;
      // A small pool: each worker takes the next request; results land at their request's index.
      const worker = async () => {
        while (next < requests.length) {
          const index = next++;
          try {
            results[index] = answerOf(await runChild(requests[index], context, dependencies));
          } catch (error) {
            results[index] = { error: toGateError(error) };
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(limit, requests.length) }, worker));
      return results;
    },
  );
}

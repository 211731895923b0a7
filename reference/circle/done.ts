import { defineGate, type Gate } from './gate.ts';
import { checkDoneArguments } from '../drafts/done-call.ts';
import { DEFAULT_DRAFT, type Draft } from '../drafts/draft.ts';

/** The name of the gate that ends a cast (CIRCLE-1). */
export const DONE = 'done';

/**
 * The `done` gate (CIRCLE-1, CIRCLE-8): takes the answer and hands it back. The circle, not the gate,
 * stops the loop once the call has been processed (LOOP-3).
 *
 * `declared` (feature `done-parameters`): an argument schema the cantrip's author chose, presented to
 * the crystal exactly as given (CIRCLE-11). The answer is then the `answer` argument when the schema
 * declares one, else the whole argument object.
 *
 * `draft`: from 0.2.0 a call missing a required argument fails instead of finishing (LOOP-7; at 0.1.0
 * it finishes with no answer, LOOP-3), decided in reference/drafts/done-call.ts.
 */
export function doneGate(declared?: Record<string, unknown>, draft: Draft = DEFAULT_DRAFT): Gate {
  const ownsAnswer = declared === undefined || Object.hasOwn((declared.properties ?? {}) as object, 'answer');
  const parameters = declared ?? {
    type: 'object',
    properties: { answer: { description: 'The result of the task.' } },
    required: ['answer'],
    additionalProperties: false,
  };
  return defineGate(
    {
      name: DONE,
      description: 'Finish the task and return the answer. Call it once, when the work is complete.',
      parameters,
    },
    async (args) => {
      checkDoneArguments(draft, parameters, args);
      return ownsAnswer ? args.answer : args;
    },
  );
}

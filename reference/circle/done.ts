import { defineGate, type Gate } from './gate.ts';

/** The name of the gate that ends a cast (CIRCLE-1). */
export const DONE = 'done';

/**
 * The `done` gate (CIRCLE-1, CIRCLE-8): takes the answer and hands it back. The circle, not the gate,
 * stops the loop once the call has been processed (LOOP-3).
 *
 * `declared` (feature `done-parameters`): an argument schema the cantrip's author chose, presented to
 * the crystal exactly as given (CIRCLE-11). The answer is then the `answer` argument when the schema
 * declares one, else the whole argument object.
 */
export function doneGate(declared?: Record<string, unknown>): Gate {
  const ownsAnswer = declared === undefined || Object.hasOwn((declared.properties ?? {}) as object, 'answer');
  return defineGate(
    {
      name: DONE,
      description: 'Finish the task and return the answer. Call it once, when the work is complete.',
      parameters: declared ?? {
        type: 'object',
        properties: { answer: { description: 'The result of the task.' } },
        required: ['answer'],
        additionalProperties: false,
      },
    },
    async (args) => (ownsAnswer ? args.answer : args),
  );
}

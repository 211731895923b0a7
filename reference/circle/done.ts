import { defineGate, type Gate } from './gate.ts';

/** The name of the gate that ends a cast (CIRCLE-1). */
export const DONE = 'done';

/**
 * The `done` gate (CIRCLE-1, CIRCLE-8): takes the answer and hands it back. The circle, not the gate,
 * stops the loop once the call has been processed (LOOP-3).
 */
export function doneGate(): Gate {
  return defineGate(
    {
      name: DONE,
      description: 'Finish the task and return the answer. Call it once, when the work is complete.',
      parameters: {
        type: 'object',
        properties: { answer: { description: 'The result of the task.' } },
        required: ['answer'],
        additionalProperties: false,
      },
    },
    async (args) => args.answer,
  );
}

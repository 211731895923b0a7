import { CantripError } from '../errors.ts';
import { atLeast, type Draft } from './draft.ts';

/**
 * Whether a `done` call that lacks an argument its schema requires is refused, by draft.
 *
 * - 0.1.0, LOOP-3 and CIRCLE-8: a done call ends the loop once processed; one missing its answer ends it
 *   with no answer (null), as before.
 * - 0.2.0 and 0.3.1, LOOP-7: a malformed done (a required argument missing) must not terminate. The done
 *   gate fails instead (`invalid_gate_arguments`), the failure is the call's record in the observation
 *   (CIRCLE-5), and the wards go on as usual. Both mediums rely on that: the conversation medium ends a
 *   turn only on a done call that succeeded, and in the code medium the failure is thrown into the
 *   program, which keeps running.
 *
 * A done that fails for another reason (a host-given done that throws) never terminates, at every draft:
 * LOOP-7 from 0.2.0 on; at 0.1.0 the reference reads a failed call as not having ended the task.
 */
export function checkDoneArguments(draft: Draft, parameters: Record<string, unknown>, args: Record<string, unknown>): void {
  // Stryker disable next-line ConditionalExpression,StringLiteral: not constrained by the spec at 0.1.0 (docs/OPEN-CHOICES.md, "A done call missing its answer, at 0.1.0").
  if (!atLeast(draft, '0.2.0')) return;
  // Stryker disable next-line MethodExpression,ConditionalExpression: equivalent (docs/mutation.md): a JSON Schema's required list names properties by string only.
  const required = Array.isArray(parameters.required) ? (parameters.required as unknown[]).filter((name): name is string => typeof name === 'string') : [];
  // Stryker disable next-line LogicalOperator,ConditionalExpression: equivalent (docs/mutation.md): arguments arrive as JSON, which has no undefined, so a present argument is never undefined.
  const missing = required.filter((name) => !Object.hasOwn(args, name) || args[name] === undefined);
  // Stryker disable next-line StringLiteral: not constrained by the spec (docs/OPEN-CHOICES.md, "How a broken done is reported"): LOOP-7 asks only that the loop go on; the error's code is the reference's.
  if (missing.length > 0) throw new CantripError('invalid_gate_arguments', `done needs ${missing.map((name) => `'${name}'`).join(', ')}; the task is not finished`);
}

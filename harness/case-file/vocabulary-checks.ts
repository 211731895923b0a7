/**
 * Load-time checks for the vocabulary added for cases translated from outside suites (issue 22): a
 * fold triggered by turn count, done with a declared argument schema, and a crystal query that throws.
 * Each problem is a JSON pointer into the case and what is wrong, reported by the loader at file:line:col.
 */
import type { Case, ScriptStep } from './types.ts';

type Problem = [pointer: string, message: string];

/**
 * - `folding.after_turns` must come with `folding-turn-trigger` in requires, and a done gate with
 *   `parameters` with `done-parameters`: an implementation without the feature would otherwise run the
 *   case and fail what it was never asked to do;
 * - a step that `throws` can only be served through the callback (a wire transport has no way to throw
 *   into the implementation's own client), so its case must name `transports: [callback]`.
 */
export function checkAddedVocabulary(c: Case, at: string): Problem[] {
  const problems: Problem[] = [];
  const requires = new Set<string>(c.requires ?? []);
  if (c.setup.folding?.after_turns !== undefined && !requires.has('folding-turn-trigger')) {
    problems.push([`${at}/setup/folding/after_turns`, 'a case that sets folding.after_turns must list folding-turn-trigger in requires']);
  }
  (c.setup.circle?.gates ?? []).forEach((gate, i) => {
    if (typeof gate === 'object' && gate.name === 'done' && gate.parameters !== undefined && !requires.has('done-parameters')) {
      problems.push([`${at}/setup/circle/gates/${i}/parameters`, 'a case that declares parameters for done must list done-parameters in requires']);
    }
  });
  const callbackOnly = c.transports !== undefined && c.transports.length === 1 && c.transports[0] === 'callback';
  for (const [name, crystal] of Object.entries(c.crystals ?? {})) {
    const lists: [string, ScriptStep[]][] = [['script', crystal.script ?? []], ...Object.entries(crystal.by_intent ?? {}).map(([k, steps]) => [`by_intent/${escapePointer(k)}`, steps] as [string, ScriptStep[]])];
    for (const [where, steps] of lists) {
      steps.forEach((step, j) => {
        if (step.throws !== undefined && !callbackOnly) problems.push([`${at}/crystals/${escapePointer(name)}/${where}/${j}/throws`, 'a case with a step that throws must name transports: [callback] (a wire transport cannot throw into the implementation)']);
      });
    }
  }
  return problems;
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

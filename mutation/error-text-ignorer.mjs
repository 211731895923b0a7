/**
 * A Stryker ignorer (docs/mutation.md): mutants inside the message of a thrown error are equivalent
 * under the conformance suite, which judges error codes and names, never message text (the kit's own
 * standard: no assertions on English error text). Without it every error message of reference/ would
 * show as a surviving mutant. Codes (CantripError's first argument) are still mutated: they are judged.
 *
 * Plain JavaScript and no import: Stryker loads plugins itself, outside vitest and tsx.
 */

/** The index of the message argument, per error class of reference/ (the ones it throws with `new`). */
const MESSAGE_ARGUMENT = {
  Error: 0,
  TypeError: 0,
  RangeError: 0,
  AgentOptionsError: 0,
  CantripError: 1,
  CrystalError: 1,
  HandlerError: 1,
  LoomLoadError: 2,
};

const REASON = 'equivalent under the conformance suite: error message text, never judged (docs/mutation.md)';

const errorTextIgnorer = {
  shouldIgnore(path) {
    const parent = path.parentPath;
    if (!parent || parent.node.type !== 'NewExpression' || parent.node.callee.type !== 'Identifier') return undefined;
    const index = MESSAGE_ARGUMENT[parent.node.callee.name];
    if (index === undefined || parent.node.arguments[index] !== path.node) return undefined;
    return REASON;
  },
};

export const strykerPlugins = [{ kind: 'Ignore', name: 'error-text', value: errorTextIgnorer }];

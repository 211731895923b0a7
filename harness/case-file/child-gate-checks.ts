/**
 * Load-time checks of `child_gates` (feature `child-gates`): gates a delegation gate holds for its
 * children beyond the parent's (COMP-1, COMP-7 from 0.2.0). Only a delegation gate takes them, and only
 * test gates can be bound that way (the harness answers their calls; a built-in gate's dependencies are
 * the implementation's own). Each problem is a JSON pointer into the case and what is wrong, reported by
 * the loader at file:line:col.
 */
import type { Case, CaseGate } from './types.ts';

type Problem = [pointer: string, message: string];

const COMPOSITION_GATES = new Set(['call_entity', 'call_entity_batch']);
/** Shorthand names of the harness's test gates; any other name is one only with `behaves_as`. */
const TEST_GATE_NAMES = new Set(['echo', 'fail', 'delay', 'counter']);

function isTestGate(gate: CaseGate): boolean {
  if (typeof gate === 'string') return TEST_GATE_NAMES.has(gate);
  return gate.behaves_as !== undefined || TEST_GATE_NAMES.has(gate.name);
}

export function checkChildGates(c: Case, at: string): Problem[] {
  const problems: Problem[] = [];
  (c.setup.circle?.gates ?? []).forEach((gate, i) => {
    if (typeof gate === 'string' || gate.child_gates === undefined) return;
    const where = `${at}/setup/circle/gates/${i}/child_gates`;
    if (!COMPOSITION_GATES.has(gate.name)) {
      problems.push([where, `only call_entity and call_entity_batch take child_gates, not '${gate.name}'`]);
      return;
    }
    gate.child_gates.forEach((child, j) => {
      if (!isTestGate(child)) problems.push([`${where}/${j}`, `'${typeof child === 'string' ? child : child.name}' is not a test gate: child_gates binds test gates only (echo, fail, delay, counter, or a name with behaves_as)`]);
    });
  });
  return problems;
}

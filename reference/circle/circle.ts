import type { ToolDefinition } from '../../schemas/index.ts';
import { CantripError } from '../errors.ts';
import { DONE } from './done.ts';
import { COMPOSITION_GATES } from '../composition/names.ts';
import type { Gate } from './gate.ts';
import { conversationMedium } from './medium/conversation.ts';
import type { Medium } from './medium/medium.ts';
import { hasTruncationWard, type Wards } from './wards.ts';
import { checkVerifiers, type Verifier } from './verifiers.ts';
import type { ChildLimits } from './child-limits.ts';

/** The environment an entity acts in: one medium, its gates, its wards (chapter 4). */
export interface Circle {
  readonly medium: Medium;
  /** The gates left after removal wards, by name. Wards are applied here, once, not by the entity (CIRCLE-6). */
  readonly gates: ReadonlyMap<string, Gate>;
  readonly wards: Wards;
  /** CIRCLE-11, CALL-3 (0.1.0) / IDENTITY-3 (0.2.0+): the capability presentation, sent as `tools` on every query. */
  readonly tools: readonly ToolDefinition[];
  /** Checks every gate call must pass before it runs, first one first (CIRCLE-6); see verifiers.ts. */
  readonly verifiers: readonly Verifier[];
  /** What the circle of a child spawned from this one may be (COMP-1, WARD-1); see child-limits.ts. */
  readonly childLimits: ChildLimits | undefined;
}

/**
 * Builds a circle and checks it can be used (CIRCLE-1, CIRCLE-2): a `done` gate must survive the
 * wards (`missing_done_gate`), and some ward must guarantee the loop ends (`missing_truncation_ward`).
 * Gate dependencies are already bound inside each gate (CIRCLE-10); names must be unique.
 * A verifier that refuses every call of `done` takes it away as surely as a removal ward does, so it
 * is refused the same way (CIRCLE-1).
 */
export function createCircle(options: {
  gates: readonly Gate[];
  wards: Wards;
  /** MEDIUM-1 (0.3.1): absent means the conversation medium. */
  medium?: Medium;
  verifiers?: readonly Verifier[];
  childLimits?: ChildLimits;
}): Circle {
  const removed = new Set(options.wards.removeGates ?? []);
  // COMP-6: with no depth left the composition gates are warded off entirely.
  if (options.wards.maxDepth === 0) for (const name of COMPOSITION_GATES) removed.add(name);
  const gates = new Map<string, Gate>();
  for (const gate of options.gates) {
    const name = gate.definition.name;
    if (gates.has(name)) throw new CantripError('invalid_gate_arguments', `two gates are named '${name}'`);
    if (!removed.has(name)) gates.set(name, gate);
  }
  if (!gates.has(DONE)) throw new CantripError('missing_done_gate', 'the circle has no done gate');
  const verifiers = Object.freeze([...(options.verifiers ?? [])]);
  checkVerifiers(verifiers);
  const barring = verifiers.find((verifier) => verifier.forbids(DONE));
  if (barring) throw new CantripError('missing_done_gate', `verifier '${barring.name}' refuses every call of done`);
  if (!hasTruncationWard(options.wards)) {
    throw new CantripError('missing_truncation_ward', 'the circle needs a max_turns or timeout ward');
  }
  const medium = options.medium ?? conversationMedium;
  return Object.freeze({
    medium,
    gates,
    wards: Object.freeze({ ...options.wards }),
    tools: Object.freeze(medium.present([...gates.values()])),
    verifiers,
    childLimits: options.childLimits,
  });
}

import type { Circle } from '../circle/circle.ts';
import type { Gate } from '../circle/gate.ts';
import { DONE } from '../circle/done.ts';
import { codeMedium } from '../circle/medium/code-medium.ts';
import { conversationMedium } from '../circle/medium/conversation.ts';
import type { Medium } from '../circle/medium/medium.ts';
import type { Wards } from '../circle/wards.ts';
import type { Crystal } from '../crystal/contract.ts';
import { CantripError } from '../errors.ts';
import { atLeast, type Draft } from './draft.ts';

/**
 * Where a child's circle comes from: the one difference between the drafts in how `call_entity` and
 * `call_entity_batch` build a child (the spawner, composition/spawn.ts, asks this module and nothing else).
 *
 * - 0.1.0, COMP-1 and COMP-7: the child's circle is carved from its parent's. It gets the parent's
 *   medium and only gates the parent has (asking for another is refused, `gate_not_granted`); only its
 *   crystal and call may differ.
 * - 0.2.0 and 0.3.1, COMP-1 (reversed) and COMP-7 (reversed): the child's circle is built on its own.
 *   A request may name another medium (`medium`: `conversation` or `code`) and another LLM by name
 *   (`llm`, resolved by the composition gate's construction-time dependency, CIRCLE-10), and its gates
 *   may come from the parent's circle or from the gates the composition gate was given for children at
 *   construction, which the parent itself need not hold. The parent constrains the child only through
 *   wards (WARD-1): the composed wards still remove what the parent's wards removed, its verifiers
 *   and child limits still hold, and a gate nobody configured is still refused (`gate_not_granted`).
 *
 * Absent fields inherit from the parent at every draft (the 0.2.0 text: defaults typically come from the
 * parent), so a request without `medium`, `llm` or `gates` builds the same child at every draft.
 */
export interface ChildCircleParts {
  gates: Gate[];
  medium: Medium;
  /** The LLM the request named (0.2.0+); absent: the spawner's usual choice. */
  crystal?: Crystal;
}

/** What the spawner knows when it builds a child's circle. */
export interface ChildCircleInput {
  draft: Draft;
  parent: Circle;
  /** The child's composed wards (WARD-1); a child in the code medium gets its evaluation limits from them. Gates removed at depth 0 are left to the circle (COMP-6, COMP-11). */
  wards: Wards;
  /** Gate names the request asked for; absent: all of the parent's. */
  gates?: readonly string[];
  /** The medium the request asked for (0.2.0+). */
  medium?: string;
  /** The LLM the request named (0.2.0+). */
  llm?: string;
  /** Gates the composition gate holds for children, beyond the parent's own (0.2.0+, CIRCLE-10). */
  childGates?: readonly Gate[];
  /** Turns an LLM name into a crystal (0.2.0+, CIRCLE-10). */
  crystalNamed?: (name: string) => Crystal;
}

/** The mediums a request may name from 0.2.0 on. */
export const CHILD_MEDIUMS = ['conversation', 'code'] as const;

/** COMP-1, COMP-7 at the cantrip's draft: the gates, medium and (0.2.0+) LLM of a child's circle. */
export function childCircleParts(input: ChildCircleInput): ChildCircleParts {
  const independent = atLeast(input.draft, '0.2.0');
  // Stryker disable all: not constrained by the spec (docs/OPEN-CHOICES.md, "A child's medium or LLM asked for at 0.1.0, or declined later"): at 0.1.0 refusing the field or ignoring it builds the same child (the parent's medium, the gate's crystal); refusing it later declines a MAY.
  if (!independent && input.medium !== undefined && input.medium !== input.parent.medium.kind) {
    throw new CantripError('gate_not_granted', `at draft ${input.draft} a child's circle is its parent's (COMP-1): no ${input.medium} medium for a child of a ${input.parent.medium.kind} circle`);
  }
  if (!independent && input.llm !== undefined) {
    throw new CantripError('invalid_gate_arguments', `at draft ${input.draft} a child's crystal comes from the gate's configuration, not an llm argument`);
  }
  // Stryker restore all
  // The parent's gates are what its wards left (CIRCLE-6); a gate its wards removed is not handed on
  // from the children's gates either (WARD-1), whichever draft.
  const available = new Map<string, Gate>(input.parent.gates);
  // Stryker disable next-line all: equivalent (docs/mutation.md): the child's circle drops a removed gate again, its composed wards keeping the parent's removals (WARD-1).
  const removed = new Set(input.parent.wards.removeGates ?? []);
  // Stryker disable next-line ConditionalExpression,BlockStatement: not constrained by the spec: from 0.2.0 a child's gates from the composition gate are a MAY, and a child asking for one may be refused (comp1-child-asks-for-a-gate-its-parent-lacks); 0.1.0 is held by comp1-gate-held-for-children-not-granted-at-0-1-0.
  if (independent) {
    // Stryker disable next-line BlockStatement: not constrained by the spec: not handing on the gates held for children refuses the child that asks for one (a MAY declined).
    for (const gate of input.childGates ?? []) {
      const name = gate.definition.name;
      // Stryker disable next-line all: not constrained by the spec (docs/OPEN-CHOICES.md, "A gate both the parent and the children's gates hold under one name"); a removed gate is dropped again by the child's circle (WARD-1); not adding one refuses the child that asks for it (a MAY declined).
      if (!available.has(name) && !removed.has(name)) available.set(name, gate);
    }
  }
  const asked = input.gates ?? [...input.parent.gates.keys()];
  const gates: Gate[] = [];
  for (const name of new Set([DONE, ...asked])) {
    const gate = available.get(name);
    // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent (docs/mutation.md): without the check the child's circle cannot be built and the child is refused all the same; the error code is the reference's (docs/OPEN-CHOICES.md, choice 4).
    if (!gate) throw new CantripError('gate_not_granted', independent ? `no gate '${name}' is configured for a child` : `the parent has no gate '${name}' to give its child`);
    gates.push(gate);
  }
  return {
    gates,
    medium: childMedium(independent ? input.medium : undefined, input.parent.medium, input.wards),
    ...(independent && input.llm !== undefined ? { crystal: namedCrystal(input.llm, input.crystalNamed) } : {}),
  };
}

/**
 * The child's medium: the one asked for (0.2.0+), else its parent's kind. A code medium is built anew
 * from the child's composed wards, at every draft, so its evaluation limits are the smaller of the
 * parent's and the child's own (WARD-1; WARD-2 from 0.2.0 names such medium wards), never the parent's
 * medium carried over with the parent's looser limits.
 */
function childMedium(asked: string | undefined, parent: Medium, wards: Wards): Medium {
  const kind = asked ?? parent.kind;
  if (kind === 'conversation') return conversationMedium;
  // Stryker disable next-line ConditionalExpression: not constrained by the spec: neither draft says what a medium name other than conversation and code builds; no case asks for one.
  if (kind === 'code') return codeMedium(wards);
  // Stryker disable next-line StringLiteral: equivalent (docs/mutation.md): the error code is the reference's (docs/OPEN-CHOICES.md, choice 4).
  throw new CantripError('invalid_gate_arguments', `medium must be one of ${CHILD_MEDIUMS.join(', ')}, not '${kind}'`);
}

function namedCrystal(name: string, crystalNamed: ((name: string) => Crystal) | undefined): Crystal {
  // Stryker disable next-line all: equivalent (docs/mutation.md): the adapter always binds crystalNamed; refusing the llm field declines a MAY (comp7-child-asking-for-another-llm-gets-it passes a refusal).
  if (!crystalNamed) throw new CantripError('unsupported', `this composition gate was built without a way to reach an LLM by name ('${name}')`);
  return crystalNamed(name);
}

/**
 * The request options a composition gate presents beyond the 0.1.0 ones, at the gate's draft (CIRCLE-11):
 * from 0.2.0 on a request may name the child's medium and LLM (spec 0.2.0 and 0.3.1, 5.1), and a
 * code child's evaluation deadline, a medium ward (MEDIUM-4) composed with the parent's (WARD-2).
 * The request parser takes that deadline at every draft: composed by the smaller, it can only tighten.
 */
export function childRequestOptions(draft: Draft): Record<string, unknown> {
  // Stryker disable all: not constrained by the spec: what the gate presents of its MAY options; presenting fewer declines them (the cases that use them skip), presenting them at 0.1.0 breaks no rule, and the descriptions and schema details are text for the LLM that no rule judges (the kit finds an option by its name).
  if (!atLeast(draft, '0.2.0')) return {};
  return {
    medium: { type: 'string', enum: [...CHILD_MEDIUMS], description: "The child's medium; the parent's when absent." },
    llm: { type: 'string', description: 'The name of the LLM the child uses; the configured one when absent.' },
    eval_timeout_ms: { type: 'integer', minimum: 1, description: "A code child's deadline for one evaluation, in ms; never looser than the parent's." },
  };
  // Stryker restore all
}

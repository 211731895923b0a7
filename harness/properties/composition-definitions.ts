/**
 * Composition properties (spec chapter 5, LOOM-8, LOOM-12): each turns the composition model's
 * prediction into expectations, with `checks` and `assumes` as in `definitions.ts`.
 *
 * Children share one crystal and may run at once, so their requests arrive interleaved: checks on
 * `requests.child` hold for every request (`every`) or for the whole set, never for "the k-th child's
 * request". Most properties assume the routing holds (each child request starts with a child's own
 * intent), since a child whose requests do not reach its script cannot end as modelled; that is
 * COMP-4's business. Further assumptions are named where they are made.
 */
import type { Expectation, Matcher } from '../case-types.ts';
import { CHILD_CRYSTAL } from './composition-case.ts';
import { PARENT_INTENT, PARENT_NOTE, type CompositionPlan, type PlannedChild } from './composition-model.ts';
import type { PropertyDefinition, PropertyExpectations } from './definitions.ts';

const x = (path: string, matcher: Matcher): Expectation => ({ path, ...matcher });
const requests = `requests.${CHILD_CRYSTAL}`;
const parentTurns = 'loom.cast(first)';
const spawnRecord = (p: CompositionPlan): string => `${parentTurns}[${p.spawnTurn}].gate_calls[0]`;
const running = (p: CompositionPlan): PlannedChild[] => p.children.filter((c) => c.runs);
const none: PropertyExpectations = { checks: [], assumes: [] };

/** Every child request starts with the intent of a child that runs (so `by_intent` serves its script). */
const routed = (p: CompositionPlan): Expectation[] => {
  const intents = running(p).map((c) => c.intent);
  return intents.length === 0 ? [] : [x(`${requests}[*].messages[role=user][0].content`, { every: { one_of: intents } })];
};

/** COMP-4: no child request holds the parent's intent or the reply to a gate call the parent made earlier. */
const childContextIsOwn: PropertyDefinition<CompositionPlan> = {
  id: 'child-starts-with-its-own-context',
  rules: ['COMP-4'],
  level: 'MUST',
  title: "no child's request carries the parent's intent or the results of gate calls the parent made before delegating",
  requires: ['composition'],
  invariants: [],
  expectations: (p) => {
    if (running(p).length === 0) return none;
    const checks = [x(`${requests}[*].messages`, { every: { not_contains: { role: 'user', content: PARENT_INTENT } } })];
    if (p.scenario.before) checks.push(x(`${requests}[*].messages`, { every: { not_contains: { role: 'tool', tool_call_id: PARENT_NOTE.id } } }));
    return { checks, assumes: [] };
  },
};

/** COMP-6: at the default depth (1) no child is offered a delegation gate. */
const noDelegationAtDepthZero: PropertyDefinition<CompositionPlan> = {
  id: 'children-cannot-delegate-at-default-depth',
  rules: ['COMP-6'],
  level: 'MUST',
  title: 'with the default max_depth, no child request offers call_entity or call_entity_batch',
  requires: ['composition'],
  invariants: [],
  expectations: (p) => {
    if (running(p).length === 0) return none;
    const names = `${requests}[*].tools[*].name`;
    return { checks: [x(names, { every: { not_contains: 'call_entity' } }), x(names, { every: { not_contains: 'call_entity_batch' } })], assumes: [] };
  },
};

/**
 * COMP-1: a child is offered done plus the gates it asked for (all the parent's when it asked for
 * none), and asking for a gate the parent lacks is refused with `gate_not_granted` before any child
 * runs. Requests of several children cannot be told apart, so the checks use what all children share
 * and what none asked for; with one tool set (always so for one child) the set is pinned exactly.
 * Assumes COMP-6's checks (a delegation gate would change the count).
 */
const childGatesAreASubset: PropertyDefinition<CompositionPlan> = {
  id: 'child-gates-are-a-granted-subset',
  rules: ['COMP-1'],
  level: 'MUST',
  title: "a child's tools are done plus the gates it asked for, and asking for a gate the parent lacks is refused with gate_not_granted",
  requires: ['composition'],
  invariants: [],
  expectations: (p) => {
    const checks: Expectation[] = [];
    if (p.children.some((c) => !c.runs)) {
      checks.push(x(`${spawnRecord(p)}.ok`, { equals: false }), x(`${spawnRecord(p)}.error`, { matches_code: 'gate_not_granted' }), x(requests, { absent: true }));
    }
    const sets = running(p).map((c) => c.tools);
    if (sets.length === 0) return { checks, assumes: [] };
    const names = `${requests}[*].tools[*].name`;
    const all = ['done', ...p.parentGates];
    for (const g of all) {
      if (sets.every((s) => s.includes(g))) checks.push(x(names, { every: { contains: g } }));
      else if (!sets.some((s) => s.includes(g))) checks.push(x(names, { every: { not_contains: g } }));
    }
    const sizes = new Set(sets.map((s) => s.join(',')));
    if (sizes.size === 1) checks.push(x(`${requests}[*].tools`, { every: { length: sets[0]?.length ?? 0 } }));
    return { checks, assumes: [...routed(p), ...noDelegationAtDepthZero.expectations(p).checks] };
  },
};

/** WARD-1: each child runs at most min(parent max_turns, its own max_turns) turns; one that needs more is truncated there. */
const childTurnCap: PropertyDefinition<CompositionPlan> = {
  id: 'child-turn-cap-is-the-smaller',
  rules: ['WARD-1'],
  level: 'MUST',
  title: "a child's turn cap is the smaller of its parent's max_turns and its own, and a child that reaches it unfinished is truncated with cause max_turns",
  requires: ['composition'],
  invariants: [],
  expectations: (p) => {
    const kids = running(p);
    if (kids.length === 0) return none;
    const checks = [
      x(requests, { length: kids.reduce((n, c) => n + c.turns, 0) }),
      x('loom.turns[truncation_cause=max_turns]', { length: kids.filter((c) => c.truncatedByCap).length }),
    ];
    return { checks, assumes: routed(p) };
  },
};

/**
 * COMP-8, COMP-2: the parent gets each child's answer, a child that failed or was cut off comes back
 * as `child_failed`, and the parent's own cast still ends with its done. For a batch the entries are
 * compared as a set here (their order is COMP-3's). Assumes WARD-1's checks (a child given another
 * turn count could end otherwise).
 */
const childFailureReturns: PropertyDefinition<CompositionPlan> = {
  id: 'child-failure-returns-to-parent',
  rules: ['COMP-8', 'COMP-2'],
  level: 'MUST',
  title: "a child's answer, or child_failed when it did not finish with done, is the parent's gate result, and the parent still ends with its own done",
  requires: ['composition'],
  invariants: [],
  expectations: (p) => {
    const at = spawnRecord(p);
    const checks = [x('outcomes.first.status', { equals: 'terminated' }), x('outcomes.first.result', { equals: p.scenario.answer }), x(parentTurns, { length: p.parentTurns })];
    const kids = running(p);
    if (p.gate === 'call_entity') {
      const [kid] = kids;
      if (kid?.answer.ok === true) checks.push(x(`${at}.ok`, { equals: true }), x(`${at}.result`, { equals: kid.answer.result }));
      else if (kid) checks.push(x(`${at}.ok`, { equals: false }), x(`${at}.error`, { matches_code: 'child_failed' }));
    } else {
      const failed = kids.filter((c) => !c.answer.ok);
      checks.push(x(`${at}.ok`, { equals: true }), x(`${at}.result`, { length: kids.length }), x(`${at}.result[ok=false]`, { length: failed.length }));
      if (failed.length > 0) checks.push(x(`${at}.result[ok=false][*].error`, { every: { matches_code: 'child_failed' } }));
      for (const c of kids) if (c.answer.ok) checks.push(x(`${at}.result[ok=true][*].result`, { contains: c.answer.result }));
    }
    return { checks, assumes: [...routed(p), ...childTurnCap.expectations(p).checks] };
  },
};

/** COMP-3: batch entries come back in request order, whatever order the children finished in. Assumes COMP-8's checks. */
const batchInRequestOrder: PropertyDefinition<CompositionPlan> = {
  id: 'batch-results-in-request-order',
  rules: ['COMP-3'],
  level: 'MUST',
  title: "call_entity_batch answers with one entry per child in request order, whatever each child's delay",
  requires: ['composition'],
  invariants: [],
  expectations: (p) => {
    if (p.gate !== 'call_entity_batch') return none;
    const at = `${spawnRecord(p)}.result`;
    const checks = [x(`${at}[*].ok`, { equals: p.children.map((c) => c.answer.ok) })];
    p.children.forEach((c, k) => {
      if (c.answer.ok) checks.push(x(`${at}[${k}].result`, { equals: c.answer.result }));
    });
    return { checks, assumes: [...routed(p), ...childFailureReturns.expectations(p).checks, ...childTurnCap.expectations(p).checks] };
  },
};

/**
 * COMP-5, LOOM-8, LOOM-12: each child's call turn hangs from the parent turn that delegated, the
 * child's first turn from its call turn, the parent's next turn from the delegating turn, and the loom
 * keeps one root. Assumes the parent's cast went as modelled and that call turns are stored in
 * request order after the parent's (matched by `cantrip_id`), so the k-th call turn is the k-th child's.
 */
const childSubtree: PropertyDefinition<CompositionPlan> = {
  id: 'child-subtree-hangs-from-spawning-turn',
  rules: ['COMP-5', 'LOOM-8', 'LOOM-12'],
  level: 'MUST',
  title: "every child's turns form a subtree under the parent turn that spawned it, and the loom has one root per top-level cantrip",
  requires: ['composition'],
  invariants: ['ids-and-parents'],
  expectations: (p) => {
    const spawn = `${parentTurns}[${p.spawnTurn}].id`;
    const checks = [x('loom.turns[parent_id=null]', { length: 1 }), x(`${parentTurns}[${p.spawnTurn + 1}].parent_id`, { same_as: spawn })];
    const assumes = [...routed(p), x(parentTurns, { length: p.parentTurns }), x('loom.turns[role=call][0].parent_id', { equals: null })];
    const kids = running(p);
    if (kids.length > 0) checks.push(x('loom.turns[role=call]', { length: kids.length + 1 }));
    kids.forEach((c, j) => {
      const call = `loom.turns[role=call][${j + 1}]`;
      const first = `loom.turns[intent=${c.intent}][0]`;
      checks.push(x(`${call}.parent_id`, { same_as: spawn }), x(`${first}.parent_id`, { same_as: `${call}.id` }));
      assumes.push(x(`${call}.cantrip_id`, { same_as: `${first}.cantrip_id` }));
    });
    return { checks, assumes };
  },
};

/** Every composition property, in report order (a property's assumptions are earlier ones' checks). */
export const COMPOSITION_PROPERTIES: readonly PropertyDefinition<CompositionPlan>[] = [
  childContextIsOwn,
  noDelegationAtDepthZero,
  childGatesAreASubset,
  childTurnCap,
  childFailureReturns,
  batchInRequestOrder,
  childSubtree,
];

/**
 * Composition properties (spec chapter 5): each turns the composition model's prediction into
 * expectations, with `checks` and `assumes` as in `definitions.ts`.
 *
 * Children share one crystal and may run at once, so their requests arrive interleaved: checks on
 * `requests.child` hold for every request (`every`) or for the whole set, never for "the k-th child's
 * request". Children's turns are read through `loom.spawned(first)` (which looks through a child's call
 * turn, present or not), never through fields the spec does not define on a turn.
 *
 * Class of false failure these guard against: a check over child requests or child turns says nothing
 * when no child ran (an `every` over nothing fails), and a child that ran otherwise than modelled for a
 * reason outside a property's rule (its done answer refused as an argument, its done ignored, its
 * requests led by something else than its intent) says nothing about that rule either. So each property
 * assumes what it needs to have happened, and only that: some child queried its crystal, each child
 * that must run did, the child requests carry tool definitions and start with a child's own intent
 * (else `by_intent` cannot serve its script; a child given its parent's history is COMP-4's business),
 * every query was answered from the script, no done answer was refused, no child was cut off or made a
 * query after its outcome unless the model cuts it off. A property whose rule is about the children
 * running at all (COMP-2) does not assume that they ran.
 */
import type { Expectation } from '../case-file/index.ts';
import { CHILD_CRYSTAL } from './composition-case.ts';
import { CRYSTAL } from './build-case.ts';
import { PARENT_INTENT, PARENT_NOTE, type CompositionPlan, type PlannedChild } from './composition-model.ts';
import type { PropertyDefinition } from './definitions.ts';
import { BUILT, none, tagged, x } from './property-helpers.ts';

const requests = `requests.${CHILD_CRYSTAL}`;
/**
 * A gate result read as the entity saw it: a loom may keep the rendered text (docs/OPEN-CHOICES.md,
 * choice 22). `as_seen` reads the stored value (stepping into a text it renders, for a batch slot), and
 * the expected answer is compared as seen too (`seen_as`): a child's answer "0" shows as 0 once the
 * result is read as JSON, so plain `equals` or `contains` against the raw answer would fail a faithful
 * implementation.
 */
const seenEquals = (path: string, answer: unknown): Expectation => ({ path, seen_as: answer, as_seen: true });
/**
 * A batch's results as the implementation presents them (a list, or text no draft fixes the form of:
 * harness/values/batch-slots.ts): a child's slot shows its answer, any other child's slot is open.
 */
const batchSlots = (path: string, children: readonly PlannedChild[], order: 'request' | 'any'): Expectation => ({
  path,
  batch_results: {
    slots: children.map((c) => (c.answer.kind === 'answer' ? { answer: c.answer.value } : { any: true as const })),
    ...(order === 'any' && { any_order: true as const }),
  },
});
const parentTurns = 'loom.cast(first)';
const spawnTurn = (p: CompositionPlan): string => `${parentTurns}[${p.spawnTurn}]`;
const spawnRecord = (p: CompositionPlan): string => `${spawnTurn(p)}.gate_calls[0]`;
const sure = (p: CompositionPlan): PlannedChild[] => p.children.filter((c) => c.runs === 'yes');
/** Every child's count of queries and turns is predicted: it surely runs and its invalid reply, if any, is never served. */
const counted = (p: CompositionPlan): boolean => p.children.every((c) => c.runs === 'yes' && !c.invalidServed);

/** Some child queried its crystal. */
const someRan = x(requests, { present: true });
/** Each child that must run did: its intent arrived as a first user message. */
const eachRan = (p: CompositionPlan): Expectation[] => sure(p).map((c) => x(`${requests}[*].messages[role=user][0].content`, { contains: c.intent }));
/** Every child request starts with the intent of one of the children (so `by_intent` serves its script). */
const routed = (p: CompositionPlan): Expectation[] => [x(`${requests}[*].messages[role=user][0].content`, { every: { one_of: p.children.map((c) => c.intent) } })];
/**
 * Every child query was answered from the case's script: no reply was the mock's "nothing scripted"
 * error (a child whose requests do not start with its intent, or one that asked more than modelled).
 * Unlike `routed` it also holds when no child ran at all.
 */
const servedOnly = x(`replies.${CHILD_CRYSTAL}[ok=false][0]`, { absent: true });
/** Every request was placed by its intent (none filed as `_unplaced`, drive/mock-crystal.ts): a child that loses its intent is INTENT-2's business. */
const allPlaced = x('requests._unplaced', { absent: true });
/** The children's gates are presented as tool definitions (CIRCLE-11 also allows documenting them in the prompt). */
const toolsShown = x(`${requests}[*].tools[0]`, { every: { present: true } });
/**
 * No child was cut off that the model does not cut off: at most the capped children, and those served
 * an invalid reply (which may be stored as a truncated turn), have a turn marked truncated. A child cut
 * short by a wrong cap is WARD-1's business; a delegation that never ran a child leaves nothing
 * truncated, so it still counts against the properties that need the child's result.
 */
const notCutShort = (p: CompositionPlan): Expectation => x('loom.turns[truncated=true]', { length: { at_most: p.children.filter((c) => c.truncatedByCap || c.invalidServed).length } });
/**
 * Only a child the model cuts off by its cap made a query after its outcome was decided (the summary
 * LOOP-4 lets an implementation ask for, one each at most). A child that ran on past its done on the
 * last turn its cap allows asks one too; that is LOOP-3's business, not its cap's.
 */
const summariesOnly = (p: CompositionPlan): Expectation =>
  x(`after_outcome.${CHILD_CRYSTAL}`, { any_of: [{ absent: true }, { length: { at_most: p.children.filter((c) => c.truncatedByCap).length } }] });
/** No done call anywhere was refused (an answer its tool definition does not take). */
const noDoneRefused = x('loom.turns[*].gate_calls', { every: { not_contains: { gate: 'done', ok: false } } });

/**
 * Checks over every child request, written so that the printed case holds on each reading of an open
 * choice. When every child surely runs, `every` over `requests.child` (which fails on no requests).
 * When a child only maybe runs (it asked for a gate its parent lacks: refused, or run without it), each
 * check also accepts that no child request exists, so the case passes on an implementation that refuses.
 */
const overRequests = (p: CompositionPlan, checks: Expectation[]): Expectation[] => {
  if (p.children.every((c) => c.runs === 'yes')) return checks;
  return checks.map(({ path, ...matcher }) => ({ path, any_of: [{ absent: true as const }, matcher] }));
};

/**
 * COMP-4: a child has a context of its own and does not take over its parent's conversation history
 * (spec 5.1: it starts from its sub-intent and what the parent passes as context). So no child request
 * carries the parent's intent as a user message, nor the reply to the gate call the parent made
 * before delegating (as a tool message with that call's id, or as a message with exactly its text).
 */
const childContextIsOwn: PropertyDefinition<CompositionPlan> = {
  id: 'child-starts-with-its-own-context',
  rules: ['COMP-4'],
  level: 'MUST',
  title: "no child's request carries the parent's intent or the results of gate calls the parent made before delegating",
  requires: ['composition'],
  invariants: [],
  expectations: (p) => {
    const checks = [x(`${requests}[*].messages`, { every: { not_contains: { role: 'user', content: PARENT_INTENT } } })];
    if (p.scenario.before) {
      checks.push(
        x(`${requests}[*].messages`, { every: { not_contains: { role: 'tool', tool_call_id: PARENT_NOTE.id } } }),
        x(`${requests}[*].messages`, { every: { not_contains: { content: PARENT_NOTE.text } } }),
      );
    }
    return { checks: overRequests(p, checks), assumes: [BUILT, someRan] };
  },
};

/**
 * COMP-6: once max_depth reaches 0 the delegation gates are taken out of the circle; each child's depth
 * is its parent's less one (spec 5.4). The parent sets max_depth 1, so its children are at 0 and no
 * child request offers call_entity or call_entity_batch.
 */
const noDelegationAtDepthZero: PropertyDefinition<CompositionPlan> = {
  id: 'children-cannot-delegate-at-depth-zero',
  rules: ['COMP-6'],
  level: 'MUST',
  title: 'under a parent with max_depth 1, no child request offers call_entity or call_entity_batch',
  requires: ['composition'],
  invariants: [],
  expectations: (p) => {
    const names = `${requests}[*].tools[*].name`;
    const checks = [x(names, { every: { not_contains: 'call_entity' } }), x(names, { every: { not_contains: 'call_entity_batch' } })];
    return { checks: overRequests(p, checks), assumes: [BUILT, someRan, toolsShown] };
  },
};

/**
 * COMP-1: a child's circle is a subset of its parent's; no gate the parent lacks can be granted. So
 * every tool a child request offers is one of the parent's gates (done, its test gates, the delegation
 * gates, whose removal is COMP-6's business), whatever the child asked for: asking for a gate the parent
 * lacks may be refused or the child may run without it, but it never gets it. Which of the parent's gates a child
 * gets when it asks for some, or for none, the spec does not say, and is not checked.
 */
const childGatesAreASubset: PropertyDefinition<CompositionPlan> = {
  id: 'child-gates-are-a-granted-subset',
  rules: ['COMP-1'],
  level: 'MUST',
  title: "every tool a child is offered is one of its parent's gates, even when the child asked for one the parent lacks",
  requires: ['composition'],
  invariants: [],
  expectations: (p) => {
    const allowed = ['done', ...p.parentGates, 'call_entity', 'call_entity_batch'];
    return { checks: overRequests(p, [x(`${requests}[*].tools[*].name`, { every: { every: { one_of: allowed } } })]), assumes: [BUILT, someRan, toolsShown] };
  },
};

/**
 * WARD-1: when circles compose, a numeric ward such as the turn cap is the smaller of the parent's and
 * the child's. So each child makes min(parent max_turns, its own) turns at most, exactly that many
 * when its script runs past it, and as many as its script when it finishes first: together, the
 * predicted number of child requests and of crystal turns in the loom (besides the parent's). Checked
 * only when every child surely runs and none is served an invalid reply (whether that is retried or
 * stored as a turn is open).
 */
const childTurnCap: PropertyDefinition<CompositionPlan> = {
  id: 'child-turn-cap-is-the-smaller',
  rules: ['WARD-1'],
  level: 'MUST',
  title: "a child's turn cap is the smaller of its parent's max_turns and its own: the children make exactly the predicted number of queries",
  requires: ['composition'],
  invariants: [],
  expectations: (p) => {
    if (!counted(p)) return none;
    const childTurns = p.children.reduce((n, c) => n + c.turns, 0);
    // Queries, and turns: a query past the cap may be answered as a summary request (kept out of
    // `requests`), so a child that takes one more turn than its cap shows in the loom.
    const checks = [x(requests, { length: childTurns }), x('loom.turns[role=crystal]', { length: p.parentTurns + childTurns })];
    return { checks, assumes: [BUILT, ...routed(p), ...eachRan(p), servedOnly, allPlaced, noDoneRefused, summariesOnly(p), x(parentTurns, { length: p.parentTurns })] };
  },
};

/**
 * COMP-8, COMP-2. COMP-2: the parent waits for the child and gets the child's result back as the gate's
 * return value. COMP-8: a child that fails hands its error to the parent as the gate result, and the
 * parent is not ended by it. So the parent's cast always goes on to the turn that calls its own done
 * (how it ends there is LOOP-3's and CIRCLE-8's business); a single child that
 * called done is the gate's result, one whose crystal failed answers the call in the parent's next query; a batch returns one
 * entry per child holding every answer given with done (compared as a set here, their order is COMP-3's)
 * when every child answered. The result for a child cut off by its cap or ended by a text reply, how a
 * failed child shows in its batch slot, and whether a batch with a failed child succeeds or fails as a
 * call, are not defined by the spec and not checked. Assumes no child was cut short (a child
 * given a smaller cap could end otherwise, which is WARD-1's business); it does not assume the children
 * ran, since a delegation that never gets a child's result is just what COMP-2 rules out.
 */
const childFailureReturns: PropertyDefinition<CompositionPlan> = {
  id: 'child-failure-returns-to-parent',
  rules: ['COMP-8', 'COMP-2'],
  level: 'MUST',
  title: "a child's done answer, or its error when its crystal failed, is the parent's gate result, and the parent still goes on to its own done",
  requires: ['composition'],
  invariants: [],
  expectations: (p) => {
    const at = spawnRecord(p);
    // COMP-8: the parent goes on to the turn that calls its own done, whatever its children did (how
    // its cast ends there is LOOP-3's and CIRCLE-8's business).
    const checks = tagged(['COMP-8'], x(`${parentTurns}[${p.parentTurns - 1}]`, { present: true }));
    if (p.gate === 'call_entity') {
      const [kid] = p.children;
      if (kid?.answer.kind === 'answer') checks.push(...tagged(['COMP-2'], x(`${at}.ok`, { equals: true }), seenEquals(`${at}.result`, kid.answer.value)));
      // COMP-8 asks that the error come back as the gate result, not that the record say it failed: the
      // parent's next query answers the call (one tool message per call so far), whatever the record's ok.
      if (kid?.answer.kind === 'failed') {
        const shown = `requests.${CRYSTAL}[${p.spawnTurn + 1}].messages[role=tool]`;
        // Whatever words the implementation uses, the parent is shown more than an empty answer.
        const content = `${shown}[${p.spawnTurn}].content`;
        checks.push(...tagged(['COMP-8'], x(shown, { length: p.spawnTurn + 1 }), x(content, { not_equals: '' }), x(content, { not_equals: 'null' })));
      }
    } else if (p.children.every((c) => c.answer.kind === 'answer')) {
      // Every child called done: the call hands back an entry per child holding every answer (COMP-2).
      // With a failed child, COMP-8 asks only that its error reach the parent and the parent go on
      // (checked above): whether the batch call itself then succeeds with an error entry or fails
      // carrying the error is the implementation's choice, so its record is not checked.
      checks.push(...tagged(['COMP-2'], x(`${at}.ok`, { equals: true }), batchSlots(`${at}.result`, p.children, 'any')));
    }
    return { checks, assumes: [BUILT, servedOnly, allPlaced, noDoneRefused, notCutShort(p), summariesOnly(p)] };
  },
};

/**
 * COMP-3: a batch's results come back in the order the children were asked for, not the order they
 * finished in. So slot k holds the answer of the k-th child, for every child that called done
 * (spec 5.3 reads the slots as the answers themselves), whatever each child's delay. Assumes COMP-8's
 * checks, and that no child was cut short.
 */
const batchInRequestOrder: PropertyDefinition<CompositionPlan> = {
  id: 'batch-results-in-request-order',
  rules: ['COMP-3'],
  level: 'MUST',
  title: "call_entity_batch answers with one entry per child in request order, whatever each child's delay",
  requires: ['composition'],
  invariants: [],
  expectations: (p) => {
    if (p.gate !== 'call_entity_batch') return none;
    if (!p.children.some((c) => c.answer.kind === 'answer')) return none;
    const checks = [batchSlots(`${spawnRecord(p)}.result`, p.children, 'request')];
    // Slots are read only from a batch call that succeeded: with a failed child it may fail as a whole (COMP-8).
    return { checks, assumes: [BUILT, servedOnly, allPlaced, noDoneRefused, notCutShort(p), summariesOnly(p), x(`${spawnRecord(p)}.ok`, { equals: true }), ...childFailureReturns.expectations(p).checks] };
  },
};

/**
 * COMP-5: a child's turns are recorded in the loom as a subtree whose root references the parent turn
 * that spawned it. So every entity the cast delegated to hangs from the delegating turn (through its own
 * call turn or not: whether a child has one is open), there is one such entity per child that surely
 * ran, and, when every child's turn count is predicted and they are all equal, each holds that many.
 * Assumes the parent's cast and the children's query counts (WARD-1) went as modelled.
 */
const childSubtree: PropertyDefinition<CompositionPlan> = {
  id: 'child-subtree-hangs-from-spawning-turn',
  rules: ['COMP-5'],
  level: 'MUST',
  title: "every child's turns form a subtree under the parent turn that spawned it",
  requires: ['composition'],
  invariants: ['ids-and-parents'],
  expectations: (p) => {
    const spawned = 'loom.spawned(first)';
    // A child surely stores a turn when it runs and makes a query besides an invalid one (whether a
    // failed query is stored as a turn is open): only those are sure to show among the spawned.
    const stored = (c: PlannedChild): boolean => c.runs === 'yes' && c.turns - (c.invalidServed ? 1 : 0) >= 1;
    if (!p.children.some(stored)) return none;
    const checks = [x(`${spawned}[*].spawned_from`, { every: { same_as: `${spawnTurn(p)}.id` } })];
    if (p.children.every(stored)) checks.push(x(spawned, { length: p.children.length }));
    const counts = new Set(p.children.map((c) => c.turns));
    const [only] = [...counts];
    if (counted(p) && counts.size === 1 && only !== undefined) checks.push(x(`${spawned}[*].turns`, { every: { length: only } }));
    const assumes = [BUILT, someRan, ...routed(p), ...eachRan(p), servedOnly, allPlaced, noDoneRefused, summariesOnly(p), x(parentTurns, { length: p.parentTurns }), ...childTurnCap.expectations(p).checks];
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

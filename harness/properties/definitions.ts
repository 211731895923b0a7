/**
 * The properties: each turns the model's prediction for a scenario into expectations in the tests.yaml
 * vocabulary, tied to the rules it checks.
 *
 * A property's expectations come in two kinds. `checks` are what its rules demand. `assumes` are what
 * must have happened for the checks to be about its rules at all: that the scenario reached the
 * behaviour they look at (the cantrip was built, a crystal was queried, a child ran), and predictions
 * the checks depend on that other properties judge (mostly: earlier runs ended as modelled, so the
 * script reached this run intact). When an assumption fails the run is discarded for this property,
 * so one defect is reported by the property of its rule rather than by every property downstream of
 * it, and a scenario that never reached a rule's behaviour never counts against that rule. Ambient
 * invariants need no model and always count. Where a property names several rules, each check is
 * tagged with the rules it speaks for (`tagged`), and a failure reports only those.
 *
 * Every check holds for any implementation that follows the spec, on either side of every choice the
 * spec leaves open:
 * - gate calls after done MAY run (LOOP-3), so only the records up to done are pinned;
 * - history MAY be presented otherwise than as messages (LOOP-5), so no check reads past turns in a request;
 * - the turn cap may count per cast or per entity, so only `definite` runs are predicted (model.ts);
 * - sequence numbers may restart with each cast, so turns are named by position, never by `sequence`;
 * - a call turn may belong to each entity or to the cantrip, so loom helpers (which leave call turns
 *   out) and `[role=crystal]` are used for counts and positions;
 * - truncation causes, error names and error codes are the implementation's own words: never asserted;
 * - a capability `system` message may follow the call's prompt (CIRCLE-11): only the first message is pinned;
 * - done may refuse an answer its tool definition does not take: a scenario whose non-string answer
 *   was refused is discarded (a string answer must always be taken);
 * - the result of an implicit (text) termination is not defined by the spec: not asserted;
 * - a fork's usage and numbering are not asserted.
 * An empty `checks` means the scenario says nothing about the rules; that run is discarded.
 */
import type { Feature } from '../../schemas/adapter.ts';
import type { Expectation, Level } from '../case-file/index.ts';
import { CRYSTAL } from './build-case.ts';
import { portableAnswer, type Plan, type PlannedRun } from './model.ts';
import { BUILT, none, tagged, x, type PropertyExpectations } from './property-helpers.ts';

export type { PropertyExpectations };

/** A property over plans of type `P` (conversation plans unless said otherwise). */
export interface PropertyDefinition<P = Plan> {
  id: string;
  rules: string[];
  level: Level;
  /** One line, for reports and generated case descriptions. */
  title: string;
  /** Features the implementation must declare, else the property is skipped. */
  requires: Feature[];
  /** Ambient invariants (ids from harness/judge/invariants.ts) whose failure also fails this property. */
  invariants: readonly string[];
  expectations(plan: P): PropertyExpectations;
}

const requests = `requests.${CRYSTAL}`;
const turnsOf = (run: PlannedRun): string => `loom.cast(${run.name})`;

/** The run's done call was not refused: its record, if there is one, is not a failure. */
const doneTaken = (run: PlannedRun): Expectation[] =>
  run.ending.status === 'terminated' && run.ending.by === 'done' ? [x(`${turnsOf(run)}[${run.ending.at}].gate_calls[gate=done][ok=false]`, { length: 0 })] : [];
/**
 * How a run went, as the model says: its turn count, its status, and (for a run ended by done) that
 * done was not refused. A refused first done followed by a taken one in the same utterance keeps the
 * count and status; whether done had to take that answer is CIRCLE-8's business, not the other rules'.
 */
const shape = (run: PlannedRun): Expectation[] => [x(turnsOf(run), { length: run.turns.length }), x(`outcomes.${run.name}.status`, { equals: run.ending.status }), ...doneTaken(run)];
/** Shapes of the runs before `run` (through it, with `through`). Only definite runs are ever passed here. */
const shapes = (plan: Plan, run: PlannedRun, through: boolean): Expectation[] => {
  const at = plan.runs.indexOf(run);
  return plan.runs.slice(0, through ? at + 1 : at).filter((r) => r.definite).flatMap(shape);
};
/** The run's turns before its last did not end it (`flags`: which end markers to assume absent). */
const openUntilLast = (run: PlannedRun, flags: readonly ('terminated' | 'truncated')[]): Expectation[] =>
  run.turns.slice(0, -1).flatMap((_t, k) => flags.map((f) => x(`${turnsOf(run)}[${k}].${f}`, { equals: false })));
/**
 * Every request's first user message is one of the intents given (INTENT-2, which
 * `call-and-intent-lead-every-request` checks). The harness tells the runs apart by that message (a
 * query after a run's outcome is recognised by it, and answered without taking a step of the script),
 * so with INTENT-2 broken a later run may not get the steps the model gives it.
 */
const intentsLead = (plan: Plan): Expectation => {
  const intents = [...new Set(plan.runs.map((r) => r.intent))];
  return x(`${requests}[*].messages[role=user][0].content`, { every: { one_of: intents } });
};
/**
 * Per-run checks for the definite runs, each assuming that the cantrip was built, that requests are led
 * by intents, and that the definite runs before it (and with `through`, itself) went as modelled.
 */
const perRun = (plan: Plan, check: (run: PlannedRun) => Expectation[] | PropertyExpectations, through = false): PropertyExpectations => {
  const checks: Expectation[] = [];
  const assumes: Expectation[] = [BUILT, intentsLead(plan)];
  for (const run of plan.runs) {
    if (!run.definite) continue;
    const mine = check(run);
    const own = Array.isArray(mine) ? { checks: mine, assumes: [] } : mine;
    if (own.checks.length === 0) continue;
    checks.push(...own.checks);
    assumes.push(...shapes(plan, run, through), ...own.assumes);
  }
  return { checks, assumes };
};

/**
 * LOOP-3, CIRCLE-8. LOOP-3: once the done gate has been called, the loop stops after handling it.
 * CIRCLE-8: done takes an answer, and the loop ends with that answer as its result. So a run whose
 * utterance calls done ends with that turn, terminated, and its result is the answer. A string answer
 * must be taken; a run whose other answer was refused as an argument is discarded (which types done
 * accepts is the implementation's to say in its tool definition).
 */
const doneEndsTheCast: PropertyDefinition = {
  id: 'done-ends-the-cast',
  rules: ['LOOP-3', 'CIRCLE-8'],
  level: 'MUST',
  title: 'a cast ends with the first utterance that calls done, and its result is the answer given to done',
  requires: [],
  invariants: [],
  expectations: (plan) =>
    perRun(plan, (run) => {
      if (run.ending.status !== 'terminated' || run.ending.by !== 'done') return [];
      const checks = [
        ...tagged(['LOOP-3', 'CIRCLE-8'], x(`outcomes.${run.name}.status`, { equals: 'terminated' }), x(turnsOf(run), { length: run.turns.length })),
        ...tagged(['CIRCLE-8'], x(`outcomes.${run.name}.result`, { equals: run.ending.result })),
      ];
      const refusable = portableAnswer(run.ending.result) ? [] : doneTaken(run);
      // The run reached the turn that calls done (a run refused before it is not LOOP-3's business).
      const reached = x(`${turnsOf(run)}[${run.ending.at}]`, { present: true });
      return { checks, assumes: [reached, ...openUntilLast(run, ['terminated', 'truncated']), ...refusable] };
    }),
};

/**
 * LOOP-6: with require_done false a reply without gate calls is an implicit termination; with it true,
 * such a reply must not end the loop (only done does). So a text reply ends the run terminated in the
 * first case, and in the second the run goes on past it (or, on the last turn the cap allows, is cut
 * off rather than terminated). The result of an implicit termination is not asserted: the spec does
 * not define it.
 */
const textEndsUnlessDoneRequired: PropertyDefinition = {
  id: 'text-reply-ends-unless-done-required',
  rules: ['LOOP-6'],
  level: 'MUST',
  title: 'a reply without gate calls ends the cast when require_done is false and is an ordinary turn when it is true',
  requires: [],
  invariants: [],
  expectations: (plan) =>
    perRun(plan, (run) => {
      if (run.ending.status === 'terminated' && run.ending.by === 'text') {
        const checks = [x(turnsOf(run), { length: run.turns.length }), x(`outcomes.${run.name}.status`, { equals: 'terminated' })];
        const reached = x(`${turnsOf(run)}[${run.turns.length - 1}]`, { present: true });
        return { checks, assumes: [reached, ...openUntilLast(run, ['terminated', 'truncated'])] };
      }
      if (!plan.scenario.require_done) return [];
      // require_done: a text turn is not the end; the run goes on past it unless the cap stops it there.
      const checks: Expectation[] = [];
      let last = -1;
      run.turns.forEach((t, k) => {
        if (t.step.kind !== 'text') return;
        last = k;
        checks.push(k < run.turns.length - 1 ? x(`${turnsOf(run)}[${k + 1}]`, { present: true }) : x(`outcomes.${run.name}.status`, { equals: 'truncated' }));
      });
      // The other turns up to the last text reply did not end the run (the text turns are what is checked).
      const others = run.turns.flatMap((t, k) => (k < last && t.step.kind !== 'text' ? [x(`${turnsOf(run)}[${k}].terminated`, { equals: false }), x(`${turnsOf(run)}[${k}].truncated`, { equals: false })] : []));
      return { checks, assumes: others };
    }),
};

/**
 * LOOP-4, CIRCLE-6. CIRCLE-6: the circle enforces wards and the entity cannot get past them (a cap of
 * N turns means turn N+1 never happens). LOOP-4: when a ward cuts a run off, the loop stops; spec 1.3
 * calls that ending truncated. So no run has more crystal turns than max_turns, whichever way the cap
 * counts (per cast or over the entity), and a first run that reaches the cap unfinished is truncated
 * there. Which words the implementation records as the cause are its own.
 */
const turnLimit: PropertyDefinition = {
  id: 'max-turns-cuts-the-cast-off',
  rules: ['LOOP-4', 'CIRCLE-6'],
  level: 'MUST',
  title: 'a cast never has more crystal turns than max_turns, and one that reaches the limit unfinished is truncated there',
  requires: [],
  invariants: [],
  expectations: (plan) => {
    const limit = plan.scenario.max_turns;
    // Holds under every reading of the cap and for every run, definite or not: no assumption needed.
    const bound = plan.runs.map((run) => x(`${turnsOf(run)}[${limit}]`, { absent: true }));
    const exact = perRun(plan, (run) => {
      if (run.ending.status !== 'truncated') return [];
      const checks = [x(turnsOf(run), { length: limit }), x(`outcomes.${run.name}.status`, { equals: 'truncated' })];
      // An early truncation is this rule's business, so only termination is assumed away (a text
      // reply on the last allowed turn under require_done is LOOP-6's).
      const textLast = run.turns.at(-1)?.step.kind === 'text' ? [x(`${turnsOf(run)}[-1].terminated`, { equals: false })] : [];
      return { checks, assumes: [...openUntilLast(run, ['terminated']), ...textLast] };
    });
    return { checks: [...bound, ...exact.checks], assumes: exact.assumes.length > 0 ? exact.assumes : [BUILT, intentsLead(plan)] };
  },
};

/**
 * CIRCLE-5, CIRCLE-7. CIRCLE-7: several gate calls in one utterance run in order, each with its own
 * entry in that turn's one observation. CIRCLE-5: a gate that fails comes back as an observation, not
 * swallowed (the record's `ok` is false). So each turn holds one record per call, in call order, each
 * linked to its tool call id, echo's result as given (CIRCLE-7), and a failing or unknown gate as
 * ok: false (CIRCLE-5, checked by its tool call id so that it does not depend on the order). After done,
 * further records MAY exist (LOOP-3), so only the prefix up to done is pinned. Error names are not.
 */
const gateRecords: PropertyDefinition = {
  id: 'one-record-per-gate-call',
  rules: ['CIRCLE-5', 'CIRCLE-7'],
  level: 'MUST',
  title: "every gate call of an utterance yields one record in the turn's observation, in call order, failures as ok: false",
  requires: [],
  invariants: [],
  expectations: (plan) =>
    perRun(
      plan,
      (run) =>
        run.turns.flatMap((turn, k) => {
          if (turn.records.length === 0) return [];
          const at = `${turnsOf(run)}[${k}].gate_calls`;
          // CIRCLE-7: one entry per call, in call order, linked to its call; whether a failure reads as
          // one is CIRCLE-5's, so the `ok` of a failing gate is left to the second check.
          // The stored record need not carry the call's id (issue 21, docs/OPEN-CHOICES.md choice 22): the
          // position in call order is what links it here, and the requests link results to calls by id.
          // A result is compared as the entity saw it (`seen_as`): a record may keep the text shown, and
          // at 0.2.0+ a text record's plain "0" reads back as 0 (docs/OPEN-CHOICES.md, choice 22).
          const entries = turn.records.map(({ ok, tool_call_id: _id, result: _result, ...r }) => (ok ? { ...r, ok } : r));
          const results = turn.records.flatMap((r, j) => (r.ok && r.result !== undefined ? [x(`${at}[${j}].result`, { seen_as: r.result })] : []));
          const order = [...(turn.allCallsRun ? [x(at, { like: entries })] : entries.map((r, j) => x(`${at}[${j}]`, { like: r }))), ...results];
          const failures = turn.records.flatMap((r, j) => (r.ok ? [] : [x(`${at}[${j}].ok`, { equals: false })]));
          return [...tagged(['CIRCLE-7'], ...order), ...tagged(['CIRCLE-5'], ...failures)];
        }),
      true,
    ),
};

/**
 * PROD-3, LOOM-9. PROD-3: token usage is tracked for each turn and summed over the entity. LOOM-9:
 * each turn records its prompt, completion and cached tokens. So each turn's metadata carries what its
 * response reported, and a cast's or send's outcome carries the entity's running total. A fork's
 * entity may or may not count the path it inherits: not asserted.
 */
const usage: PropertyDefinition = {
  id: 'usage-per-turn-and-per-entity',
  rules: ['PROD-3', 'LOOM-9'],
  level: 'MUST',
  title: "each turn records the token usage its crystal response reported, and an outcome's usage is the entity's running total",
  requires: [],
  invariants: ['usage-recorded'],
  expectations: (plan) =>
    perRun(
      plan,
      (run) => {
        const out = run.turns.map((t, k) =>
          x(`${turnsOf(run)}[${k}].metadata`, { like: { tokens_prompt: t.usage.prompt, tokens_completion: t.usage.completion, tokens_cached: t.usage.cached } }),
        );
        const total = run.verb !== 'fork' ? [x(`outcomes.${run.name}.usage`, { equals: run.usageAfter })] : [];
        return [...tagged(['PROD-3', 'LOOM-9'], ...out), ...tagged(['PROD-3'], ...total)];
      },
      true,
    ),
};

/**
 * LOOM-2, LOOM-7 and every ambient invariant. LOOM-2: each turn has an id of its own and a reference to
 * its parent; within a run that parent is the turn before it (a thread is followed by those links,
 * spec 6.2). LOOM-7: the loom records whether each run's last turn was terminated or truncated.
 * Whether a later cast's first turn hangs from the previous cast, and how turns are numbered across
 * casts, are left to the invariants (which accept either numbering).
 */
const loomRecords: PropertyDefinition = {
  id: 'loom-records-every-turn',
  rules: ['LOOM-2', 'LOOM-7'],
  level: 'MUST',
  title: "every turn is stored with a unique id and chained to the previous turn of its run, and each run's last turn says whether it was terminated or truncated",
  requires: [],
  invariants: ['turn-schema', 'request-schema', 'alternation', 'ids-and-parents', 'terminal-state', 'usage-recorded', 'call-leads', 'intent-first'],
  expectations: (plan) => {
    const checks = tagged(['LOOM-2'], x('loom.turns[*].id', { unique: true }));
    const definite = plan.runs.filter((r) => r.definite);
    for (const run of definite) {
      for (let k = 1; k < run.turns.length; k++) checks.push(...tagged(['LOOM-2'], x(`${turnsOf(run)}[${k}].parent_id`, { same_as: `${turnsOf(run)}[${k - 1}].id` })));
      checks.push(...tagged(['LOOM-7'], x(`${turnsOf(run)}[-1].terminated`, { equals: run.ending.status === 'terminated' }), x(`${turnsOf(run)}[-1].truncated`, { equals: run.ending.status === 'truncated' })));
    }
    return { checks, assumes: [BUILT, intentsLead(plan), ...definite.flatMap(shape)] };
  },
};

/**
 * CALL-2, INTENT-2. CALL-2: a provided system prompt is the first message of every request, present
 * and unchanged each time. INTENT-2: the intent is the first user message of the entity's context. So
 * every request starts with the prompt (a capability message MAY follow it, CIRCLE-11), the first
 * request's first user message is the first intent, and every request's first user message is one of
 * the intents given (an invoked entity's or a fork's context may start from an earlier one).
 */
const callAndIntentLead: PropertyDefinition = {
  id: 'call-and-intent-lead-every-request',
  rules: ['CALL-2', 'INTENT-2'],
  level: 'MUST',
  title: 'every crystal request starts with the unchanged system prompt, and its first user message is the intent being pursued',
  requires: [],
  invariants: ['call-leads', 'intent-first'],
  expectations: (plan) => {
    const prompt = plan.scenario.system_prompt;
    const out: Expectation[] = [];
    if (prompt !== null) out.push(...tagged(['CALL-2'], x(`${requests}[*].messages[0]`, { every: { like: { role: 'system', content: prompt } } })));
    const first = plan.runs[0];
    if (first) out.push(...tagged(['INTENT-2'], x(`${requests}[0].messages[role=user][0].content`, { equals: first.intent })));
    const intents = [...new Set(plan.runs.map((r) => r.intent))];
    out.push(...tagged(['INTENT-2'], x(`${requests}[*].messages[role=user][0].content`, intents.length === 1 ? { every: { equals: intents[0] } } : { every: { one_of: intents } })));
    // Model-free: which request belongs to which run is left to the intent-first invariant.
    return { checks: out, assumes: [BUILT, x(requests, { present: true })] };
  },
};

/**
 * LOOM-4: forking from a turn gives a new entity whose starting context is the path from the root to
 * that turn, and the original thread is left as it was. So the original entity's turns after the fork
 * equal its turns before it, and the fork's first turn hangs from the turn it forked from (checked only
 * when every reading of the turn cap leaves the fork a turn to take).
 */
const forkLeavesOriginal: PropertyDefinition = {
  id: 'fork-leaves-the-original-thread',
  rules: ['LOOM-4'],
  level: 'MUST',
  title: "a fork's first turn hangs off the turn it forked from, and the original entity's turns are unchanged",
  requires: ['fork'],
  invariants: [],
  expectations: (plan) => {
    const fork = plan.runs.find((r) => r.verb === 'fork');
    if (!fork || plan.fork === undefined) return none;
    const checks = [x(`loom.entity(${plan.origin})`, { same_as: 'snapshots.before[role=crystal]' })];
    const originals = plan.runs.filter((r) => r.verb !== 'fork');
    const assumes = [BUILT, intentsLead(plan), ...originals.filter((r) => r.definite).flatMap(shape)];
    if (plan.fork.runsATurn) {
      checks.push(x(`${turnsOf(fork)}[0].parent_id`, { same_as: `snapshots.before[role=crystal][${plan.fork.index}].id` }));
      // Every query was answered from the script: a crystal failure (the script used up by a run that
      // went otherwise than modelled, in the fork or before it) may end the fork as a refused operation,
      // which leaves no entity to read its turns by; that is not LOOM-4's business.
      assumes.push(x(`replies.${CRYSTAL}[*].ok`, { every: { equals: true } }));
    }
    return { checks, assumes };
  },
};

/** Every property, in report order. */
export const PROPERTIES: readonly PropertyDefinition[] = [
  doneEndsTheCast,
  textEndsUnlessDoneRequired,
  turnLimit,
  gateRecords,
  usage,
  loomRecords,
  callAndIntentLead,
  forkLeavesOriginal,
];

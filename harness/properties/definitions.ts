/**
 * The properties: each turns the model's prediction for a scenario into expectations in the tests.yaml
 * vocabulary, tied to the rules it checks.
 *
 * A property's expectations come in two kinds. `checks` are what its rules demand. `assumes` are
 * predictions its checks depend on but other properties judge (mostly: earlier runs ended as
 * modelled, so the script reached this run intact). When an assumption fails the run is discarded
 * for this property, so one defect is reported by the property of its rule rather than by every
 * property downstream of it. Ambient invariants need no model and always count.
 *
 * Every expectation holds for any implementation that follows the spec, including where the spec
 * leaves room: gate calls after done MAY run (LOOP-3), history MAY be presented in other ways than
 * messages (LOOP-5), and a fork's usage and sequence numbering are not asserted. An empty `checks`
 * means the scenario says nothing about the rules (e.g. no cast ends with done); that run is discarded.
 */
import type { Feature } from '../../schemas/adapter.ts';
import type { Expectation, Level, Matcher } from '../case-types.ts';
import { CRYSTAL } from './build-case.ts';
import type { Plan, PlannedRun } from './model.ts';

export interface PropertyExpectations {
  checks: Expectation[];
  assumes: Expectation[];
}

/** A property over plans of type `P` (conversation plans unless said otherwise). */
export interface PropertyDefinition<P = Plan> {
  id: string;
  rules: string[];
  level: Level;
  /** One line, for reports and generated case descriptions. */
  title: string;
  /** Features the implementation must declare, else the property is skipped. */
  requires: Feature[];
  /** Ambient invariants (ids from harness/invariants.ts) whose failure also fails this property. */
  invariants: readonly string[];
  expectations(plan: P): PropertyExpectations;
}

const x = (path: string, matcher: Matcher): Expectation => ({ path, ...matcher });
const requests = `requests.${CRYSTAL}`;
const turnsOf = (run: PlannedRun): string => `loom.cast(${run.name})`;

/** How a run ended, as the model says: its turn count and status. */
const shape = (run: PlannedRun): Expectation[] => [x(turnsOf(run), { length: run.turns.length }), x(`outcomes.${run.name}.status`, { equals: run.ending.status })];
/** Shapes of the runs before `run` (through it, with `through`), fork excluded unless it is `run`. */
const shapes = (plan: Plan, run: PlannedRun, through: boolean): Expectation[] => {
  const at = plan.runs.indexOf(run);
  return plan.runs.slice(0, through ? at + 1 : at).flatMap(shape);
};
/** The run's turns before its last did not end it (`flags`: which end markers to assume absent). */
const openUntilLast = (run: PlannedRun, flags: readonly ('terminated' | 'truncated')[]): Expectation[] =>
  run.turns.slice(0, -1).flatMap((_t, k) => flags.map((f) => x(`${turnsOf(run)}[${k}].${f}`, { equals: false })));
/** Per-run checks, each assuming the runs before it (and with `through`, itself) went as modelled. */
const perRun = (plan: Plan, check: (run: PlannedRun) => Expectation[] | PropertyExpectations, through = false): PropertyExpectations => {
  const checks: Expectation[] = [];
  const assumes: Expectation[] = [];
  for (const run of plan.runs) {
    const mine = check(run);
    const own = Array.isArray(mine) ? { checks: mine, assumes: [] } : mine;
    if (own.checks.length === 0) continue;
    checks.push(...own.checks);
    assumes.push(...shapes(plan, run, through), ...own.assumes);
  }
  return { checks, assumes };
};

/** LOOP-3, CIRCLE-8: a cast whose utterance calls done ends after that turn, with done's answer. */
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
        x(`outcomes.${run.name}.status`, { equals: 'terminated' }),
        x(`outcomes.${run.name}.result`, { equals: run.ending.result }),
        x(turnsOf(run), { length: run.turns.length }),
        x(`${turnsOf(run)}[-1].terminated`, { equals: true }),
      ];
      return { checks, assumes: openUntilLast(run, ['terminated', 'truncated']) };
    }),
};

/** LOOP-6: a text-only reply ends the cast exactly when require_done is false. */
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
        const checks = [x(turnsOf(run), { length: run.turns.length }), x(`outcomes.${run.name}.status`, { equals: 'terminated' }), x(`outcomes.${run.name}.result`, { equals: run.ending.result })];
        return { checks, assumes: openUntilLast(run, ['terminated', 'truncated']) };
      }
      // require_done: a text turn is not the end, and the run goes on past it (unless the ward stops it there).
      return run.turns.flatMap((t, k) => {
        if (t.step.kind !== 'text') return [];
        const open = x(`${turnsOf(run)}[${k}].terminated`, { equals: false });
        return k < run.turns.length - 1 ? [open, x(`${turnsOf(run)}[${k + 1}]`, { present: true })] : [open];
      });
    }),
};

/** LOOP-4, CIRCLE-6: no cast outlives max_turns; one that reaches it unfinished is truncated there. */
const turnLimit: PropertyDefinition = {
  id: 'max-turns-cuts-the-cast-off',
  rules: ['LOOP-4', 'CIRCLE-6'],
  level: 'MUST',
  title: 'a cast never has more crystal turns than max_turns, and one that reaches the limit unfinished is truncated with cause max_turns',
  requires: [],
  invariants: [],
  expectations: (plan) =>
    perRun(plan, (run) => {
      const limit = plan.scenario.max_turns;
      if (run.ending.status !== 'truncated') return [x(`${turnsOf(run)}[${limit}]`, { absent: true })];
      const checks = [
        x(turnsOf(run), { length: limit }),
        x(`outcomes.${run.name}.status`, { equals: 'truncated' }),
        x(`outcomes.${run.name}.truncation_cause`, { equals: 'max_turns' }),
        x(`${turnsOf(run)}[-1].truncated`, { equals: true }),
      ];
      // An early truncation is this rule's business, so only termination is assumed away (a text
      // reply on the last allowed turn under require_done is LOOP-6's).
      const textLast = run.turns.at(-1)?.step.kind === 'text' ? [x(`${turnsOf(run)}[-1].terminated`, { equals: false })] : [];
      return { checks, assumes: [...openUntilLast(run, ['terminated']), ...textLast] };
    }),
};

/** CIRCLE-5, CIRCLE-7: each gate call of an utterance leaves one record, in order; failures say ok: false. */
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
          // After done, further records MAY exist (LOOP-3), so only the prefix is pinned.
          if (turn.allCallsRun) return [x(at, { like: turn.records })];
          return turn.records.map((r, j) => x(`${at}[${j}]`, { like: r }));
        }),
      true,
    ),
};

/** PROD-3, LOOM-9: each turn records the usage its response reported; outcomes carry the entity's sum. */
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
        // A fork's entity may or may not count the usage of the path it inherits: not asserted.
        if (run.verb !== 'fork') out.push(x(`outcomes.${run.name}.usage`, { equals: run.usageAfter }));
        return out;
      },
      true,
    ),
};

/** LOOM-1, LOOM-2, LOOM-7 and every ambient invariant: the loom is a well-formed record of the runs. */
const loomRecords: PropertyDefinition = {
  id: 'loom-records-every-turn',
  rules: ['LOOM-1', 'LOOM-2', 'LOOM-7'],
  level: 'MUST',
  title: 'every turn is stored with a unique id, chained to the previous turn of its entity, and each run ends on one terminal turn',
  requires: [],
  invariants: ['turn-schema', 'request-schema', 'alternation', 'ids-and-parents', 'terminal-state', 'usage-recorded', 'call-leads', 'intent-first'],
  expectations: (plan) => {
    const checks = [x('loom.turns[*].id', { unique: true })];
    for (const run of plan.runs) {
      checks.push(x(`${turnsOf(run)}[*].sequence`, { increasing: true }));
      for (let k = 1; k < run.turns.length; k++) checks.push(x(`${turnsOf(run)}[${k}].parent_id`, { same_as: `${turnsOf(run)}[${k - 1}].id` }));
    }
    const [one, two] = plan.runs;
    if (one?.verb === 'send' && two?.verb === 'send') checks.push(x(`${turnsOf(two)}[0].parent_id`, { same_as: `${turnsOf(one)}[-1].id` }));
    return { checks, assumes: plan.runs.flatMap(shape) };
  },
};

/** CALL-2, INTENT-2: every request starts with the system prompt, and its first user message is an intent. */
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
    if (prompt !== null) out.push(x(`${requests}[*].messages[0]`, { every: { equals: { role: 'system', content: prompt } } }));
    const first = plan.runs[0];
    if (first) out.push(x(`${requests}[0].messages[role=user][0].content`, { equals: first.intent }));
    const intents = [...new Set(plan.runs.map((r) => r.intent))];
    out.push(x(`${requests}[*].messages[role=user][0].content`, intents.length === 1 ? { every: { equals: intents[0] } } : { every: { one_of: intents } }));
    // Model-free: which request belongs to which run is left to the intent-first invariant.
    return { checks: out, assumes: [] };
  },
};

/** LOOM-4: forking adds a branch at the chosen turn and leaves the original thread as it was. */
const forkLeavesOriginal: PropertyDefinition = {
  id: 'fork-leaves-the-original-thread',
  rules: ['LOOM-4'],
  level: 'MUST',
  title: "a fork's first turn hangs off the turn it forked from, and the original entity's turns are unchanged",
  requires: ['fork'],
  invariants: [],
  expectations: (plan) => {
    const fork = plan.runs.find((r) => r.verb === 'fork');
    if (!fork || plan.forkSequence === undefined) return { checks: [], assumes: [] };
    const checks = [
      x(`loom.entity(${plan.origin})`, { same_as: 'snapshots.before[role=crystal]' }),
      x(`${turnsOf(fork)}[0].parent_id`, { same_as: `snapshots.before[sequence=${plan.forkSequence}][0].id` }),
      // The fork is the last action, so the last request is the fork's; its intent must be in it.
      x(`${requests}[-1].messages[role=user][*].content`, { contains: fork.intent }),
    ];
    return { checks, assumes: shapes(plan, fork, false) };
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

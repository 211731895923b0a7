/**
 * Code-circle properties (feature `code-medium`): each turns the code model's prediction into
 * expectations, with `checks` and `assumes` as in `definitions.ts`.
 *
 * The script is served in order, so the k-th crystal turn of the cast always runs the k-th program;
 * per-turn checks need no assumption about how earlier turns ended beyond "they did not end the cast".
 * Ownership, so one defect is blamed once: lost state shows first in values (an echo's text, done's
 * answer, or a ReferenceError that removes later records), so CIRCLE-9 owns values and the others
 * assume them; record order and ok flags are CIRCLE-7/CIRCLE-5's, which CIRCLE-9 compares as a set.
 *
 * Nothing here rests on a choice the spec leaves open: error names are not asserted (only that a failed
 * gate is a failure), done is always given a string (an answer every done must take), the cast is one
 * cast (so the turn cap reads the same per cast or per entity), and turn flags are LOOM-7's, not read.
 */
import type { Expectation } from '../case-file/index.ts';
import { CRYSTAL } from './build-case.ts';
import type { CodePlan } from './code-model.ts';
import type { PropertyDefinition } from './definitions.ts';
import { BUILT, none, tagged, x } from './property-helpers.ts';

const cast = 'loom.cast(first)';

/** The cast's turns before `upTo` (default: its last) did not end it. */
const openBefore = (p: CodePlan, upTo = p.turns.length - 1): Expectation[] =>
  p.turns.slice(0, upTo).flatMap((_t, k) => [x(`${cast}[${k}].terminated`, { equals: false }), x(`${cast}[${k}].truncated`, { equals: false })]);

/** What the values of the run must be: each turn's echo texts (as a set) and done's answer. */
const valueChecks = (p: CodePlan): Expectation[] => {
  const checks: Expectation[] = [];
  p.turns.forEach((t, k) => {
    const texts = t.records.filter((r) => r.gate === 'echo').map((r) => r.result);
    if (texts.length === 0) return;
    const at = `${cast}[${k}].gate_calls[gate=echo]`;
    checks.push(x(at, { length: texts.length }));
    for (const text of new Set(texts)) checks.push(x(`${at}[*].result`, { contains: text }));
  });
  if (p.ending.status === 'terminated') checks.push(x('outcomes.first.result', { equals: p.ending.result }));
  return checks;
};

/**
 * CIRCLE-9: in a code circle the sandbox's state lasts from one turn to the next within an entity (a
 * variable set on one turn can be read on the next). So values computed from variables set on earlier
 * turns come out as the model computes them: each turn's echoed texts and done's answer.
 */
const statePersists: PropertyDefinition<CodePlan> = {
  id: 'code-state-persists-across-turns',
  rules: ['CIRCLE-9'],
  level: 'MUST',
  title: "variables set by one turn's code keep their values in later turns: echoed values and done's answer are the ones the model computes",
  requires: ['code-medium'],
  invariants: [],
  expectations: (p) => {
    const checks = valueChecks(p);
    // Only values that reach across turns say anything about CIRCLE-9.
    const crosses = p.turns.some((t, k) => k > 0 && /\bv\d+\b/.test(t.source));
    return crosses ? { checks, assumes: [BUILT, ...openBefore(p)] } : none;
  },
};

/**
 * CIRCLE-7, CIRCLE-5. CIRCLE-7: the gate calls of one utterance run in order, each with its entry in
 * the turn's one observation. CIRCLE-5: a gate that fails comes back as an observation (ok: false),
 * never swallowed, even when the entity's own code catches the error. So each turn's records are
 * exactly the predicted gates in call order with the predicted ok flags.
 */
const recordsInOrder: PropertyDefinition<CodePlan> = {
  id: 'code-gate-records-in-call-order',
  rules: ['CIRCLE-7', 'CIRCLE-5'],
  level: 'MUST',
  title: "each code turn's observation holds one record per gate call in call order, and a failing gate is recorded as ok: false even when the code catches it",
  requires: ['code-medium'],
  invariants: [],
  expectations: (p) => {
    const checks: Expectation[] = [];
    p.turns.forEach((t, k) => {
      const at = `${cast}[${k}].gate_calls`;
      if (t.records.length === 0) {
        checks.push(...tagged(['CIRCLE-7'], x(at, { length: 0 })));
        return;
      }
      // CIRCLE-7: the calls' records in call order; CIRCLE-5: a failing gate's record says it failed.
      checks.push(...tagged(['CIRCLE-7'], x(`${at}[*].gate`, { equals: t.records.map((r) => r.gate) })));
      if (t.records.some((r) => r.gate === 'fail')) checks.push(...tagged(['CIRCLE-5'], x(`${at}[gate=fail][*].ok`, { every: { equals: false } })));
      for (const gate of ['echo', 'done'] as const) if (t.records.some((r) => r.gate === gate)) checks.push(...tagged(['CIRCLE-7'], x(`${at}[gate=${gate}][*].ok`, { every: { equals: true } })));
    });
    return { checks, assumes: [BUILT, ...openBefore(p), ...valueChecks(p)] };
  },
};

/**
 * LOOP-3, CIRCLE-8. LOOP-3: once done has been called the loop stops after handling it. CIRCLE-8: the
 * loop then ends with done's answer. So the cast ends terminated on the turn whose code calls done: the
 * crystal is not queried again, no later program runs (no later echo reaches the gate), and the result
 * is the answer (its value is CIRCLE-9's business, so it is assumed here).
 */
const doneEndsCast: PropertyDefinition<CodePlan> = {
  id: 'code-done-ends-the-cast',
  rules: ['LOOP-3', 'CIRCLE-8'],
  level: 'MUST',
  title: 'the cast ends on the turn whose code calls done, with no further crystal query and no gate call of a later program',
  requires: ['code-medium'],
  invariants: [],
  expectations: (p) => {
    if (p.ending.status !== 'terminated') return none;
    const n = p.turns.length;
    const checks = [x('outcomes.first.status', { equals: 'terminated' }), x(cast, { length: n }), x(`requests.${CRYSTAL}`, { length: n }), x('gate_log[gate=echo]', { length: p.echoes })];
    return { checks, assumes: [BUILT, ...openBefore(p), ...valueChecks(p).filter((e) => e.path !== 'outcomes.first.result')] };
  },
};

/**
 * LOOP-1: the loop alternates utterances and observations; an error the entity's code throws is what
 * the circle observes (spec 4.1: errors are visible), not an end: a cast ends only by done, a text
 * reply or a ward (spec 1.3). So a turn whose code throws is neither terminated nor truncated, and
 * another crystal turn and query follow it.
 */
const errorIsObserved: PropertyDefinition<CodePlan> = {
  id: 'code-error-does-not-end-the-cast',
  rules: ['LOOP-1'],
  level: 'MUST',
  title: 'a turn whose code throws an uncaught error neither ends nor truncates the cast: another crystal turn follows it',
  requires: ['code-medium'],
  invariants: ['alternation'],
  expectations: (p) => {
    const checks: Expectation[] = [];
    let last = -1;
    p.turns.forEach((t, k) => {
      if (!t.threw || k === p.turns.length - 1) return;
      last = k;
      checks.push(x(`${cast}[${k}].terminated`, { equals: false }), x(`${cast}[${k}].truncated`, { equals: false }), x(`${cast}[${k + 1}]`, { present: true }), x(`requests.${CRYSTAL}[${k + 1}]`, { present: true }));
    });
    return checks.length === 0 ? none : { checks, assumes: [BUILT, ...openBefore(p, last)] };
  },
};

/** Every code property, in report order (a property's assumptions are earlier ones' checks). */
export const CODE_PROPERTIES: readonly PropertyDefinition<CodePlan>[] = [statePersists, recordsInOrder, doneEndsCast, errorIsObserved];

/**
 * Code-circle properties (feature `code-medium`): each turns the code model's prediction into
 * expectations, with `checks` and `assumes` as in `definitions.ts`.
 *
 * The script is served in order, so the k-th crystal turn of the cast always runs the k-th program;
 * per-turn checks need no assumption about how earlier turns ended beyond "they did not end the cast".
 * Ownership, so one defect is blamed once: lost state shows first in values (an echo's text, done's
 * answer, or a ReferenceError that removes later records), so CIRCLE-9 owns values and the others
 * assume them; record order and ok flags are CIRCLE-7/CIRCLE-5's, which CIRCLE-9 compares as a set.
 */
import type { Expectation, Matcher } from '../case-types.ts';
import { CRYSTAL } from './build-case.ts';
import type { CodePlan } from './code-model.ts';
import type { PropertyDefinition, PropertyExpectations } from './definitions.ts';

const x = (path: string, matcher: Matcher): Expectation => ({ path, ...matcher });
const cast = 'loom.cast(first)';
const none: PropertyExpectations = { checks: [], assumes: [] };

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

/** CIRCLE-9: values computed from variables set in earlier turns come out as the model says. */
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
    return crosses ? { checks, assumes: openBefore(p) } : none;
  },
};

/** CIRCLE-7, CIRCLE-5: each turn's records are exactly the predicted gates in call order, a caught fail as ok: false. */
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
        checks.push(x(at, { length: 0 }));
        return;
      }
      checks.push(x(`${at}[*].gate`, { equals: t.records.map((r) => r.gate) }), x(`${at}[*].ok`, { equals: t.records.map((r) => r.ok) }));
      if (t.records.some((r) => r.gate === 'fail')) checks.push(x(`${at}[gate=fail][*].error.name`, { every: { equals: 'TestGateError' } }));
    });
    return { checks, assumes: [...openBefore(p), ...valueChecks(p)] };
  },
};

/** LOOP-3, CIRCLE-8: done ends the cast on its turn; no later program runs, so no later echo is recorded. */
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
    const checks = [
      x('outcomes.first.status', { equals: 'terminated' }),
      x(cast, { length: n }),
      x(`requests.${CRYSTAL}`, { length: n }),
      x(`${cast}[-1].terminated`, { equals: true }),
      x('gate_log[gate=echo]', { length: p.echoes }),
    ];
    return { checks, assumes: [...openBefore(p), ...valueChecks(p).filter((e) => e.path !== 'outcomes.first.result')] };
  },
};

/** LOOP-1: an uncaught error is the turn's observation, and the cast goes on to another turn. */
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
    return checks.length === 0 ? none : { checks, assumes: openBefore(p, last) };
  },
};

/** Every code property, in report order (a property's assumptions are earlier ones' checks). */
export const CODE_PROPERTIES: readonly PropertyDefinition<CodePlan>[] = [statePersists, recordsInOrder, doneEndsCast, errorIsObserved];

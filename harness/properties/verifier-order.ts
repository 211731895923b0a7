/**
 * Verifier wards over generated verifier lists (feature `verifier-wards`): whatever verifiers a circle
 * has, and in whatever order they are listed, a call one of them refuses never reaches its gate
 * (CIRCLE-6) and is observed as a failure (CIRCLE-5), and every call none refuses runs.
 *
 * A scenario draws one to four verifiers (gate tables and argument schemas over three harness gates,
 * listed in the order drawn, which is their priority order) and one to three turns of one to three
 * calls, then a done. Whether a call passes does not depend on the order, so the model needs none: a
 * call passes when every verifier passes it. No `max_rejections` ward is set, so refusals never end the
 * cast. Refusal texts and verifier names are not asserted here (the case family does that).
 */
import fc from 'fast-check';
import type { VerifierSetup } from '../../schemas/adapter.ts';
import type { Case, Expectation, LoadedCase, ScriptStep } from '../case-file/index.ts';
import { CRYSTAL, GENERATED_FILE, type CaseHeader } from './build-case.ts';
import type { PropertyDefinition } from './definitions.ts';
import { BUILT, tagged, x } from './property-helpers.ts';

const GATES = ['echo', 'counter', 'fetch'] as const;
type VerifiedGate = (typeof GATES)[number];

/** One drawn verifier: a gate table, or a cap on the length of an echoing gate's text. */
export type VerifierDraw =
  | { kind: 'allow_deny'; allow: VerifiedGate[] | null; deny: VerifiedGate[] }
  | { kind: 'arguments_schema'; gate: 'echo' | 'fetch'; max_length: number };

export interface VerifierCall {
  gate: VerifiedGate;
  /** The text of an echo or fetch call (counter takes none). */
  text: string;
}

export interface VerifierScenario {
  verifiers: VerifierDraw[];
  turns: VerifierCall[][];
}

export interface VerifierPlan {
  scenario: VerifierScenario;
  /** Per turn, per call: whether every verifier passes it. */
  passes: boolean[][];
}

const gateSet = fc.uniqueArray(fc.constantFrom(...GATES), { maxLength: 3 });
const draw: fc.Arbitrary<VerifierDraw> = fc.oneof(
  fc.record({ kind: fc.constant('allow_deny' as const), allow: fc.option(gateSet, { nil: null }), deny: gateSet }),
  fc.record({ kind: fc.constant('arguments_schema' as const), gate: fc.constantFrom('echo' as const, 'fetch' as const), max_length: fc.integer({ min: 1, max: 6 }) }),
);
const call: fc.Arbitrary<VerifierCall> = fc.record({ gate: fc.constantFrom(...GATES), text: fc.constantFrom('a', 'bb', 'ccc', 'dddd', 'eeeee', 'ffffff', 'ggggggg') });

export const verifierArbitrary: fc.Arbitrary<VerifierScenario> = fc.record({
  verifiers: fc.array(draw, { minLength: 1, maxLength: 4 }),
  turns: fc.array(fc.array(call, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }),
});

/** Whether one verifier passes one call. */
function passes(verifier: VerifierDraw, c: VerifierCall): boolean {
  if (verifier.kind === 'allow_deny') return !verifier.deny.includes(c.gate) && (verifier.allow === null || verifier.allow.includes(c.gate));
  return verifier.gate !== c.gate || c.text.length <= verifier.max_length;
}

export const planVerifiers = (scenario: VerifierScenario): VerifierPlan => ({
  scenario,
  passes: scenario.turns.map((turn) => turn.map((c) => scenario.verifiers.every((v) => passes(v, c)))),
});

/** The verifiers as the case writes them; an allow list always lets done through, so the cast can end. */
const verifierSetup = (v: VerifierDraw, i: number): VerifierSetup =>
  v.kind === 'allow_deny'
    ? { name: `ward-${i + 1}`, kind: 'allow_deny', ...(v.allow === null ? {} : { allow: ['done', ...v.allow] }), deny: v.deny }
    : { name: `ward-${i + 1}`, kind: 'arguments_schema', gate: v.gate, schema: { type: 'object', properties: { text: { type: 'string', maxLength: v.max_length } } } };

const stepOf = (turn: VerifierCall[]): ScriptStep => ({ tool_calls: turn.map((c) => (c.gate === 'counter' ? { gate: 'counter' } : { gate: c.gate, args: { text: c.text } })) });

export function buildVerifierCase(plan: VerifierPlan, header: CaseHeader, expect: Expectation[]): LoadedCase {
  const { turns, verifiers } = plan.scenario;
  const c: Case = {
    id: header.id,
    rules: header.rules,
    level: 'MUST',
    requires: ['verifier-wards'],
    description: header.description,
    setup: {
      crystal: CRYSTAL,
      call: {},
      circle: {
        medium: 'conversation',
        gates: ['done', 'echo', 'counter', { name: 'fetch', behaves_as: 'echo' }],
        wards: { max_turns: turns.length + 1 },
        verifiers: verifiers.map(verifierSetup),
      },
    },
    crystals: { [CRYSTAL]: { script: [...turns.map(stepOf), { tool_calls: [{ gate: 'done', args: { answer: 'verified' } }] }] } },
    act: [{ cast: { intent: 'Call through the verifiers', as: 'first' } }],
    expect,
  };
  return { ...c, position: { file: GENERATED_FILE, line: 0, column: 0 } };
}

/**
 * CIRCLE-6, CIRCLE-5. CIRCLE-6: wards are the circle's, and the entity cannot get past them, so a call a
 * verifier refuses never reaches its gate, whichever verifier refuses it and wherever it is listed.
 * CIRCLE-5: the refused call is a failure the entity sees: its record says it failed. Every call no
 * verifier refuses runs, in call order, with its record a success.
 */
const refusedNeverRuns: PropertyDefinition<VerifierPlan> = {
  id: 'verifier-refused-call-never-runs',
  rules: ['CIRCLE-6', 'CIRCLE-5'],
  level: 'MUST',
  title: 'a call some verifier refuses never reaches its gate and is recorded as failed, whatever the verifiers and their order; every other call runs',
  requires: ['verifier-wards'],
  invariants: [],
  expectations: (plan) => {
    const ran = plan.scenario.turns.flatMap((turn, k) => turn.filter((_c, i) => plan.passes[k]![i]));
    const checks = tagged(['CIRCLE-6'], x('gate_log', { length: ran.length }));
    if (ran.length > 0) {
      checks.push(
        ...tagged(['CIRCLE-6'], x('gate_log[*].gate', { equals: ran.map((c) => c.gate) }), x('gate_log[*].args', { equals: ran.map((c) => (c.gate === 'counter' ? {} : { text: c.text })) })),
      );
    }
    plan.passes.forEach((flags, k) => checks.push(...tagged(['CIRCLE-5'], x(`loom.cast(first)[${k}].gate_calls[*].ok`, { equals: flags }))));
    const n = plan.scenario.turns.length + 1;
    return { checks, assumes: [BUILT, x('loom.cast(first)', { length: n }), x('outcomes.first.status', { equals: 'terminated' })] };
  },
};

export const VERIFIER_PROPERTIES: readonly PropertyDefinition<VerifierPlan>[] = [refusedNeverRuns];

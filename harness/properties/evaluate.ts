/**
 * Runs generated cases through the ordinary case runner (`runCase`: fresh adapter, time limit,
 * expectations, ambient invariants, dispose) and judges one property on the result.
 *
 * Several properties share one seed, so they see the same scenarios; each distinct case is driven
 * once with the expectations of every property combined, and each property reads back its own.
 */
import type { Description } from '../../schemas/adapter.ts';
import type { Expectation, LoadedCase } from '../case-file/index.ts';
import type { ExpectationResult } from '../judge/index.ts';
import type { InvariantResult } from '../judge/index.ts';
import { runCase, type AdapterFactory, type CaseResult } from '../run/index.ts';
import { buildCase, type CaseHeader } from './build-case.ts';
import type { PropertyDefinition } from './definitions.ts';
import type { Plan } from './model.ts';
import { rulesOf } from './property-helpers.ts';

export interface Evaluation {
  /**
   * `inconclusive`: the scenario did not reach what the property checks (one of its assumptions failed,
   * or the implementation cannot express a step of the case), so its checks say nothing about its rules.
   */
  status: 'pass' | 'fail' | 'errored' | 'inconclusive';
  /** Why the run errored, or why it was inconclusive. */
  reason?: string;
  /** The run errored because it ran out of time. */
  timedOut?: boolean;
  /** The property's expectations that failed. */
  failures: ExpectationResult[];
  /** The rules those failed expectations speak for (a subset of the property's rules). */
  rules: string[];
  /** The property's invariants that failed. */
  invariants: InvariantResult[];
}

/** Bound on remembered runs; shrinking visits a few hundred at most. */
const CACHE_LIMIT = 2000;

const keyOf = (e: Expectation): string => JSON.stringify(e);
/**
 * Results name an expectation by path, matcher and expected value (several `every` checks may share a
 * path). A failed `same_as` shows the other path's value instead, so it is keyed by path and matcher.
 */
const resultKey = (path: string, matcher: string, expected: unknown): string => `${matcher}\u0000${path}\u0000${matcher === 'same_as' ? '' : JSON.stringify(expected)}`;
const failureKey = (f: ExpectationResult): string => resultKey(f.path, f.matcher, (f.expected as Record<string, unknown> | undefined)?.[f.matcher]);
const expectationKey = (e: Expectation): string => {
  const matcher = Object.keys(e).find((k) => k !== 'path' && k !== 'rule') ?? '';
  return resultKey(e.path, matcher, (e as unknown as Record<string, unknown>)[matcher]);
};

/** Writes a plan as a case (`buildCase` for conversation plans). */
export type CaseBuilder<P> = (plan: P, header: CaseHeader, expect: Expectation[]) => LoadedCase;

/** The rules the failed checks speak for: their tags, or all of the property's rules for an untagged check. */
function failedRules<P>(property: PropertyDefinition<P>, checks: Expectation[], failures: ExpectationResult[]): string[] {
  const byKey = new Map<string, readonly string[]>();
  for (const c of checks) byKey.set(expectationKey(c), [...(byKey.get(expectationKey(c)) ?? []), ...(rulesOf(c) ?? property.rules)]);
  const rules = new Set(failures.flatMap((f) => byKey.get(failureKey(f)) ?? property.rules));
  return property.rules.filter((r) => rules.has(r));
}

/** The checks that speak for any of `rules` (all of them when a check is untagged). */
export function checksFor<P>(property: PropertyDefinition<P>, checks: Expectation[], rules: readonly string[]): Expectation[] {
  return checks.filter((c) => (rulesOf(c) ?? property.rules).some((r) => rules.includes(r)));
}

export class ScenarioRunner<P = Plan> {
  private readonly cache = new Map<string, Promise<CaseResult>>();
  private readonly build: CaseBuilder<P>;

  constructor(
    private readonly factory: AdapterFactory,
    private readonly description: Description,
    private readonly properties: readonly PropertyDefinition<P>[],
    private readonly timeoutMs: number,
    build?: CaseBuilder<P>,
  ) {
    this.build = build ?? (buildCase as unknown as CaseBuilder<P>);
  }

  /** Drives the plan's case (once per distinct case) and judges `property` on it. */
  async evaluate(property: PropertyDefinition<P>, plan: P): Promise<Evaluation> {
    const { checks, assumes } = property.expectations(plan);
    const result = await this.run(plan);
    if (result.status === 'errored') return { status: 'errored', reason: result.reason ?? 'errored', timedOut: result.timed_out === true, failures: [], rules: [], invariants: [] };
    // The implementation offers no way to express a scripted step (an option its call_entity lacks).
    if (result.status === 'skipped') return { status: 'inconclusive', reason: result.reason ?? 'the case was skipped', failures: [], rules: [], invariants: [] };
    const checked = new Set(checks.map(expectationKey));
    const assumed = new Set(assumes.map(expectationKey).filter((k) => !checked.has(k)));
    const invariants = result.invariants.filter((i) => i.status === 'fail' && property.invariants.includes(i.id));
    const unmet = result.failures.find((f) => assumed.has(failureKey(f)));
    // With an assumption unmet, the checks compare against a run the model did not predict.
    const failures = unmet ? [] : result.failures.filter((f) => checked.has(failureKey(f)));
    if (invariants.length > 0 || failures.length > 0) return { status: 'fail', failures, rules: failedRules(property, checks, failures), invariants };
    if (unmet) return { status: 'inconclusive', reason: `assumption not met: ${unmet.path} ${JSON.stringify(unmet.expected)}${unmet.why ? ` (${unmet.why})` : ''}`, failures: [], rules: [], invariants: [] };
    return { status: 'pass', failures: [], rules: [], invariants: [] };
  }

  private run(plan: P): Promise<CaseResult> {
    const all = new Map<string, Expectation>();
    for (const p of this.properties) {
      const { checks, assumes } = p.expectations(plan);
      for (const e of [...checks, ...assumes]) all.set(keyOf(e), e);
    }
    const c = this.build(plan, { id: 'property-run', rules: [...new Set(this.properties.flatMap((p) => p.rules))], description: 'generated' }, [...all.values()]);
    const key = JSON.stringify([c.setup, c.crystals, c.act]);
    let pending = this.cache.get(key);
    if (!pending) {
      if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
      pending = runCase(c, this.factory, this.description, this.timeoutMs);
      this.cache.set(key, pending);
    }
    return pending;
  }
}

/**
 * Checks written as a case with several rules name the rule of each expectation, as tests.yaml requires
 * (docs/INTERPRETING.md, "Which rule an expectation checks"): the first of the rules the check speaks
 * for that the case lists (its tag, or every rule of an untagged property's check).
 */
export function namedRules<P>(property: PropertyDefinition<P>, checks: Expectation[], rules: readonly string[]): Expectation[] {
  if (rules.length < 2) return checks;
  return checks.map((c) => ({ ...c, rule: (rulesOf(c) ?? property.rules).find((r) => rules.includes(r)) ?? rules[0]! }));
}

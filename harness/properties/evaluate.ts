/**
 * Runs generated cases through the ordinary case runner (`runCase`: fresh adapter, time limit,
 * expectations, ambient invariants, dispose) and judges one property on the result.
 *
 * Several properties share one seed, so they see the same scenarios; each distinct case is driven
 * once with the expectations of every property combined, and each property reads back its own.
 */
import type { Description } from '../../schemas/adapter.ts';
import type { Expectation } from '../case-types.ts';
import type { ExpectationResult } from '../check.ts';
import type { InvariantResult } from '../invariants.ts';
import { runCase, type AdapterFactory, type CaseResult } from '../run.ts';
import { buildCase } from './build-case.ts';
import type { PropertyDefinition } from './definitions.ts';
import type { Plan } from './model.ts';

export interface Evaluation {
  /** `inconclusive`: an assumption of the property failed, so its checks say nothing about its rules. */
  status: 'pass' | 'fail' | 'errored' | 'inconclusive';
  /** Why the run errored. */
  reason?: string;
  /** The run errored because it ran out of time. */
  timedOut?: boolean;
  /** The property's expectations that failed. */
  failures: ExpectationResult[];
  /** The property's invariants that failed. */
  invariants: InvariantResult[];
}

/** Bound on remembered runs; shrinking visits a few hundred at most. */
const CACHE_LIMIT = 2000;

const keyOf = (e: Expectation): string => JSON.stringify(e);
const failureKey = (f: { path: string; matcher: string }): string => `${f.matcher}\u0000${f.path}`;
/** Results name an expectation by path and matcher; within one plan that pair has one expected value. */
const expectationKey = (e: Expectation): string => failureKey({ path: e.path, matcher: Object.keys(e).find((k) => k !== 'path') ?? '' });

export class ScenarioRunner {
  private readonly cache = new Map<string, Promise<CaseResult>>();

  constructor(
    private readonly factory: AdapterFactory,
    private readonly description: Description,
    private readonly properties: readonly PropertyDefinition[],
    private readonly timeoutMs: number,
  ) {}

  /** Drives the plan's case (once per distinct case) and judges `property` on it. */
  async evaluate(property: PropertyDefinition, plan: Plan): Promise<Evaluation> {
    const { checks, assumes } = property.expectations(plan);
    const result = await this.run(plan);
    if (result.status === 'errored') return { status: 'errored', reason: result.reason ?? 'errored', timedOut: result.duration_ms >= this.timeoutMs, failures: [], invariants: [] };
    const checked = new Set(checks.map(expectationKey));
    const assumed = new Set(assumes.map(expectationKey).filter((k) => !checked.has(k)));
    const invariants = result.invariants.filter((i) => i.status === 'fail' && property.invariants.includes(i.id));
    const unmet = result.failures.some((f) => assumed.has(failureKey(f)));
    // With an assumption unmet, the checks compare against a run the model did not predict.
    const failures = unmet ? [] : result.failures.filter((f) => checked.has(failureKey(f)));
    if (invariants.length > 0 || failures.length > 0) return { status: 'fail', failures, invariants };
    return { status: unmet ? 'inconclusive' : 'pass', failures: [], invariants: [] };
  }

  private run(plan: Plan): Promise<CaseResult> {
    const all = new Map<string, Expectation>();
    for (const p of this.properties) {
      const { checks, assumes } = p.expectations(plan);
      for (const e of [...checks, ...assumes]) all.set(keyOf(e), e);
    }
    const c = buildCase(plan, { id: 'property-run', rules: [...new Set(this.properties.flatMap((p) => p.rules))], description: 'generated' }, [...all.values()]);
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

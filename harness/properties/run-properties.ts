/**
 * Runs the properties against an implementation with fast-check: generate scenarios from one seed,
 * drive each as a case through the adapter, and when a property breaks, let fast-check shrink the
 * scenario; the smallest failing one is printed as a ready-to-paste tests.yaml case.
 */
import fc from 'fast-check';
import type { Description } from '../../schemas/adapter.ts';
import type { Level } from '../case-types.ts';
import type { ExpectationResult } from '../check.ts';
import type { InvariantResult } from '../invariants.ts';
import type { AdapterFactory } from '../run.ts';
import { buildCase } from './build-case.ts';
import { PROPERTIES, type PropertyDefinition } from './definitions.ts';
import { ScenarioRunner, type Evaluation } from './evaluate.ts';
import { plan } from './model.ts';
import { caseYaml } from './reproducer.ts';
import { scenarioArbitrary, type Scenario } from './scenario.ts';

export const DEFAULT_PROPERTY_RUNS = 50;
/** Per generated case, unless set; a hung implementation errors the run instead of stalling it. */
export const DEFAULT_PROPERTY_CASE_TIMEOUT_MS = 5_000;
/** Per property, generation and shrinking together; shrinking stops at the best case found so far. */
const PROPERTY_TIME_LIMIT_MS = 60_000;

export type PropertyStatus = 'pass' | 'fail' | 'errored' | 'skipped';

export interface Counterexample {
  /** The shrunk case as a tests.yaml list item. */
  case_yaml: string;
  /** Crystal steps in its script. */
  steps: number;
  /** How many shrinking steps fast-check took to reach it. */
  shrinks: number;
  /** Expectations that failed: path, matcher, expected, actual. */
  failures: ExpectationResult[];
  /** Ambient invariants (counted by this property) that failed. */
  invariants: InvariantResult[];
  /** Why the run errored, when it did. */
  reason?: string;
}

export interface PropertyResult {
  id: string;
  rules: string[];
  level: Level;
  title: string;
  status: PropertyStatus;
  /** Scenarios checked (discarded ones, to which the property did not apply, are not counted). */
  runs: number;
  seed: number;
  duration_ms: number;
  /** Why the property was skipped or errored without a counterexample. */
  reason?: string;
  /** Rules the counterexample shows broken: the property's own when a check failed, an invariant's when one did. */
  failed_rules: string[];
  counterexample?: Counterexample;
}

export interface PropertyOptions {
  runs?: number;
  seed?: number;
  /** Filter terms, as for cases: a property id, a rule id or a rule family. */
  filter?: readonly string[];
  /** Time limit of one generated case. */
  caseTimeoutMs?: number;
  /** Called after each property, for progress lines. */
  onProperty?: (result: PropertyResult, done: number, total: number) => void;
}

/** A filter term selects a property by its id, one of its rules, or a rule family; no terms select all. */
export function selectsProperty(p: PropertyDefinition, terms: readonly string[]): boolean {
  if (terms.length === 0) return true;
  return terms.some((t) => t === p.id || p.rules.includes(t) || p.rules.some((r) => r.startsWith(`${t}-`)) || p.requires.some((f) => f === t));
}

/** A fresh random seed that fits fast-check's 32-bit seeds. */
export function randomSeed(): number {
  return Math.floor(Math.random() * 0x7fffffff);
}

export async function runProperties(factory: AdapterFactory, description: Description, options: PropertyOptions = {}): Promise<PropertyResult[]> {
  const seed = options.seed ?? randomSeed();
  const runs = options.runs ?? DEFAULT_PROPERTY_RUNS;
  const chosen = PROPERTIES.filter((p) => selectsProperty(p, options.filter ?? []));
  const features = new Set<string>(description.features);
  const runner = new ScenarioRunner(factory, description, chosen, options.caseTimeoutMs ?? DEFAULT_PROPERTY_CASE_TIMEOUT_MS);
  const arbitrary = scenarioArbitrary({ fork: features.has('fork') });
  const results: PropertyResult[] = [];
  for (const property of chosen) {
    const missing = property.requires.filter((f) => !features.has(f));
    const result = missing.length > 0
      ? base(property, 'skipped', seed, 0, 0, `feature not declared: ${missing.join(', ')}`)
      : await checkProperty(property, runner, arbitrary, seed, runs);
    results.push(result);
    options.onProperty?.(result, results.length, chosen.length);
  }
  return results;
}

async function checkProperty(property: PropertyDefinition, runner: ScenarioRunner, arbitrary: fc.Arbitrary<Scenario>, seed: number, runs: number): Promise<PropertyResult> {
  const started = performance.now();
  // After one scenario runs out of time, every other is discarded: shrinking a hang would cost a
  // time limit per attempt, so the first hung scenario is the counterexample.
  let hung = false;
  const details = await fc.check(
    fc.asyncProperty(arbitrary, async (scenario) => {
      fc.pre(!hung);
      const p = plan(scenario);
      fc.pre(property.expectations(p).checks.length > 0);
      const evaluation = await runner.evaluate(property, p);
      fc.pre(evaluation.status !== 'inconclusive');
      if (evaluation.timedOut) hung = true;
      return evaluation.status === 'pass';
    }),
    { seed, numRuns: runs, interruptAfterTimeLimit: PROPERTY_TIME_LIMIT_MS },
  );
  const elapsed = Math.round(performance.now() - started);
  if (!details.failed) return base(property, 'pass', seed, details.numRuns, elapsed);
  if (details.counterexample === null) {
    const why = details.interrupted ? `ran out of time after ${details.numRuns} runs` : `no generated scenario applied to it (${details.numSkips} discarded)`;
    return base(property, details.interrupted ? 'errored' : 'skipped', seed, details.numRuns, elapsed, why);
  }
  const [scenario] = details.counterexample;
  const p = plan(scenario);
  const evaluation: Evaluation = await runner.evaluate(property, p);
  const header = { id: `property-${property.id}`, rules: property.rules, description: `shrunk counterexample of property ${property.id} (seed ${seed}): ${property.title}` };
  const reproducer = buildCase(p, header, property.expectations(p).checks);
  // The predicate can fail for a reason the re-run no longer shows (a flaky implementation): say so.
  const flaky = evaluation.status === 'pass' || evaluation.status === 'inconclusive';
  const status: PropertyStatus = evaluation.status === 'fail' ? 'fail' : 'errored';
  const failedRules = new Set(evaluation.failures.length > 0 ? property.rules : []);
  for (const i of evaluation.invariants) i.rules.forEach((r) => failedRules.add(r));
  return {
    ...base(property, status, seed, details.numRuns, elapsed, flaky ? 'the counterexample did not fail when run again (the implementation is not deterministic)' : evaluation.reason),
    failed_rules: [...failedRules],
    counterexample: {
      case_yaml: caseYaml(reproducer),
      steps: p.script.length,
      shrinks: details.numShrinks,
      failures: evaluation.failures,
      invariants: evaluation.invariants,
      ...(evaluation.reason !== undefined && { reason: evaluation.reason }),
    },
  };
}

function base(p: PropertyDefinition, status: PropertyStatus, seed: number, runs: number, duration: number, reason?: string): PropertyResult {
  return { id: p.id, rules: p.rules, level: p.level, title: p.title, status, runs, seed, duration_ms: duration, ...(reason !== undefined && { reason }), failed_rules: [] };
}

/**
 * Runs the properties against an implementation with fast-check: generate scenarios from one seed,
 * drive each as a case through the adapter, and when a property breaks, let fast-check shrink the
 * scenario; the smallest failing one is printed as a ready-to-paste tests.yaml case.
 */
import fc from 'fast-check';
import type { Description } from '../../schemas/adapter.ts';
import type { Level } from '../case-file/index.ts';
import type { ExpectationResult } from '../judge/index.ts';
import type { InvariantResult } from '../judge/index.ts';
import type { AdapterFactory } from '../run/index.ts';
import { buildCase } from './build-case.ts';
import { chooseDraft, kitRulesIn, selects, termsAtDraft } from '../plan/index.ts';
import { draftVersions } from '../../spec/drafts.ts';
import { stretchedForLoad } from '../values/index.ts';
import { propertyAppliesAt, propertyTermsAt, reproducerAt } from './drafts.ts';
import { buildCodeCase } from './code-case.ts';
import { CODE_PROPERTIES } from './code-definitions.ts';
import { CODE_LANGUAGE, codeSteps, planCode, type CodePlan } from './code-model.ts';
import { codeArbitrary, type CodeScenario } from './code-scenario.ts';
import { buildCompositionCase } from './composition-case.ts';
import { COMPOSITION_PROPERTIES } from './composition-definitions.ts';
import { compositionSteps, planComposition, type CompositionPlan } from './composition-model.ts';
import { probeComposition } from './composition-probe.ts';
import { compositionArbitrary, type CompositionScenario } from './composition-scenario.ts';
import { PROPERTIES, type PropertyDefinition } from './definitions.ts';
import { checksFor, namedRules, ScenarioRunner, type CaseBuilder, type Evaluation } from './evaluate.ts';
import { plan, type Plan } from './model.ts';
import { caseYaml } from './reproducer.ts';
import { scenarioArbitrary, type Scenario } from './scenario.ts';
import { buildIdCase, idArbitrary, planIds, TOOL_CALL_ID_PROPERTIES, type IdPlan } from './tool-call-ids.ts';
import { buildVerifierCase, planVerifiers, verifierArbitrary, VERIFIER_PROPERTIES, type VerifierPlan, type VerifierScenario } from './verifier-order.ts';
import { buildOverlayCase, overlayArbitrary, overlaySteps, OVERLAY_ACCEPT_PROPERTIES, OVERLAY_REJECT_PROPERTIES, planOverlay, type OverlayPlan, type OverlayScenario } from './overlay-laws.ts';

export const DEFAULT_PROPERTY_RUNS = 50;
/** Default runs of the code family (when the caller sets none): each case starts a sandbox, so 50 runs would add about 2 s to a run. */
export const DEFAULT_CODE_PROPERTY_RUNS = 20;
/** Per generated case, unless set; a hung implementation errors the run instead of stalling it. */
export const DEFAULT_PROPERTY_CASE_TIMEOUT_MS = 5_000;
/** Per property, generation and shrinking together, on an idle machine; shrinking stops at the best case found so far. */
export const PROPERTY_TIME_LIMIT_MS = 60_000;

/** A property's time limit when it starts: a hang bound held on an idle machine, stretched with the load like a case's limit. */
export const propertyTimeLimitMs = (): number => stretchedForLoad(PROPERTY_TIME_LIMIT_MS);
/**
 * Discarded scenarios allowed per run before a property gives up as `skipped`. Every discard drives a
 * case, and one defect can make a property's assumption fail on every scenario (the property of that
 * defect's rule reports it), so the bound keeps such a run short. No property needs more than a few.
 */
const MAX_SKIPS_PER_RUN = 10;

/** xfail: failed or errored, and listed as an expected failure (expected-failures.ts). */
export type PropertyStatus = 'pass' | 'fail' | 'errored' | 'skipped' | 'xfail';

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
  /** The run was interrupted while the property ran or before it started: errored, never shrunk, no counterexample. */
  interrupted?: true;
  /**
   * Errored because a time limit ran out before any scenario failed: a generated scenario outlasted its
   * limit (`caseTimeoutMs`; the reason says which and, when the adapter says so, what it still waited
   * for), or the property's own time budget ended. Like an interruption it checked nothing to the end:
   * no counterexample, no broken rule, never shrunk. A run with one is incomplete, not failed.
   */
  timed_out?: true;
  /** Rules the counterexample shows broken: those its failed checks speak for, and an invariant's when one failed. */
  failed_rules: string[];
  counterexample?: Counterexample;
  /** Listed as an expected failure, yet passed: fails the run so the list cannot rot. */
  stale?: boolean;
}

/** Property families a run that allows overlap (`--jobs` above 1) runs at once: one per core here. */
export const PROPERTY_FAMILIES_AT_ONCE = 2;

export interface PropertyOptions {
  runs?: number;
  seed?: number;
  /** Filter terms, as for cases: a property id, a rule id or a rule family. */
  filter?: readonly string[];
  /** Time limit of one generated case. */
  caseTimeoutMs?: number;
  /** Called after each property, for progress lines, in report order. */
  onProperty?: (result: PropertyResult, done: number, total: number) => void;
  /**
   * Property families run at once (default 1: one after another). Each scenario has an adapter instance
   * of its own, so the implementation must tolerate several instances at once, as with the cases' `jobs`.
   * Results and progress keep report order either way.
   */
  concurrency?: number;
  /**
   * Interrupts the properties (Ctrl-C): the one running stops drawing scenarios and, like every later
   * one, reports `errored` with `interrupted` and no counterexample. A scenario cut short by the
   * interruption is not a failure, so it is never shrunk.
   */
  signal?: AbortSignal;
  /**
   * The draft judged (default: the newest the implementation declares, harness/plan/drafts.ts): a
   * property whose rule that draft removes or reverses is not run, and results name its rule IDs.
   */
  draft?: string;
}

/** A filter term selects a property by its id, one of its rules, a rule family or a feature it requires, in any case; no terms select all (harness/plan `selects`). */
export function selectsProperty<P>(p: PropertyDefinition<P>, terms: readonly string[]): boolean {
  return selects(p, terms);
}

/**
 * The properties a filter selects, as every interface selects them: at the judged `draft`, those whose
 * rules hold there and that the terms select in its ids (another draft's rule id read as its
 * counterpart, harness/plan `termsAtDraft`); with no draft yet (before the implementation describes
 * itself), those the terms select in some draft's ids.
 */
export function selectProperties<P>(properties: readonly PropertyDefinition<P>[], terms: readonly string[], draft?: string): PropertyDefinition<P>[] {
  if (draft !== undefined) {
    const at = termsAtDraft(terms, draft);
    return properties.filter((p) => propertyAppliesAt(p.rules, draft) && selects(propertyTermsAt(p, draft), at));
  }
  return properties.filter((p) => selects(p, terms) || draftVersions().some((d) => propertyAppliesAt(p.rules, d) && selects(propertyTermsAt(p, d), terms)));
}

/** A property runs at the judged draft when its rules hold there and the filter selects it (in that draft's IDs). */
function chosenAt<P>(p: PropertyDefinition<P>, draft: string, terms: readonly string[]): boolean {
  return selectProperties([p], terms, draft).length > 0;
}

/** A result in the judged draft's rule IDs and level. */
function resultAt(result: PropertyResult, draft: string): PropertyResult {
  return { ...propertyTermsAt(result, draft), failed_rules: kitRulesIn(result.failed_rules, draft) };
}

/**
 * The properties' seed when none is given. Fixed, so two runs of one implementation draw the same
 * scenarios and a CI job cannot turn red with no change; exploring other seeds is a choice (`randomSeed`).
 */
export const DEFAULT_SEED = 1;

/** A fresh random seed that fits fast-check's 32-bit seeds. */
export function randomSeed(): number {
  return Math.floor(Math.random() * 0x7fffffff);
}

/** What a family's generator may learn from before it draws: the declared features, and the implementation itself. */
interface GeneratorContext {
  features: ReadonlySet<string>;
  description: Description;
  factory: AdapterFactory;
}

/** A kind of generated scenario: its generator, model, case writer and properties. */
interface Family<S, P> {
  properties: readonly PropertyDefinition<P>[];
  /** The scenarios to draw; asked once per run, and only when a property of the family is not skipped. */
  arbitrary: (context: GeneratorContext) => fc.Arbitrary<S> | Promise<fc.Arbitrary<S>>;
  plan: (scenario: S) => P;
  build: CaseBuilder<P>;
  /** Crystal steps of a plan's case, the size reported for a counterexample. */
  steps: (plan: P) => number;
  /** Why the implementation cannot run this family's cases at all (checked after features), if so. */
  unsupported?: (description: Description) => string | undefined;
  /** Runs when the caller sets none. */
  defaultRuns?: number;
}

const conversation: Family<Scenario, Plan> = {
  properties: PROPERTIES,
  arbitrary: ({ features }) => scenarioArbitrary({ fork: features.has('fork') }),
  plan,
  build: buildCase,
  steps: (p) => p.script.length,
};

/**
 * COMP-*, WARD-1: parents that delegate (feature `composition`). The child-request options drawn are
 * the ones the implementation's call_entity takes, learned by a probe before generating.
 */
const composition: Family<CompositionScenario, CompositionPlan> = {
  properties: COMPOSITION_PROPERTIES,
  arbitrary: async ({ factory, description }) => compositionArbitrary((await probeComposition(factory, description)).options),
  plan: planComposition,
  build: buildCompositionCase,
  steps: compositionSteps,
};

/** CIRCLE-9, CIRCLE-5, CIRCLE-7, LOOP-1, LOOP-3: code circles whose programs share state (feature `code-medium`). */
const code: Family<CodeScenario, CodePlan> = {
  properties: CODE_PROPERTIES,
  arbitrary: () => codeArbitrary,
  plan: planCode,
  build: buildCodeCase,
  steps: codeSteps,
  unsupported: (d) => (d.sandbox?.language === CODE_LANGUAGE ? undefined : `sandbox language: the properties script ${CODE_LANGUAGE}, the implementation's sandbox speaks ${d.sandbox?.language ?? 'nothing'}`),
  defaultRuns: DEFAULT_CODE_PROPERTY_RUNS,
};

/** CRYSTAL-4: one reply whose call ids are drawn so that repeats stand anywhere in it. */
const toolCallIds: Family<string[], IdPlan> = {
  properties: TOOL_CALL_ID_PROPERTIES,
  arbitrary: () => idArbitrary,
  plan: planIds,
  build: buildIdCase,
  steps: () => 2,
};

/** CIRCLE-6, CIRCLE-5: generated verifier lists in any order (feature `verifier-wards`). */
const verifierOrder: Family<VerifierScenario, VerifierPlan> = {
  properties: VERIFIER_PROPERTIES,
  arbitrary: () => verifierArbitrary,
  plan: planVerifiers,
  build: buildVerifierCase,
  steps: (p) => p.scenario.turns.length + 1,
};

/** CIRCLE-10, CIRCLE-4: generated writes and deletions through an overlay, then accepted (feature `overlay-file-gates`). */
const overlayAccepted: Family<OverlayScenario, OverlayPlan> = {
  properties: OVERLAY_ACCEPT_PROPERTIES,
  arbitrary: () => overlayArbitrary('accept'),
  plan: planOverlay,
  build: buildOverlayCase,
  steps: overlaySteps,
};

/** CIRCLE-6, CIRCLE-10: the same, then rejected. */
const overlayRejected: Family<OverlayScenario, OverlayPlan> = { ...overlayAccepted, properties: OVERLAY_REJECT_PROPERTIES, arbitrary: () => overlayArbitrary('reject') };

/** Every property, in report order: the conversation ones, tool-call ids, then composition, code, verifier wards and overlays. */
export const ALL_PROPERTIES: readonly PropertyDefinition<never>[] = [...PROPERTIES, ...TOOL_CALL_ID_PROPERTIES, ...COMPOSITION_PROPERTIES, ...CODE_PROPERTIES, ...VERIFIER_PROPERTIES, ...OVERLAY_ACCEPT_PROPERTIES, ...OVERLAY_REJECT_PROPERTIES] as readonly PropertyDefinition<never>[];
/** Their ids, in the same order. */
export const ALL_PROPERTY_IDS: readonly string[] = ALL_PROPERTIES.map((p) => p.id);

export async function runProperties(factory: AdapterFactory, description: Description, options: PropertyOptions = {}): Promise<PropertyResult[]> {
  const seed = options.seed ?? DEFAULT_SEED;
  const runs = options.runs;
  const features = new Set<string>(description.features);
  const draft = options.draft ?? chooseDraft(description);
  const selected = (list: readonly PropertyDefinition<never>[]): number => list.filter((p) => chosenAt(p, draft, options.filter ?? [])).length;
  const total = selected(PROPERTIES) + selected(TOOL_CALL_ID_PROPERTIES) + selected(COMPOSITION_PROPERTIES) + selected(CODE_PROPERTIES) + selected(VERIFIER_PROPERTIES) + selected(OVERLAY_ACCEPT_PROPERTIES) + selected(OVERLAY_REJECT_PROPERTIES);
  const families: ((run: FamilyRun) => Promise<void>)[] = [
    (run) => runFamily(conversation, run),
    (run) => runFamily(toolCallIds, run),
    (run) => runFamily(composition, run),
    (run) => runFamily(code, run),
    (run) => runFamily(verifierOrder, run),
    (run) => runFamily(overlayAccepted, run),
    (run) => runFamily(overlayRejected, run),
  ];
  // Each family fills its own list; a family's results are reported once every earlier family's are.
  const lists: PropertyResult[][] = families.map(() => []);
  const shown = families.map(() => 0);
  const finished = families.map(() => false);
  const results: PropertyResult[] = [];
  const reported = (): void => {
    for (let at = 0; at < families.length; at++) {
      for (const list = lists[at]!; shown[at]! < list.length; shown[at]!++) {
        // Judged in 0.1.0's rule IDs; reported in the judged draft's (drafts.ts).
        const result = resultAt(list[shown[at]!]!, draft);
        results.push(result);
        options.onProperty?.(result, results.length, total);
      }
      if (!finished[at]) return;
    }
  };
  let next = 0;
  // Families overlap only where one waits (a sandbox thread, the file system) while another computes.
  const lane = async (): Promise<void> => {
    for (let at = next++; at < families.length; at = next++) {
      await families[at]!({ factory, description, features, seed, runs, options, draft, results: lists[at]!, total, reported });
      finished[at] = true;
      reported();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.floor(options.concurrency ?? 1)) }, lane));
  return results;
}

interface FamilyRun {
  factory: AdapterFactory;
  description: Description;
  features: ReadonlySet<string>;
  seed: number;
  /** Runs the caller asked for; each family's default otherwise. */
  runs: number | undefined;
  options: PropertyOptions;
  /** The draft judged. */
  draft: string;
  /** This family's results, in its order. */
  results: PropertyResult[];
  total: number;
  /** Called after each result: passes on, in report order, whatever can be reported now. */
  reported: () => void;
}

async function runFamily<S, P>(family: Family<S, P>, run: FamilyRun): Promise<void> {
  const chosen = family.properties.filter((p) => chosenAt(p, run.draft, run.options.filter ?? []));
  if (chosen.length === 0) return;
  // Every cantrip of a scenario is constructed for the judged draft (CantripSetup.draft); its checks stay in 0.1.0's IDs.
  const build: CaseBuilder<P> = (plan, header, expect) => ({ ...family.build(plan, header, expect), judged_draft: run.draft });
  const runner = new ScenarioRunner<P>(run.factory, run.description, chosen, run.options.caseTimeoutMs ?? DEFAULT_PROPERTY_CASE_TIMEOUT_MS, build);
  let arbitrary: fc.Arbitrary<S> | undefined;
  const signal = run.options.signal;
  for (const property of chosen) {
    const missing = property.requires.filter((f) => !run.features.has(f));
    const unsupported = missing.length > 0 ? `feature not declared: ${missing.join(', ')}` : family.unsupported?.(run.description);
    // A property that would run, after an interruption: not run, which is not a failure (one that is skipped anyway stays skipped).
    if (unsupported === undefined && signal?.aborted) {
      run.results.push(interruptedResult(property, run.seed, 0, 0, `not run: ${interruption(signal)}`));
      run.reported();
      continue;
    }
    if (unsupported === undefined) arbitrary ??= await family.arbitrary({ features: run.features, description: run.description, factory: run.factory });
    const result = unsupported !== undefined || arbitrary === undefined
      ? base(property, 'skipped', run.seed, 0, 0, unsupported)
      : await checkProperty(family, property, runner, arbitrary, run.seed, run.runs ?? family.defaultRuns ?? DEFAULT_PROPERTY_RUNS, run.draft, signal);
    run.results.push(result);
    run.reported();
  }
}

async function checkProperty<S, P>(family: Family<S, P>, property: PropertyDefinition<P>, runner: ScenarioRunner<P>, arbitrary: fc.Arbitrary<S>, seed: number, runs: number, draft: string, signal?: AbortSignal): Promise<PropertyResult> {
  const started = performance.now();
  const timeLimitMs = propertyTimeLimitMs();
  // After one scenario runs out of time, every other is discarded: shrinking a hang would cost a time
  // limit per attempt. A scenario that ran out of time checked nothing, so it is never a counterexample:
  // before any failure it makes the property errored by its time limit (`timedOut`); while a failure is
  // being shrunk it is discarded, and the smallest failure found so far stays the counterexample.
  let hung = false;
  let failureFound = false;
  let timedOut: Evaluation | undefined;
  // Why scenarios were discarded, so a property no scenario reached says what kept it away.
  const discards = new Map<string, number>();
  const discard = (why: string): void => {
    discards.set(why, (discards.get(why) ?? 0) + 1);
  };
  const details = await fc.check(
    fc.asyncProperty(arbitrary, async (scenario) => {
      // After an interruption every scenario is discarded at once, so fast-check ends without a failure to shrink.
      fc.pre(!hung && !signal?.aborted);
      const p = family.plan(scenario);
      if (property.expectations(p).checks.length === 0) discard('the scenario has nothing for this property to check');
      fc.pre(property.expectations(p).checks.length > 0);
      const evaluation = await runner.evaluate(property, p);
      // A scenario the interruption cut short (its adapter ended, or never made) checked nothing.
      fc.pre(!signal?.aborted);
      if (evaluation.status === 'inconclusive') discard(evaluation.reason ?? 'inconclusive');
      fc.pre(evaluation.status !== 'inconclusive');
      if (evaluation.timedOut) {
        hung = true;
        fc.pre(!failureFound);
        timedOut ??= evaluation;
        return false;
      }
      if (evaluation.status !== 'pass') failureFound = true;
      return evaluation.status === 'pass';
    }),
    { seed, numRuns: runs, maxSkipsPerRun: MAX_SKIPS_PER_RUN, interruptAfterTimeLimit: timeLimitMs },
  );
  const elapsed = Math.round(performance.now() - started);
  // Whatever fast-check made of the scenarios before the interruption, the property was not checked to the end.
  if (signal?.aborted) return interruptedResult(property, seed, details.numRuns, elapsed, `${interruption(signal)} while this property ran (after ${details.numRuns} runs)`);
  if (!details.failed) return base(property, 'pass', seed, details.numRuns, elapsed);
  // fast-check holds the hung scenario as its counterexample; it is reported as the time limit it hit.
  if (timedOut !== undefined && !failureFound) return timedOutResult(property, seed, details.numRuns, elapsed, `a generated scenario hit its time limit after ${details.numRuns} runs: ${timedOut.reason ?? 'no reason given'}`);
  if (details.counterexample === null) {
    if (details.interrupted) return timedOutResult(property, seed, details.numRuns, elapsed, `ran out of the property's time (${timeLimitMs} ms) after ${details.numRuns} runs`);
    const common = [...discards.entries()].sort((a, b) => b[1] - a[1])[0];
    return base(property, 'skipped', seed, details.numRuns, elapsed, `no generated scenario applied to it (${details.numSkips} discarded${common ? `; most often: ${common[0]}` : ''})`);
  }
  const [scenario] = details.counterexample;
  const p = family.plan(scenario);
  const evaluation: Evaluation = await runner.evaluate(property, p);
  if (signal?.aborted) return interruptedResult(property, seed, details.numRuns, Math.round(performance.now() - started), `${interruption(signal)} while this property ran (after ${details.numRuns} runs)`);
  // Run again for the report, the smallest failure ran out of time instead (a machine that slowed down): nothing to show.
  if (evaluation.timedOut) return timedOutResult(property, seed, details.numRuns, Math.round(performance.now() - started), `the smallest failing scenario hit its time limit when run again: ${evaluation.reason ?? 'no reason given'}`);
  // The printed case checks, and names, only the rules its failed checks speak for.
  const shown = evaluation.rules.length > 0 ? evaluation.rules : property.rules;
  const header = { id: `property-${property.id}`, rules: shown, description: `shrunk counterexample of property ${property.id} (seed ${seed}): ${property.title}` };
  const reproducer = reproducerAt(family.build(p, header, namedRules(property, checksFor(property, property.expectations(p).checks, shown), shown)), draft);
  // The predicate can fail for a reason the re-run no longer shows (a flaky implementation): say so.
  const flaky = evaluation.status === 'pass' || evaluation.status === 'inconclusive';
  const status: PropertyStatus = evaluation.status === 'fail' ? 'fail' : 'errored';
  const failedRules = new Set(evaluation.failures.length > 0 ? evaluation.rules : []);
  for (const i of evaluation.invariants) i.rules.forEach((r) => failedRules.add(r));
  return {
    ...base(property, status, seed, details.numRuns, elapsed, flaky ? 'the counterexample did not fail when run again (the implementation is not deterministic)' : evaluation.reason),
    failed_rules: [...failedRules],
    counterexample: {
      case_yaml: caseYaml(reproducer),
      steps: family.steps(p),
      shrinks: details.numShrinks,
      failures: evaluation.failures,
      invariants: evaluation.invariants,
      ...(evaluation.reason !== undefined && { reason: evaluation.reason }),
    },
  };
}

/** Why the run was interrupted, in the words the case runner uses (harness/run/run.ts). */
function interruption(signal: AbortSignal): string {
  return `the run was interrupted (${String(signal.reason)})`;
}

/** A property the interruption kept from finishing: errored, with no counterexample and no broken rule. */
function interruptedResult<P>(p: PropertyDefinition<P>, seed: number, runs: number, duration: number, reason: string): PropertyResult {
  return { ...base(p, 'errored', seed, runs, duration, reason), interrupted: true };
}

/** A property a time limit kept from finishing: errored, with no counterexample and no broken rule. */
function timedOutResult<P>(p: PropertyDefinition<P>, seed: number, runs: number, duration: number, reason: string): PropertyResult {
  return { ...base(p, 'errored', seed, runs, duration, reason), timed_out: true };
}

function base<P>(p: PropertyDefinition<P>, status: PropertyStatus, seed: number, runs: number, duration: number, reason?: string): PropertyResult {
  return { id: p.id, rules: p.rules, level: p.level, title: p.title, status, runs, seed, duration_ms: duration, ...(reason !== undefined && { reason }), failed_rules: [] };
}


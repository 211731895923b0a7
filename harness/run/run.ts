/**
 * Runs planned cases, each against a fresh adapter instance, with a per-case time limit. An adapter
 * exception or a timeout makes that case `errored` and the run goes on; `dispose()` is always called.
 * The run stops waiting early in two ways, and then reports every remaining case `errored` with the
 * reason, without running it: when the adapter has left several cases in a row unanswered
 * (harness/adapters/unanswered.ts), and when the caller's abort signal fires (Ctrl-C).
 *
 * Cases run one after another, in plan order, by default. With `jobs` above 1, the cases that script a
 * wait (harness/drive/scripted-waits.ts) start ahead of their turn and run alongside the others, up to `jobs`
 * cases at once, while the rest still run one at a time in plan order: a case that computes never
 * shares the processor with another that computes, so its time limit means what it meant in a
 * sequential run. Whatever order cases finish in, results are taken in plan order: the report,
 * `onCase` and the unanswered streak see the plan's order.
 */
import { setMaxListeners } from 'node:events';
import type { Adapter, CrystalTransport, Description } from '../../schemas/adapter.ts';
import type { CaseFile, Level, LoadedCase } from '../case-file/index.ts';
import { levelFor, rulesDraftOf } from '../case-file/index.ts';
import { checkExpectations, consequenceOf, driveAsReadAt, pathsRead, type Departure, type ExpectationResult, type RunCounts } from '../judge/index.ts';
import { driveCase, type KitLimitReached } from '../drive/index.ts';
import { catalogOf, ruleIdsOf } from '../../spec/drafts.ts';
import { checkInvariants, observeRecordShapes, type InvariantResult, type RecordShapeObservation } from '../judge/index.ts';
import { caseForDraft, chooseDraft, filterVocabulary, kitRulesIn, planCases, resolveFilterTerms, ruleIdAt } from '../plan/index.ts';
import { scriptsAWait } from '../drive/index.ts';
import { loadFactor, stretchedForLoad } from '../values/index.ts';
import { ownDeadlineMayHaveCut, withRoomyEvalDeadline, type OwnEvalDeadline } from './eval-deadline.ts';
import { missedPremise, PREMISE_ATTEMPTS, PREMISE_TIME_FACTOR, withTimesScaled } from './timing-premise.ts';
import { GIVE_UP_AFTER, UnansweredStreak } from '../adapters/index.ts';

export type CaseStatus = 'pass' | 'fail' | 'skipped' | 'errored' | 'xfail';
export type AdapterFactory = () => Adapter | Promise<Adapter>;

export const DEFAULT_CASE_TIMEOUT_MS = 10_000;
/** Bound on dispose(), so a stuck adapter cannot hang the run. */
const DISPOSE_TIMEOUT_MS = 2_000;

export interface CaseResult {
  id: string;
  rules: string[];
  level: Level;
  requires: string[];
  description: string;
  status: CaseStatus;
  duration_ms: number;
  /** Why the case was skipped or errored. */
  reason?: string;
  /** Set when the case ran out of its time limit (as opposed to an adapter that threw). */
  timed_out?: boolean;
  /** Set when every run missed the case's timing premise (the machine too slow for it): errored, incomplete, never a failure. */
  premise_missed?: boolean;
  /** Runs of the case when a run missed its timing premise (harness/run/timing-premise.ts); the result is the last run's. */
  attempts?: number;
  /** Set when the case ran over another crystal transport than the run's: a wire-only case in a callback run (harness/plan). */
  crystal_transport?: CrystalTransport;
  /** Failed expectations, with path, expected and actual. */
  failures: ExpectationResult[];
  /** How many expectations were checked. */
  expectations: number;
  invariants: InvariantResult[];
  /** Failures found while driving (a script ran out, a turn reference found nothing). */
  problems: string[];
  /**
   * Rules this case shows broken: the rule of each failed expectation (its `rule`, or the case's one
   * rule), and the case's rules when a driving problem failed it. Ambient invariants are not counted here.
   */
  failed_rules: string[];
  /**
   * When the run departed from its script (a problem found while driving): the rules of the case whose
   * every expectation read nothing the departure left unreliable, so they were still judged (those not in
   * `failed_rules` held). Absent without a problem.
   */
  judged_rules?: string[];
  /**
   * How the records of the case's loom differ from the shapes the spec shows (harness/judge/record-shapes.ts):
   * never a failure, gathered once per run by the report. Absent when the case did not run to a verdict.
   */
  record_shapes?: RecordShapeObservation[];
  /**
   * The kit's bounds the case reached (harness/drive/kit-limits.ts): what was cut, after how many, and
   * whether the case was still judged on what was kept. Absent when none was reached.
   */
  limits_reached?: KitLimitReached[];
  /**
   * Set when a code case that failed on a loaded machine is incomplete instead: a program ran, by the kit's
   * clock, at least the implementation's own evaluation deadline, which may have cut it (harness/run/eval-deadline.ts).
   */
  own_eval_deadline?: OwnEvalDeadline;
  /** Listed as an expected failure but passed. */
  stale?: boolean;
  position: { file: string; line: number; column: number };
}

export interface RunOptions {
  /**
   * Filter terms, as `run --filter` reads them (harness/plan/filter.ts): case ids, rule ids of any
   * draft, rule families, features, property ids, in any case, several to a string when separated by
   * commas. An unknown term, or another draft's rule that the judged draft removes, throws `FilterError`.
   */
  filter?: readonly string[];
  timeoutMs?: number;
  /** Case ids expected to fail. */
  expectedFailures?: ReadonlySet<string>;
  /** Called after each case, for progress lines. */
  onCase?: (result: CaseResult, done: number, total: number) => void;
  /** Cases in a row left unanswered for one cause before the rest are errored without running (0: never). */
  giveUpAfter?: number;
  /** Interrupts the run: the running case and every later one are errored, with the signal's reason. */
  signal?: AbortSignal;
  /** How the scripted crystals reach the implementation (default `callback`); it must be declared in describe(). */
  crystalTransport?: CrystalTransport;
  /**
   * Most cases running at once (default 1: one after another). Only cases that script a wait run
   * alongside others; each one has an adapter instance of its own, so the implementation must tolerate
   * several instances at once.
   */
  jobs?: number;
  /**
   * The draft to judge (a version of spec/drafts.yaml); it must be one the implementation declares.
   * Default: the newest it declares (0.1.0 when it declares none): harness/plan/drafts.ts.
   */
  draft?: string;
  /** Called once the draft is chosen and the cases planned, before the first case runs (the console's first lines). */
  onPlanned?: (planned: { draft: string; description: Description; cases: number; outside: number }) => void;
}

export interface SuiteResult {
  description: Description;
  file: string;
  spec_version: string;
  /** The draft judged: every rule ID and level in `cases` is this draft's. */
  draft: string;
  /** Ids of the cases (selected by the filter) that do not apply to the judged draft: not run, neither failed nor skipped. */
  outside_draft?: string[];
  /** The filter's terms in their canonical spelling (`loop-3` as LOOP-3); empty when there was none. */
  filter?: string[];
  format_version: 1;
  started_at: string;
  duration_ms: number;
  cases: CaseResult[];
  /** Why the run stopped waiting before its last case (the adapter gave no answers, or an interruption). */
  stopped?: string;
}

class CaseTimeout extends Error {}
class Interrupted extends Error {}

/** An adapter may say what it is still waiting for, to make a timeout's reason precise (the stdio adapter does). */
interface SaysWhatItAwaits {
  waitingFor?(): string | undefined;
}

function bounded<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CaseTimeout(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}

/** Why the run was interrupted, in words. */
function interruption(signal: AbortSignal): string {
  return `the run was interrupted (${String(signal.reason)})`;
}

/** `work`, unless `signal` fires first: then an {@link Interrupted} rejection. */
function interruptible<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(new Interrupted(interruption(signal)));
  let onAbort: () => void = () => undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new Interrupted(interruption(signal)));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([work, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
}

/** The implementation's self-description, from a throwaway instance. */
export async function describeAdapter(factory: AdapterFactory): Promise<Description> {
  const adapter = await factory();
  try {
    return await bounded(adapter.describe(), DEFAULT_CASE_TIMEOUT_MS, 'describe()');
  } finally {
    await bounded(adapter.dispose(), stretchedForLoad(DISPOSE_TIMEOUT_MS), 'dispose()').catch(() => undefined);
  }
}

export async function runSuite(file: CaseFile, factory: AdapterFactory, options: RunOptions = {}): Promise<SuiteResult> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  // A filter that does not read is refused before the implementation is started.
  const filter = resolveFilterTerms(options.filter ?? [], filterVocabulary(file.cases));
  const description = await describeAdapter(factory);
  const transport = options.crystalTransport ?? 'callback';
  const draft = chooseDraft(description, options.draft);
  const planned = planCases(file.cases, description, filter, transport, draft);
  const plan = planned.filter((p) => p.outside === undefined);
  const outside = planned.filter((p) => p.outside !== undefined).map((p) => p.case.id);
  options.onPlanned?.({ draft, description, cases: plan.length, outside: outside.length });
  const jobs = Math.max(1, Math.floor(options.jobs ?? 1));
  // Each running case listens on the run's signal twice (making its adapter, driving it) and stops
  // listening when done: `jobs` cases at once are that many listeners, not a leak.
  if (options.signal) setMaxListeners(Math.max(10, 2 * jobs + 2), options.signal);
  const cases: CaseResult[] = [];
  const streak = new UnansweredStreak(options.giveUpAfter ?? GIVE_UP_AFTER);
  let gaveUp: string | undefined;
  /** Results by plan index as they come in, and which of them come from a case that ran. */
  const finished: (CaseResult | undefined)[] = [];
  const ran = new Set<number>();
  /** Takes every finished result that is next in plan order. */
  const take = (): void => {
    while (finished[cases.length]) {
      const result = finished[cases.length]!;
      if (ran.has(cases.length)) gaveUp ??= streak.record(result);
      applyExpectedFailure(result, options.expectedFailures);
      cases.push(result);
      options.onCase?.(result, cases.length, plan.length);
    }
  };
  // Two queues in plan order: cases that may run alongside others, and the rest, which run one at a time.
  const waiting: number[] = [];
  const computing: number[] = [];
  for (const [index, planned] of plan.entries()) {
    if (planned.skip) finished[index] = base(planned.case, 'skipped', 0, planned.skip);
    else (jobs > 1 && scriptsAWait(planned.case) ? waiting : computing).push(index);
  }
  take();
  const running = new Set<Promise<void>>();
  let computingRuns = false;
  let waitingRuns = 0;
  const start = (index: number, waits: boolean): void => {
    if (waits) waitingRuns++;
    else computingRuns = true;
    // A wire-only case in a callback run goes over a wire transport the implementation declares (issue 22.16).
    const over = plan[index]!.transport;
    const run: Promise<void> = runCase(plan[index]!.case, factory, description, options.timeoutMs ?? DEFAULT_CASE_TIMEOUT_MS, options.signal, over ?? transport).then((result) => {
      finished[index] = over === undefined ? result : { ...result, crystal_transport: over };
      ran.add(index);
      running.delete(run);
      if (waits) waitingRuns--;
      else computingRuns = false;
    });
    running.add(run);
  };
  while (waiting.length > 0 || computing.length > 0) {
    // Every finished case is taken before the next start, so a give-up or an interruption stops the rest.
    const stop = options.signal?.aborted ? interruption(options.signal) : gaveUp;
    if (stop) {
      for (const index of [...waiting.splice(0), ...computing.splice(0)]) finished[index] = base(plan[index]!.case, 'errored', 0, `not run: ${stop}`);
      break;
    }
    if (computing.length > 0 && !computingRuns) start(computing.shift()!, false);
    // Cases that wait start ahead of their turn, but always leave one place to the cases that compute.
    else if (waiting.length > 0 && waitingRuns < jobs - (computing.length > 0 || computingRuns ? 1 : 0)) start(waiting.shift()!, true);
    else {
      await Promise.race(running);
      take();
    }
  }
  while (running.size > 0) {
    await Promise.race(running);
    take();
  }
  take();
  const stopped = options.signal?.aborted ? interruption(options.signal) : gaveUp;
  return {
    description,
    file: file.file,
    spec_version: file.spec_version,
    draft,
    outside_draft: outside,
    filter,
    format_version: 1,
    started_at: startedAt,
    duration_ms: round(performance.now() - started),
    cases,
    ...(stopped && { stopped }),
  };
}

/**
 * Runs one case on a fresh adapter; never throws. A case with a timing premise that a run misses runs
 * again on a fresh adapter with its times scaled up, up to `PREMISE_ATTEMPTS` runs (timing-premise.ts)
 * (harness/run/timing-premise.ts); the result is the last run's, and `duration_ms` covers them all.
 */
export async function runCase(loaded: LoadedCase, factory: AdapterFactory, description: Description, defaultTimeoutMs = DEFAULT_CASE_TIMEOUT_MS, signal?: AbortSignal, transport: CrystalTransport = 'callback'): Promise<CaseResult> {
  const started = performance.now();
  // A case planned for a draft is in that draft's terms already; any other is judged at the draft a run would choose.
  const draft = loaded.judged_draft ?? chooseDraft(description);
  const inDraft = caseForDraft(loaded, draft);
  if (inDraft === undefined) return base(loaded, 'skipped', 0, `outside the draft: the case does not apply to draft ${draft}`);
  // The implementation's evaluation deadline must not decide a case about something else (eval-deadline.ts).
  const c = withRoomyEvalDeadline(inDraft, description);
  for (let attempt = 1; ; attempt++) {
    const scaled = attempt === 1 ? c : withTimesScaled(c, PREMISE_TIME_FACTOR ** (attempt - 1), defaultTimeoutMs);
    const { result, premiseMissed } = await runDrive(scaled, factory, description, defaultTimeoutMs, signal, transport);
    if (premiseMissed === undefined || attempt === PREMISE_ATTEMPTS || signal?.aborted) {
      const duration_ms = round(performance.now() - started);
      if (attempt === 1) return result;
      if (premiseMissed === undefined) return { ...result, duration_ms, attempts: attempt };
      // Never reaching what the case is about says nothing about the rules: errored, with what was missed.
      return { ...base(c, 'errored', duration_ms, `timing premise missed in all ${attempt} runs (scripted times up to ${PREMISE_TIME_FACTOR ** (attempt - 1)}x): ${premiseMissed}`), attempts: attempt, premise_missed: true };
    }
  }
}

/**
 * One run of a case on a fresh adapter, judged; never throws. A run that missed the case's timing
 * premise is not judged: it comes back with what it missed.
 */
async function runDrive(
  c: LoadedCase,
  factory: AdapterFactory,
  description: Description,
  defaultTimeoutMs: number,
  signal: AbortSignal | undefined,
  transport: CrystalTransport,
): Promise<{ result: CaseResult; premiseMissed?: string }> {
  const started = performance.now();
  const elapsed = (): number => round(performance.now() - started);
  let adapter: Adapter | undefined;
  /** Closes the case's crystal server, if it has one, even when the drive is left hanging. */
  const closers: Array<() => Promise<void>> = [];
  try {
    adapter = await interruptible(Promise.resolve(factory()), signal);
    // The limit holds on an idle machine; on a loaded one it stretches, so a slow machine never errors a working case (harness/values/machine-load.ts).
    const idleLimit = c.timeout_ms ?? defaultTimeoutMs;
    const factor = loadFactor();
    const limit = stretchedForLoad(idleLimit, factor);
    const what = factor > 1 ? `case ${c.id} (its ${idleLimit} ms limit stretched x${factor.toFixed(1)} for the machine's load)` : `case ${c.id}`;
    const drive = await interruptible(bounded(driveCase(c, adapter, description, transport, closers), limit, what), signal);
    const limits = drive.limits.length > 0 ? { limits_reached: drive.limits } : {};
    const broken = drive.faults.find((f) => f.kind === 'error');
    if (broken) return { result: { ...base(c, 'errored', elapsed(), broken.message), ...limits } };
    // The implementation offers no way to express a step the case scripts (an option its call_entity lacks).
    const inexpressible = drive.faults.find((f) => f.kind === 'skip');
    if (inexpressible) return { result: base(c, 'skipped', elapsed(), inexpressible.message) };
    // A setup every implementation must build was refused (drive/refused-setup.ts): the case fails on that
    // alone; its expectations read what never ran, and the sentence broken has no rule id to blame.
    const refusedRequired = drive.faults.find((f) => f.unnumbered !== undefined);
    if (refusedRequired) return { result: { ...base(c, 'fail', elapsed()), problems: [refusedRequired.message] } };
    const premiseMissed = missedPremise(c, drive);
    if (premiseMissed !== undefined) return { result: base(c, 'errored', elapsed(), 'timing premise missed'), premiseMissed };
    const draft = c.judged_draft ?? chooseDraft(description);
    // Paths read a later draft's text gate records in the case file's one vocabulary (harness/judge/records-per-draft.ts).
    const checked = checkExpectations(c.expect, driveAsReadAt(drive, draft), c.rules);
    // Each result with the paths its expectation reads, to tell a departure's consequences from what is still judged.
    const read = new Map(checked.map((e, i) => [e, pathsRead(c.expect[i])]));
    const failures = checked.filter((e) => !e.ok);
    // Ambient invariants are recorded here but judged once over the whole run (harness/report/ambient-checks.ts):
    // a case's verdict is its own expectations, and a driving problem (the loop went on, the act could not).
    // The kit's own checks name 0.1.0's rule IDs: the result speaks the judged draft's (harness/plan/drafts.ts).
    // A check of a rule the judged draft does not have (PROD-8 before 0.3.1) is not part of this draft's verdict.
    const inDraft = ruleIdsOf(draft);
    const faults = drive.faults.map((f) => (f.rules === undefined ? f : { ...f, rules: kitRulesIn(f.rules, draft) }));
    // The invariants read the faults too (a departure they do not judge is named in their detail): in the judged draft's ids.
    const invariants = checkInvariants(c, { ...drive, faults })
      .map((i) => ({ ...i, rules: kitRulesIn(i.rules, draft) }))
      .filter((i) => i.rules.some((r) => inDraft.has(r)));
    const problems = drive.faults.map((f) => f.message);
    // Under a departure, each failure says whether it read what the departure left unreliable (its consequence) or was still judged.
    const counts: RunCounts = { requestsIn: (lane) => drive.record.requests[lane]?.length ?? 0 };
    const marked = problems.length === 0 ? failures : failures.map((f) => ({ ...f, consequence: consequenceOf(read.get(f) ?? [f.path], faults, counts).length > 0 || !faults.some((x) => x.rules?.length) }));
    const failedRules = failedRulesOf(c, marked, faults);
    const status: CaseStatus = failures.length > 0 || problems.length > 0 ? 'fail' : 'pass';
    // The rules whose every expectation was still judged: evidence for them either way, despite the departure.
    const departedRules = new Set(checked.filter((e) => consequenceOf(read.get(e) ?? [e.path], faults, counts).length > 0 || !faults.some((x) => x.rules?.length)).map((e) => e.rule ?? ''));
    const judgedRules = problems.length === 0 ? undefined : [...new Set(checked.flatMap((e) => (e.rule === undefined || departedRules.has(e.rule) ? [] : [e.rule])))];
    // A program the implementation's own deadline may have cut on a loaded machine: not a verdict on the rules.
    const ownDeadline = status === 'fail' ? ownDeadlineMayHaveCut(c, description, drive, Math.max(factor, loadFactor())) : undefined;
    if (ownDeadline) {
      const why = `the implementation's own evaluation deadline (describe().sandbox.eval_timeout_ms, ${ownDeadline.deadline_ms} ms) may have cut a program: one ran ${ownDeadline.longest_eval_ms} ms by the kit's clock on a machine ${ownDeadline.load_factor}x slower than idle, so the case's ${failures.length + problems.length} finding(s) are not judged (declare the eval_timeout_ms ward to let the kit give such cases a deadline stretched with the load)`;
      return { result: { ...base(c, 'errored', elapsed(), why), ...limits, own_eval_deadline: ownDeadline } };
    }
    const counted = status === 'fail' ? { level: failingLevel(levelOf(c), marked, faults, draft) } : {};
    return { result: { ...base(c, status, elapsed()), ...counted, ...limits, failures: marked, expectations: checked.length, invariants, problems, failed_rules: [...failedRules], ...(judgedRules !== undefined && { judged_rules: judgedRules }), record_shapes: observeRecordShapes(drive, draft) } };
  } catch (error) {
    if (error instanceof Interrupted) return { result: base(c, 'errored', elapsed(), `${error.message} while this case ran`) };
    if (error instanceof CaseTimeout) {
      const awaited = (adapter as SaysWhatItAwaits | undefined)?.waitingFor?.();
      return { result: { ...base(c, 'errored', elapsed(), awaited ? `${error.message}; still waiting for ${awaited}` : error.message), timed_out: true } };
    }
    return { result: base(c, 'errored', elapsed(), thrownReason(error)) };
  } finally {
    // The port closes first: a provider still waiting on it fails at once, which unblocks a hung case.
    await Promise.all(closers.map((close) => close()));
    if (adapter) await bounded(adapter.dispose(), stretchedForLoad(DISPOSE_TIMEOUT_MS), 'dispose()').catch(() => undefined);
  }
}

function base(c: LoadedCase, status: CaseStatus, duration: number, reason?: string): CaseResult {
  return {
    id: c.id,
    rules: c.rules,
    level: levelOf(c),
    requires: c.requires ?? [],
    description: c.description,
    status,
    duration_ms: duration,
    ...(reason !== undefined && { reason }),
    failures: [],
    expectations: 0,
    invariants: [],
    problems: [],
    failed_rules: [],
    position: c.position,
  };
}

/**
 * A case's one level: a planned case's is the judged draft's already (harness/plan/drafts.ts); a case
 * that never reached a draft (outside it) is reported with its level in its own rules_draft, or the
 * strongest it states.
 */
function levelOf(c: LoadedCase): Level {
  if (typeof c.level === 'string') return c.level;
  const levels = Object.values(c.level).filter((l): l is Level => l !== undefined);
  return levelFor(c, c.judged_draft ?? rulesDraftOf(c)) ?? (['MUST', 'SHOULD', 'MAY'] as const).find((l) => levels.includes(l)) ?? 'MAY';
}

const RANK: Record<Level, number> = { MAY: 1, SHOULD: 2, MUST: 3 };

/**
 * The level a failing case counts at in `draft` (issue 29): the strongest level among what failed, never
 * stronger than the case's. A fault that names its rules is the case's failure (as in
 * {@link failedRulesOf}) and counts at its rules' levels in the draft; otherwise each failed expectation
 * at its own level (a SHOULD clause checked in a MUST case fails SHOULD; harness/case-file/drafts.ts
 * `expectationLevel`); a problem tied to no rule, at the case's level.
 */
export function failingLevel(caseLevel: Level, failures: readonly Pick<ExpectationResult, 'level' | 'consequence'>[], faults: readonly { rules?: string[] }[], draft: string): Level {
  const capped = (l: Level): Level => (RANK[l] < RANK[caseLevel] ? l : caseLevel);
  const named = faults.flatMap((f) => f.rules ?? []);
  const catalog = new Map(catalogOf(draft).rules.map((r) => [r.id, r.level as Level]));
  // A fault may name its rule in the kit's 0.1.0 ids; its level is that rule's in the judged draft (CRYSTAL-5 is LLM-5, a SHOULD, at 0.3.1).
  const faultLevel = (r: string): Level => capped(catalog.get(ruleIdAt(r, draft) ?? r) ?? caseLevel);
  // As in failedRulesOf: under a named fault, the failures marked as still judged (not its consequences) count too.
  const judged = failures.filter((f) => f.consequence === false);
  const levels: Level[] = named.length > 0 ? [...named.map(faultLevel), ...judged.map((f) => capped(f.level ?? caseLevel))] : failures.length > 0 ? failures.map((f) => capped(f.level ?? caseLevel)) : [caseLevel];
  return levels.reduce((a, b) => (RANK[b] > RANK[a] ? b : a));
}

/**
 * The rules a failing case shows broken. A driving problem that names its rule (the crystal was queried
 * after done: LOOP-3) is the case's failure: the run left its script there, and what the expectations
 * then read is its symptom, so they add no rule. Otherwise each failed expectation's own rule (the
 * case's rules for an expectation that names none, in an untagged case file); a problem tied to no rule
 * and no failed expectation (a turn reference found nothing) fails the case under the case's rules.
 */
export function failedRulesOf(c: Pick<LoadedCase, 'rules'>, failures: readonly ExpectationResult[], faults: readonly Departure[]): string[] {
  // A fault that names the rule it breaks (a query after done: LOOP-3; a request no entity's intent places: INTENT-2) is the case's failure; what follows from it are symptoms.
  const named = faults.flatMap((f) => f.rules ?? []);
  if (named.length > 0) {
    // ...but a failure that read nothing the departure left unreliable is still judged (harness/judge/consequences.ts).
    const judged = failures.filter((f) => (f.consequence === undefined ? consequenceOf([f.path], faults).length === 0 : !f.consequence));
    const own = new Set(judged.flatMap((f) => (f.rule === undefined ? c.rules : [f.rule])));
    return [...new Set([...named, ...c.rules.filter((r) => own.has(r))])];
  }
  const rules = new Set<string>();
  for (const f of failures) for (const r of f.rule === undefined ? c.rules : [f.rule]) rules.add(r);
  if (failures.length === 0 && faults.length > 0) c.rules.forEach((r) => rules.add(r));
  return c.rules.filter((r) => rules.has(r));
}

/**
 * A listed case that fails or errors is `xfail`; one that passes is stale. A case that ran out of its time
 * limit confirms nothing (incomplete is not fail): it stays errored, and the run's verdict says incomplete.
 */
function applyExpectedFailure(result: CaseResult, expected: ReadonlySet<string> | undefined): void {
  if (!expected?.has(result.id)) return;
  if (result.status === 'fail' || (result.status === 'errored' && result.timed_out !== true)) result.status = 'xfail';
  else if (result.status === 'pass') result.stale = true;
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

/**
 * Why a case errored when the adapter threw, in plain words before the error's own (docs/reports.md,
 * "Words in reports"): the errors of the stdio protocol's connection (schemas/protocol/connection.ts)
 * by what they mean, any other by its class.
 */
export function thrownReason(error: unknown): string {
  if (!(error instanceof Error)) return `the adapter threw: ${String(error)}`;
  const meaning: Record<string, string> = {
    ProtocolError: 'the implementation broke the adapter protocol (docs/adapter-protocol.md)',
    RemoteError: 'the implementation answered the request with an error of its own',
  };
  return `${meaning[error.name] ?? 'the adapter threw an error'} (${error.name}): ${error.message}`;
}

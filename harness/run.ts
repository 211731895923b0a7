/**
 * Runs planned cases, each against a fresh adapter instance, with a per-case time limit. An adapter
 * exception or a timeout makes that case `errored` and the run goes on; `dispose()` is always called.
 */
import type { Adapter, Description } from '../schemas/adapter.ts';
import type { CaseFile, Level, LoadedCase } from './case-types.ts';
import { checkExpectations, type ExpectationResult } from './check.ts';
import { driveCase } from './drive.ts';
import { checkInvariants, type InvariantResult } from './invariants.ts';
import { planCases } from './plan.ts';

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
  /** Failed expectations, with path, expected and actual. */
  failures: ExpectationResult[];
  /** How many expectations were checked. */
  expectations: number;
  invariants: InvariantResult[];
  /** Failures found while driving (a script ran out, a turn reference found nothing). */
  problems: string[];
  /** Rules this case shows broken: its own when an expectation failed, an invariant's when one did. */
  failed_rules: string[];
  /** Listed as an expected failure but passed. */
  stale?: boolean;
  position: { file: string; line: number; column: number };
}

export interface RunOptions {
  /** Filter terms (case id, rule id, rule family, feature). */
  filter?: string[];
  timeoutMs?: number;
  /** Case ids expected to fail. */
  expectedFailures?: ReadonlySet<string>;
  /** Called after each case, for progress lines. */
  onCase?: (result: CaseResult, done: number, total: number) => void;
}

export interface SuiteResult {
  description: Description;
  file: string;
  spec_version: string;
  format_version: 1;
  started_at: string;
  duration_ms: number;
  cases: CaseResult[];
}

class CaseTimeout extends Error {}

function bounded<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CaseTimeout(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}

/** The implementation's self-description, from a throwaway instance. */
export async function describeAdapter(factory: AdapterFactory): Promise<Description> {
  const adapter = await factory();
  try {
    return await bounded(adapter.describe(), DEFAULT_CASE_TIMEOUT_MS, 'describe()');
  } finally {
    await bounded(adapter.dispose(), DISPOSE_TIMEOUT_MS, 'dispose()').catch(() => undefined);
  }
}

export async function runSuite(file: CaseFile, factory: AdapterFactory, options: RunOptions = {}): Promise<SuiteResult> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const description = await describeAdapter(factory);
  const plan = planCases(file.cases, description, options.filter ?? []);
  const cases: CaseResult[] = [];
  for (const planned of plan) {
    const result = planned.skip
      ? base(planned.case, 'skipped', 0, planned.skip)
      : await runCase(planned.case, factory, description, options.timeoutMs ?? DEFAULT_CASE_TIMEOUT_MS);
    applyExpectedFailure(result, options.expectedFailures);
    cases.push(result);
    options.onCase?.(result, cases.length, plan.length);
  }
  return {
    description,
    file: file.file,
    spec_version: file.spec_version,
    format_version: 1,
    started_at: startedAt,
    duration_ms: round(performance.now() - started),
    cases,
  };
}

/** Runs one case on a fresh adapter; never throws. */
export async function runCase(c: LoadedCase, factory: AdapterFactory, description: Description, defaultTimeoutMs = DEFAULT_CASE_TIMEOUT_MS): Promise<CaseResult> {
  const started = performance.now();
  const elapsed = (): number => round(performance.now() - started);
  let adapter: Adapter | undefined;
  try {
    adapter = await factory();
    const drive = await bounded(driveCase(c, adapter, description), c.timeout_ms ?? defaultTimeoutMs, `case ${c.id}`);
    const broken = drive.faults.find((f) => f.kind === 'error');
    if (broken) return base(c, 'errored', elapsed(), broken.message);
    // The implementation offers no way to express a step the case scripts (an option its call_entity lacks).
    const inexpressible = drive.faults.find((f) => f.kind === 'skip');
    if (inexpressible) return base(c, 'skipped', elapsed(), inexpressible.message);
    const checked = checkExpectations(c.expect, drive);
    const failures = checked.filter((e) => !e.ok);
    const invariants = checkInvariants(c, drive);
    const problems = drive.faults.map((f) => f.message);
    const failedRules = new Set<string>(failures.length > 0 || problems.length > 0 ? c.rules : []);
    for (const inv of invariants) if (inv.status === 'fail') inv.rules.forEach((r) => failedRules.add(r));
    const status: CaseStatus = failedRules.size > 0 ? 'fail' : 'pass';
    return { ...base(c, status, elapsed()), failures, expectations: checked.length, invariants, problems, failed_rules: [...failedRules] };
  } catch (error) {
    const reason = error instanceof CaseTimeout ? error.message : `adapter threw: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`;
    return { ...base(c, 'errored', elapsed(), reason), ...(error instanceof CaseTimeout && { timed_out: true }) };
  } finally {
    if (adapter) await bounded(adapter.dispose(), DISPOSE_TIMEOUT_MS, 'dispose()').catch(() => undefined);
  }
}

function base(c: LoadedCase, status: CaseStatus, duration: number, reason?: string): CaseResult {
  return {
    id: c.id,
    rules: c.rules,
    level: c.level,
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

function applyExpectedFailure(result: CaseResult, expected: ReadonlySet<string> | undefined): void {
  if (!expected?.has(result.id)) return;
  if (result.status === 'fail' || result.status === 'errored') result.status = 'xfail';
  else if (result.status === 'pass') result.stale = true;
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

/**
 * Builds report.json from a suite result: cases, a roll-up per catalog rule, a summary per chapter,
 * a verdict per level, and the failures grouped by root cause. Validated against
 * `schemas/report.schema.json` before it is written. Everything is in the terms of the draft the run
 * judged (`suite.draft`, 0.1.0 when absent): its catalog gives the rules, their titles and levels, and
 * its words the chapter titles.
 */
import { arch, cpus, platform } from 'node:os';
import type { Catalog } from '../../spec/catalog.ts';
import { catalogOf } from '../../spec/drafts.ts';
import { assertValid } from '../../schemas/loader.ts';
import type { Description } from '../../schemas/adapter.ts';
import type { Level } from '../case-file/index.ts';
import type { CaseResult, CaseStatus, SuiteResult } from '../run/index.ts';
import type { PropertyResult, PropertyStatus } from '../properties/index.ts';
import { rootCauses, type RootCause } from './root-causes.ts';
import { buildProfile, profileMeets, profileText, skipKind, type Profile, type ProfileName } from './profile.ts';
import { ambientBrokenRules, ambientChecks, ambientFailuresAt, type AmbientCheck } from './ambient-checks.ts';
import { recordShapeFindings, type RecordShapeFinding } from './record-shapes.ts';
import { chapterTitles, reportDraft, UNDECLARED_DRAFT, type ReportDraft } from './draft.ts';
import { caseInDraftTerms, propertyInDraftTerms } from './judged-ids.ts';
import { ruleIdsInTextAt } from '../plan/index.ts';
import { scrubSecretsDeep } from '../values/index.ts';
import { boundCaseResult } from './bounded.ts';

export const REPORT_VERSION = 1;
/** The chapter titles of draft 0.1.0; a report uses those of the draft it judged (draft.ts `chapterTitles`). */
export const CHAPTERS: Record<number, string> = chapterTitles(UNDECLARED_DRAFT);

export type RuleStatus = CaseStatus | 'untested';
/** How many cases (or properties) ended in each status. */
export type Counts = Record<CaseStatus, number>;

/**
 * `fail`: a case or property of the level failed, or an expected failure is stale. `incomplete`: none
 * failed, but one errored or was interrupted, so the level was not judged in full (incomplete is not
 * fail). `pass`: every applicable case passed or is an expected failure and every property that ran
 * passed. `no-cases`: nothing of the level applied.
 */
export type LevelStatus = 'pass' | 'fail' | 'incomplete' | 'no-cases';

export interface LevelVerdict extends Counts {
  status: LevelStatus;
  applicable: number;
  /**
   * Set when the level judged nothing, or less than {@link MIN_JUDGED_SHARE} of what the implementation
   * offers (cases and properties not skipped for an undeclared feature or another transport): the level
   * is then incomplete, never a pass, so refusing setups or filtering to what is not offered cannot pass.
   */
  judged_too_little?: { judged: number; of: number };
  /** Property results of this level, when properties ran. */
  properties?: Record<PropertyStatus, number>;
  /** Ambient findings that break a rule of this level (each once, however many cases show it); any fails the level. */
  ambient_findings?: number;
}

export interface RuleReport {
  id: string;
  title: string;
  level: Level;
  chapter: number;
  testability: string;
  status: RuleStatus;
  /** Cases that list the rule. */
  cases: string[];
  /** Cases that show it broken (through an expectation or an ambient invariant). */
  failed_by: string[];
  /** Properties that check the rule, when properties ran. */
  properties?: string[];
  /** Properties that show it broken (through a check or an ambient invariant). */
  failed_by_properties?: string[];
  /** Ambient checks with a finding that breaks it (harness/report/ambient-checks.ts). */
  failed_by_ambient?: string[];
}

/** Where a run's time went, in ms: loading and checking before the first case, the cases (describe() included), the properties (0 when they did not run). */
export interface Phases {
  startup_ms: number;
  cases_ms: number;
  properties_ms: number;
}

/** When the run started and how long it took as a whole, with its phases (the CLI measures these). */
export interface RunTiming {
  started_at: string;
  duration_ms: number;
  phases: Phases;
}

export interface Report {
  report_version: number;
  implementation: Description;
  spec_version: string;
  /** The draft judged; absent only in reports written before drafts were told apart (they judged 0.1.0). */
  draft?: ReportDraft;
  /** Cases the filter selected that do not apply to the draft judged: not run, neither failed nor skipped. */
  outside_draft?: string[];
  format_version: 1;
  environment: { node: string; platform: string; arch: string; cpus: number; case_file: string; started_at: string; duration_ms: number; phases?: Phases; filter: string[] };
  summary: Counts & { total: number; stale: number };
  verdict: Record<Level, LevelVerdict>;
  chapters: ({ chapter: number; title: string; total: number } & Counts)[];
  /** Failing and errored cases grouped by cause, most cases first (harness/report/root-causes.ts). */
  root_causes: RootCause[];
  /** The ambient invariants, each judged once over every case that ran, with its findings. */
  ambient_checks: AmbientCheck[];
  /**
   * How the looms' records differ from the shapes the spec shows, one finding per kind for the run
   * (harness/report/record-shapes.ts). Informational: counted in no verdict. Absent in reports written
   * before it existed.
   */
  record_shapes?: RecordShapeFinding[];
  cases: (Omit<CaseResult, 'position' | 'record_shapes'> & { chapter: number; source: string })[];
  rules: RuleReport[];
  stale: string[];
  /** Property results (harness/properties), when properties ran. */
  properties?: PropertyResult[];
  /** What the verdict covers: the declared features, what was skipped per level, the rules nothing exercised (harness/report/profile.ts). */
  profile: Profile;
  /** The signal that interrupted the run (SIGINT, SIGTERM): the report is partial, unfinished cases are errored. */
  interrupted?: string;
}

const zero = (): Counts => ({ pass: 0, fail: 0, skipped: 0, errored: 0, xfail: 0 });

/**
 * The report of a run. `catalog` replaces the judged draft's catalog (tests); by default it is
 * `catalogOf(suite.draft ?? '0.1.0')`.
 */
export function buildReport(judged: SuiteResult, options: { filter?: string[]; catalog?: Catalog<string>; properties?: PropertyResult[]; interrupted?: string; timing?: RunTiming } = {}): Report {
  const draft = reportDraft(judged.draft ?? UNDECLARED_DRAFT);
  // Every rule id in the judged draft's terms, including those of checks that name the kit's own 0.1.0 ids (judged-ids.ts).
  // Each case bounded first (bounded.ts): what an implementation sent cannot make the report unbounded.
  const suite: SuiteResult = { ...judged, cases: judged.cases.map((c) => caseInDraftTerms(boundCaseResult(c), draft.version)) };
  const properties = options.properties?.map((p) => propertyInDraftTerms(p, draft.version));
  const timing = options.timing ?? timingOf(suite, properties);
  const catalog = options.catalog ?? catalogOf(draft.version);
  const titles = chapterTitles(draft.version);
  const chapterOf = new Map(catalog.rules.map((r) => [r.id as string, r.chapter]));
  const caseChapter = (c: CaseResult): number => chapterOf.get(c.rules[0] ?? '') ?? 0;
  const summary = { ...zero(), total: suite.cases.length, stale: 0 };
  for (const c of suite.cases) {
    summary[c.status]++;
    if (c.stale) summary.stale++;
  }
  const verdict = {} as Record<Level, LevelVerdict>;
  for (const level of ['MUST', 'SHOULD', 'MAY'] as const) {
    const counts = zero();
    const mine = suite.cases.filter((c) => c.level === level);
    for (const c of mine) counts[c.status]++;
    const applicable = mine.length - counts.skipped;
    const p: Record<PropertyStatus, number> = { pass: 0, fail: 0, errored: 0, skipped: 0, xfail: 0 };
    const mineProps = (properties ?? []).filter((x) => x.level === level);
    for (const r of mineProps) p[r.status]++;
    // A failing (or stale) case or property fails its level; an xfail does not.
    const failed = counts.fail + mine.filter((c) => c.stale).length + p.fail + mineProps.filter((x) => x.stale).length;
    // An errored case or property (the adapter threw, a time limit, an interruption) checked nothing: the level is incomplete, not failed.
    const unfinished = counts.errored + p.errored;
    const tooLittle = judgedTooLittle([...mine, ...mineProps], counts.pass + counts.fail + counts.xfail + p.pass + p.fail + p.xfail);
    const status: LevelStatus = failed > 0 ? 'fail' : unfinished > 0 || tooLittle ? 'incomplete' : applicable + p.pass > 0 ? 'pass' : 'no-cases';
    verdict[level] = { status, applicable, ...counts, ...(properties && { properties: p }), ...(tooLittle && { judged_too_little: tooLittle }) };
  }
  const ambient = ambientChecks(suite.cases, draft.version);
  const levelOf = new Map(catalog.rules.map((r) => [r.id as string, r.level as Level]));
  for (const level of ['MUST', 'SHOULD', 'MAY'] as const) {
    const found = ambientFailuresAt(ambient, level, (rule) => levelOf.get(rule));
    if (found === 0) continue;
    // An ambient violation fails the level of the rule it breaks once, not once per case that shows it.
    verdict[level].ambient_findings = found;
    verdict[level].status = 'fail';
  }
  const brokenByAmbient = ambientBrokenRules(ambient);
  const rules = catalog.rules.map((r) => withAmbient(properties ? withProperties(rollUp(r, suite.cases), properties) : rollUp(r, suite.cases), brokenByAmbient));
  const chapters = Object.entries(titles).map(([n, title]) => {
    const counts = zero();
    const mine = suite.cases.filter((c) => caseChapter(c) === Number(n));
    for (const c of mine) counts[c.status]++;
    return { chapter: Number(n), title, total: mine.length, ...counts };
  });
  // The one point every output passes: no credential the kit made up and no secret of the environment
  // leaves in what the implementation said (stderr tails, errors, values) (harness/values/secrets.ts).
  return scrubSecretsDeep({
    report_version: REPORT_VERSION,
    implementation: suite.description,
    spec_version: suite.spec_version,
    draft,
    ...(outsideDraft(suite) && { outside_draft: outsideDraft(suite) }),
    format_version: suite.format_version,
    environment: { node: process.version, platform: platform(), arch: arch(), cpus: cpus().length, case_file: suite.file, started_at: timing.started_at, duration_ms: round(timing.duration_ms), phases: { startup_ms: round(timing.phases.startup_ms), cases_ms: round(timing.phases.cases_ms), properties_ms: round(timing.phases.properties_ms) }, filter: (options.filter ?? suite.filter ?? []).map((term) => ruleIdsInTextAt(term, draft.version)) },
    summary,
    verdict,
    chapters,
    root_causes: rootCauses(suite.cases, draft.version),
    ambient_checks: ambient,
    // Never read by the verdict above: a record shape the spec shows but no rule requires fails nothing.
    record_shapes: recordShapeFindings(suite.cases),
    // Each case's record shapes are gathered in record_shapes, not repeated per case.
    cases: suite.cases.map(({ position, failures, record_shapes: _shapes, ...c }) => ({
      ...c,
      // Only failed expectations are kept, without the bulky value of a passing check; each keeps whether it is a departure's
      // consequence, so a rule it names is shown as not blamed and root causes rebuilt from report.json group it the same way.
      failures: failures.map(({ path, matcher, ok, expected, actual, why, rule, consequence }) => ({ path, matcher, ok, expected, ...(actual !== undefined && { actual }), ...(why !== undefined && { why }), ...(rule !== undefined && { rule }), ...(consequence !== undefined && { consequence }) })),
      chapter: caseChapter(c as CaseResult),
      source: `${position.file}:${position.line}:${position.column}`,
    })),
    rules,
    stale: [...suite.cases.filter((c) => c.stale).map((c) => c.id), ...(properties ?? []).filter((p) => p.stale).map((p) => p.id)],
    ...(properties && { properties }),
    profile: buildProfile(suite.description, suite.cases, properties ?? [], rules),
    ...(options.interrupted && { interrupted: options.interrupted }),
  } satisfies Report);
}

/** The ids of the cases planning left out as outside the judged draft, when the run says (harness/run `outside_draft`). */
function outsideDraft(suite: SuiteResult): string[] | undefined {
  const ids = (suite as { outside_draft?: unknown }).outside_draft;
  return Array.isArray(ids) && ids.length > 0 ? ids.filter((id): id is string => typeof id === 'string') : undefined;
}

const round = (ms: number): number => Math.round(ms * 100) / 100;

/** Without the caller's clock: the suite's own time plus the properties', with no start-up measured. */
function timingOf(suite: SuiteResult, properties: PropertyResult[] | undefined): RunTiming {
  const propertiesMs = (properties ?? []).reduce((sum, p) => sum + p.duration_ms, 0);
  return { started_at: suite.started_at, duration_ms: suite.duration_ms + propertiesMs, phases: { startup_ms: 0, cases_ms: suite.duration_ms, properties_ms: propertiesMs } };
}

const RANK: RuleStatus[] = ['fail', 'errored', 'xfail', 'pass', 'skipped', 'untested'];

/** Folds property results into a rule's roll-up, with the same precedence as cases. */
function withProperties(rule: RuleReport, properties: PropertyResult[]): RuleReport {
  const listing = properties.filter((p) => p.rules.includes(rule.id));
  const failedBy = properties.filter((p) => p.failed_rules.includes(rule.id));
  let status: RuleStatus = 'untested';
  if (failedBy.some((p) => p.status === 'fail')) status = 'fail';
  else if (listing.some((p) => p.status === 'errored')) status = 'errored';
  else if (listing.some((p) => p.status === 'xfail')) status = 'xfail';
  else if (listing.some((p) => p.status === 'pass')) status = 'pass';
  else if (listing.length > 0) status = 'skipped';
  const worst = RANK.indexOf(status) < RANK.indexOf(rule.status) ? status : rule.status;
  return { ...rule, status: worst, properties: listing.map((p) => p.id), failed_by_properties: failedBy.map((p) => p.id) };
}

/** A rule an ambient finding breaks fails, whatever its cases say. */
function withAmbient(rule: RuleReport, broken: Map<string, string[]>): RuleReport {
  const checks = broken.get(rule.id);
  return checks ? { ...rule, status: 'fail', failed_by_ambient: checks } : rule;
}

function rollUp(rule: Catalog<string>['rules'][number], cases: CaseResult[]): RuleReport {
  const listing = cases.filter((c) => c.rules.includes(rule.id));
  const touching = cases.filter((c) => c.invariants.some((i) => i.rules.includes(rule.id) && i.status !== 'skipped'));
  const failedBy = cases.filter((c) => c.failed_rules.includes(rule.id));
  let status: RuleStatus;
  if (failedBy.some((c) => c.status === 'fail')) status = 'fail';
  else if (listing.some((c) => c.status === 'errored')) status = 'errored';
  else if (failedBy.some((c) => c.status === 'xfail') || listing.some((c) => c.status === 'xfail')) status = 'xfail';
  // A case that failed on another of its rules still checked this one and saw it hold, unless its run
  // left its script (a driving problem): what it read after that was not judged, so it is no evidence.
  // A rule whose every expectation read nothing the departure touched (judged_rules) was still judged, and held.
  else if (listing.some((c) => c.status === 'pass' || (c.status === 'fail' && !c.failed_rules.includes(rule.id) && (c.problems.length === 0 || c.judged_rules?.includes(rule.id) === true))) || touching.some((c) => c.status === 'pass')) status = 'pass';
  else if (listing.length > 0) status = 'skipped';
  else status = 'untested';
  return {
    id: rule.id,
    title: rule.title,
    level: rule.level,
    chapter: rule.chapter,
    testability: rule.testability,
    status,
    cases: listing.map((c) => c.id),
    failed_by: failedBy.map((c) => c.id),
  };
}

/** Exit code of a run whose MUST level is incomplete: nothing failed, but something errored or was interrupted (docs/ci.md). */
export const INCOMPLETE_EXIT = 3;

/** Exit code of a run none of whose MUST cases failed but whose profile is narrower than the one required (`--require`, docs/ci.md). */
export const PROFILE_BELOW_EXIT = 4;

/** What a caller requires of a run beyond its cases passing. */
export interface VerdictOptions {
  /** The narrowest profile the run must have (`--require`); absent: any profile will do. */
  require?: ProfileName;
}

/**
 * Why the run's profile falls short of `required`, in words (`the profile is partial (…), narrower than
 * the full profile required`), or undefined when it does not (or nothing is required).
 */
export function profileShortfall(report: Report, required: ProfileName | undefined): string | undefined {
  if (required === undefined || profileMeets(report.profile.name, required)) return undefined;
  return `the profile judged is ${profileText(report.profile)}, narrower than the ${required} profile required`;
}

/** Exit code of a run that judged nothing: bad usage, such as a filter that selected no case and no property in the draft judged (docs/ci.md). */
export const NOTHING_JUDGED_EXIT = 2;

/** Whether a filtered run selected nothing to judge: no case ran or was skipped, and no property. */
export function selectedNothing(report: Report): boolean {
  return report.environment.filter.length > 0 && report.cases.length === 0 && (report.properties ?? []).length === 0;
}

/**
 * Exit code of a run, the one verdict of the CLI and the library alike: {@link NOTHING_JUDGED_EXIT}
 * when a filter selected nothing (a green run that checked nothing must not happen); 1 when a MUST
 * case or property failed or an expected failure is stale; else {@link INCOMPLETE_EXIT} when a MUST
 * case or property errored or was interrupted; else 0.
 */
export function exitCode(report: Report, options: VerdictOptions = {}): 0 | 1 | typeof NOTHING_JUDGED_EXIT | typeof INCOMPLETE_EXIT | typeof PROFILE_BELOW_EXIT {
  if (selectedNothing(report)) return NOTHING_JUDGED_EXIT;
  if (report.verdict.MUST.status === 'fail' || report.stale.length > 0) return 1;
  if (profileShortfall(report, options.require) !== undefined) return PROFILE_BELOW_EXIT;
  return report.verdict.MUST.status === 'incomplete' ? INCOMPLETE_EXIT : 0;
}

/** A level that judged less than this share of what the implementation offers is incomplete (issue 32). */
export const MIN_JUDGED_SHARE = 0.25;

/**
 * How little a level judged, when too little: nothing while it had cases or properties, or less than
 * {@link MIN_JUDGED_SHARE} of those not skipped for a capability the implementation does not declare
 * (skips for a refused setup or an errored run count as not judged). Undefined when enough was judged.
 */
function judgedTooLittle(items: readonly { status: string; reason?: string }[], judged: number): { judged: number; of: number } | undefined {
  if (items.length === 0) return undefined;
  const offered = items.filter((x) => x.status !== 'skipped' || !['undeclared', 'transport'].includes(skipKind(x.reason).kind)).length;
  if (judged === 0) return { judged, of: Math.max(offered, items.length) };
  return judged < MIN_JUDGED_SHARE * offered ? { judged, of: offered } : undefined;
}

/** Throws when the report does not match its schema (a harness bug, never a verdict). */
export function assertReportValid(report: Report): void {
  assertValid('report', JSON.parse(JSON.stringify(report)), 'report.json');
}

/**
 * The conformance suite inside an implementer's own vitest run (docs/vitest.md):
 *
 *     import { conformance } from 'cantrip-conformance/vitest';
 *     conformance({ adapter: () => createAdapter() });
 *
 * declares one `describe` per rule (a case or property goes under its first rule) and, in it, one test
 * per case and per property. Vitest declares tests synchronously, so the case file is read at
 * declaration; the implementation is first asked for its self-description inside the first test that
 * runs, and each test then plans and runs its own case (harness/plan/plan.ts, harness/run/run.ts), so `-t` and
 * `.only` work as usual. A case the implementation cannot run (an undeclared feature or ward) is skipped
 * with the reason as the skip note; a failing case fails its test with expected vs actual, a failing
 * property with its seed and the shrunk reproducer as a tests.yaml case.
 *
 * Incomplete is not fail: a case or property that errored only because a time limit ran out (the
 * case's, a generated scenario's, a property's own) or because the run was interrupted (vitest aborted
 * the test's signal: Ctrl-C, a bail, vitest's own timeout) judged nothing, so its test is skipped with a
 * note that starts with {@link INCOMPLETE_NOTE} and goes on with the limit hit and, when the adapter
 * says, what it was still waiting for. That prefix is a stable contract; the rest of the note is for
 * people. Every other error (the adapter threw, the implementation broke the protocol) still fails the
 * test, and an expected failure that ends incomplete is neither confirmed nor stale.
 */
import { describe as vitestDescribe, it as vitestIt } from 'vitest';
import { join } from 'node:path';
import type { CrystalTransport, Description } from '../../schemas/adapter.ts';
import { catalogOf, draftVersions } from '../../spec/drafts.ts';
import { caseDrafts, type LoadedCase } from '../case-file/index.ts';
import { PACKAGE_ROOT } from '../case-file/index.ts';
import type { ExpectationResult } from '../judge/index.ts';
import type { InvariantResult } from '../judge/index.ts';
import { loadCaseFile } from '../case-file/index.ts';
import { assertSelectsSomething, caseForDraft, chooseDraft, filterVocabulary, planCases, resolveFilterTerms, selectCases } from '../plan/index.ts';
import { ALL_PROPERTIES, type PropertyDefinition } from '../properties/index.ts';
import { DEFAULT_SEED, propertyAppliesAt, propertyTermsAt, runProperties, selectProperties, type PropertyResult } from '../properties/index.ts';
import { reasonLine } from '../report/index.ts';
import { scrubSecrets, scrubSecretsDeep } from '../values/index.ts';
import { DEFAULT_CASE_TIMEOUT_MS, describeAdapter, runCase, type AdapterFactory, type CaseResult } from '../run/index.ts';

export interface ConformanceOptions {
  /** Makes a fresh adapter (the contract in schemas/adapter.ts): one per case, one per generated scenario, one for describe(). */
  adapter: AdapterFactory;
  /** The case file (default: the kit's tests.yaml). */
  cases?: string;
  /** As `run --filter`: case ids, rule ids, rule families (`LOOP`), features, property ids (default: everything). */
  filter?: readonly string[];
  /** Declare the generated properties too (default true); an object sets their runs per property and seed (default the fixed `DEFAULT_SEED`, as the CLI, so a CI job is reproducible; shown in a failure). */
  properties?: boolean | { runs?: number; seed?: number };
  /**
   * Time limit of one case in ms (default 10 000; a case's own `timeout_ms` wins), and of one generated
   * scenario (default 5 000). A case or property that hits it is skipped as incomplete (`incomplete:`), never failed.
   */
  timeout?: number;
  /** Case ids expected to fail: such a case passes its test while it fails, and fails it once it passes (stale). */
  expectedFailures?: Iterable<string>;
  /** How the scripted crystals reach the implementation (default `callback`); it must be declared in describe(). */
  crystalTransport?: CrystalTransport;
  /**
   * The draft of the spec to judge, as `run --spec`: one the implementation declares in describe().drafts
   * (default: the newest it declares). Given, cases and properties outside it are not declared at all
   * and tests are grouped by its rule IDs; absent, such a case's test is skipped as outside the draft.
   */
  spec?: string;
}

/** The part of vitest's test context a conformance test uses. */
export interface ConformanceTestContext {
  skip(note?: string): never;
  signal?: AbortSignal;
}

/** The part of vitest's API the helper declares with; replaceable so the kit can test the declarations themselves. */
export interface DeclareApi {
  describe(name: string, body: () => void): void;
  it(name: string, body: (context: ConformanceTestContext) => Promise<void>, timeout?: number): void;
}

/**
 * Bounds on each vitest test, on top of the case's own time limit: the first test also waits for
 * describe() (bounded at 10 s by the harness), and every adapter gets 2 s to dispose. These only keep a
 * stuck test from hanging vitest; the verdict comes from the harness's own limits.
 */
const TEST_MARGIN_MS = 20_000;
/** A property's generation and shrinking stop after 60 s (harness/properties); a re-run and the composition probe come after. */
const PROPERTY_TEST_TIMEOUT_MS = 180_000;
/** How the skip note of a test that ended incomplete (a time limit, an interruption) starts: a documented contract (docs/vitest.md). */
export const INCOMPLETE_NOTE = 'incomplete:';
/** What the harness says when a path finds nothing (harness/judge/matchers.ts). */
const NOTHING = 'nothing at this path';
/** Expected or actual values longer than this are clipped in a failure message. */
const VALUE_MAX = 400;

/** A failed case or property: the message carries what differed; `expected` / `actual` let vitest show a diff. */
export class ConformanceFailure extends Error {
  override name = 'ConformanceFailure';
  readonly expected?: unknown;
  readonly actual?: unknown;
  constructor(
    message: string,
    expected?: unknown,
    actual?: unknown,
  ) {
    // What an implementation said reaches the test output through here: no kit-made credential or environment secret may.
    super(scrubSecrets(message));
    this.expected = scrubSecretsDeep(expected);
    this.actual = scrubSecretsDeep(actual);
  }
}

type AnyProperty = PropertyDefinition<never>;

/** Declares the suite for `options.adapter` in the current vitest file (or `describe` block). */
export function conformance(options: ConformanceOptions, api: DeclareApi = { describe: vitestDescribe, it: vitestIt }): void {
  const file = loadCaseFile(options.cases ?? join(PACKAGE_ROOT, 'tests.yaml'));
  // Read as the CLI reads --filter: any case of letters, commas split, an unknown term refused (FilterError).
  const filter = resolveFilterTerms(options.filter ?? [], filterVocabulary(file.cases));
  const transport = options.crystalTransport ?? 'callback';
  const expected = new Set(options.expectedFailures ?? []);
  const known = new Set(file.cases.map((c) => c.id));
  const unknown = [...expected].filter((id) => !known.has(id));
  if (unknown.length > 0) throw new Error(`conformance(): expectedFailures names unknown case ids: ${unknown.join(', ')}`);
  const spec = options.spec;
  if (spec !== undefined && !draftVersions().includes(spec)) throw new Error(`conformance(): spec '${spec}' is not a draft the kit knows (${draftVersions().join(', ')})`);
  // The CLI's selection: with a draft named, each case in that draft's terms and a case outside it not
  // at all; without one, what the filter selects in some draft (the judged one is known only once the
  // implementation describes itself, in the first test).
  const cases = selectCases(file.cases, filter, spec);
  const runProps = options.properties !== false;
  const propertyOptions = typeof options.properties === 'object' ? options.properties : {};
  const properties = runProps ? selectProperties(ALL_PROPERTIES, filter, spec) : [];
  // As the CLI: a filter that selects nothing would be a green run that checked nothing.
  assertSelectsSomething(filter, { cases: cases.length, properties: properties.length }, file.file);
  const seed = propertyOptions.seed ?? DEFAULT_SEED;

  // Asked once, by the first test that runs, so declaring the suite starts nothing.
  let description: Promise<Description> | undefined;
  const described = (): Promise<Description> => {
    description ??= describeAdapter(options.adapter).catch((error: unknown) => {
      throw new Error(`the implementation's describe() failed: ${error instanceof Error ? error.message : String(error)}`);
    });
    return description;
  };

  const groups = new Map<string, { cases: LoadedCase[]; properties: AnyProperty[] }>();
  const group = (rule: string) => {
    if (!groups.has(rule)) groups.set(rule, { cases: [], properties: [] });
    return groups.get(rule)!;
  };
  for (const c of cases) group(c.rules[0] ?? '(no rule)').cases.push(c);
  for (const p of properties) group((spec === undefined ? p.rules[0] : propertyTermsAt(p, spec).rules[0]) ?? '(no rule)').properties.push(p);
  // Groups follow the named draft's catalog; without one, 0.1.0's, then any later draft's for cases written in its IDs.
  const catalogs = spec === undefined ? draftVersions().map((d) => catalogOf(d)) : [catalogOf(spec)];
  const order = new Map<string, number>();
  const title = new Map<string, string>();
  for (const catalog of catalogs) {
    for (const r of catalog.rules) {
      if (!order.has(r.id)) order.set(r.id, order.size);
      if (!title.has(r.id)) title.set(r.id, r.title);
    }
  }
  const rules = [...groups.keys()].sort((a, b) => (order.get(a) ?? Infinity) - (order.get(b) ?? Infinity));

  for (const rule of rules) {
    const { cases: ruleCases, properties: ruleProperties } = groups.get(rule)!;
    api.describe(title.has(rule) ? `${rule}: ${title.get(rule)}` : rule, () => {
      for (const c of ruleCases) {
        const limit = c.timeout_ms ?? options.timeout ?? DEFAULT_CASE_TIMEOUT_MS;
        api.it(`${c.id} [${c.rules.join(', ')}]${spec === undefined ? laterIds(c.rules, caseDrafts(c).map((d) => ({ draft: d, rules: caseForDraft(c, d)?.rules ?? [] }))) : ''}`, async (context) => {
          const desc = await described();
          const draft = chooseDraft(desc, spec);
          const [planned] = planCases([c], desc, [], transport, draft);
          if (!planned) throw new Error(`case ${c.id} was not planned (harness bug)`);
          if (planned.outside) context.skip(`outside the draft judged: ${planned.outside}`);
          if (planned.skip) context.skip(planned.skip);
          const result = await runCase(planned.case, options.adapter, desc, options.timeout ?? DEFAULT_CASE_TIMEOUT_MS, context.signal, planned.transport ?? transport);
          judgeCase(result, expected.has(c.id), context, context.signal?.aborted === true);
        }, limit + TEST_MARGIN_MS);
      }
      for (const p of ruleProperties) {
        const propertyIds = spec === undefined ? laterIds(p.rules, draftVersions().filter((d) => propertyAppliesAt(p.rules, d)).map((d) => ({ draft: d, rules: propertyTermsAt(p, d).rules }))) : '';
        api.it(`property ${p.id} [${(spec === undefined ? p.rules : propertyTermsAt(p, spec).rules).join(', ')}]${propertyIds}`, async (context) => {
          const desc = await described();
          const draft = chooseDraft(desc, spec);
          if (!propertyAppliesAt(p.rules, draft)) context.skip(`outside the draft judged: a rule of ${p.rules.join(', ')} is removed or reversed in draft ${draft}`);
          const results = await runProperties(options.adapter, desc, {
            seed,
            draft,
            filter: [p.id],
            ...(propertyOptions.runs !== undefined && { runs: propertyOptions.runs }),
            ...(options.timeout !== undefined && { caseTimeoutMs: options.timeout }),
            // An aborted test (Ctrl-C, vitest's own timeout) stops drawing scenarios; the property then reports itself interrupted.
            ...(context.signal && { signal: context.signal }),
          });
          const result = results.find((r) => r.id === p.id);
          if (!result) throw new Error(`property ${p.id} did not run (harness bug: the filter selected ${results.map((r) => r.id).join(', ') || 'nothing'})`);
          judgeProperty(result, context);
        }, PROPERTY_TEST_TIMEOUT_MS);
      }
    });
  }
}

/**
 * Without `spec` a test is named before the judged draft is known, in the ids its case is written in;
 * this adds the ids other drafts give the same rules, so `vitest -t LLM-5` finds a case written as
 * CRYSTAL-5: ` (0.2.0, 0.3.1: LLM-5)`, empty when no draft renames them.
 */
export function laterIds(own: readonly string[], drafts: readonly { draft: string; rules: readonly string[] }[]): string {
  const byIds = new Map<string, string[]>();
  for (const { draft, rules } of drafts) {
    const renamed = rules.filter((r) => !own.includes(r));
    if (renamed.length === 0) continue;
    const key = renamed.join(', ');
    byIds.set(key, [...(byIds.get(key) ?? []), draft]);
  }
  return [...byIds].map(([ids, at]) => ` (${at.join(', ')}: ${ids})`).join('');
}

/**
 * Passes, skips or throws for one case result. `interrupted`: the test's signal was aborted while the
 * case ran, so an errored case was cut short rather than broken.
 */
function judgeCase(result: CaseResult, expectedToFail: boolean, context: ConformanceTestContext, interrupted: boolean): void {
  if (result.status === 'skipped') context.skip(result.reason);
  const incomplete = incompleteCase(result, interrupted);
  if (incomplete !== undefined) context.skip(incomplete);
  const broken = result.status === 'fail' || result.status === 'errored';
  if (expectedToFail) {
    if (!broken) throw new ConformanceFailure(`case ${result.id} is listed as an expected failure but passes (stale): remove it from the list`);
    return;
  }
  if (!broken) return;
  throw caseFailure(result);
}

/** The error for a failing or errored case: where it is, which rules broke, and each difference. */
export function caseFailure(result: CaseResult): ConformanceFailure {
  const where = `${result.position.file}:${result.position.line}:${result.position.column}`;
  const lines = [`case ${result.id} [${result.rules.join(', ')}] ${result.status === 'errored' ? 'errored' : 'failed'} (${where})`];
  if (result.reason) lines.push(`  ${result.reason}`);
  if (result.failed_rules.length > 0) lines.push(`  broken: ${result.failed_rules.join(', ')}`);
  lines.push(...differenceLines(result.failures, result.invariants.filter((i) => i.status === 'fail')));
  for (const p of result.problems) lines.push(`  problem: ${p}`);
  const diff = diffValues(result.failures);
  return new ConformanceFailure(lines.join('\n'), diff?.expected, diff?.actual);
}

/** Passes, skips or throws for one property result. */
function judgeProperty(result: PropertyResult, context: ConformanceTestContext): void {
  if (result.status === 'skipped') context.skip(result.reason);
  const incomplete = incompleteProperty(result);
  if (incomplete !== undefined) context.skip(incomplete);
  if (result.status === 'pass') return;
  throw propertyFailure(result);
}

/** The error for a failing or errored property: the seed, each difference, and the reproducer as a tests.yaml case. */
export function propertyFailure(result: PropertyResult): ConformanceFailure {
  const lines = [`property ${result.id} [${result.rules.join(', ')}] ${result.status === 'errored' ? 'errored' : 'failed'} after ${result.runs} runs (seed ${result.seed}; repeat with properties: { seed: ${result.seed} } or run --seed ${result.seed})`, `  ${result.title}`];
  if (result.reason) lines.push(`  ${result.reason}`);
  if (result.failed_rules.length > 0) lines.push(`  broken: ${result.failed_rules.join(', ')}`);
  const ce = result.counterexample;
  if (ce) {
    lines.push(...differenceLines(ce.failures, ce.invariants));
    if (ce.reason) lines.push(`  errored: ${ce.reason}`);
    lines.push(`  reproducer (shrunk to ${ce.steps} crystal step${ce.steps === 1 ? '' : 's'}), ready to paste under cases: in a tests.yaml:`, ...ce.case_yaml.trimEnd().split('\n').map((l) => `    ${l}`));
  }
  const diff = ce ? diffValues(ce.failures) : undefined;
  return new ConformanceFailure(lines.join('\n'), diff?.expected, diff?.actual);
}

/**
 * The skip note of a case that errored only by its time limit, a timing premise missed in every run, a
 * bound of the kit, the implementation's own evaluation deadline under load, or an interruption, else
 * undefined. Read from the structured result (`timed_out`, `premise_missed`, `limits_reached`,
 * `own_eval_deadline`) and the
 * test's own signal, never from the reason's words.
 */
export function incompleteCase(result: CaseResult, interrupted: boolean): string | undefined {
  // A bound of the kit that stopped the case from being judged (a loom longer than it keeps, a request larger than it reads).
  const kitLimit = result.limits_reached?.some((l) => !l.judged) === true;
  const ownDeadline = result.own_eval_deadline !== undefined;
  if (result.status !== 'errored' || (result.timed_out !== true && result.premise_missed !== true && !kitLimit && !ownDeadline && !interrupted)) return undefined;
  const what = result.timed_out === true ? 'hit its time limit' : result.premise_missed === true ? 'missed its timing premise in every run' : kitLimit ? "reached one of the kit's bounds" : ownDeadline ? "may have had a program cut by the implementation's own evaluation deadline on a loaded machine" : 'was interrupted';
  return `${INCOMPLETE_NOTE} case ${result.id} ${what}: ${result.reason ?? 'no reason given'}`;
}

/** The skip note of a property that errored only by a time limit or an interruption (its `timed_out` / `interrupted`), else undefined. */
export function incompleteProperty(result: PropertyResult): string | undefined {
  if (result.status !== 'errored' || (result.timed_out !== true && result.interrupted !== true)) return undefined;
  return `${INCOMPLETE_NOTE} property ${result.id} ${result.timed_out === true ? 'hit a time limit' : 'was interrupted'} after ${result.runs} runs: ${result.reason ?? 'no reason given'}`;
}

function differenceLines(failures: readonly ExpectationResult[], invariants: readonly InvariantResult[]): string[] {
  const lines: string[] = [];
  for (const f of failures) {
    const why = reasonLine(f.why);
    lines.push(`  ${f.path} (${f.matcher}):`, `    expected: ${shown(f.expected)}`);
    lines.push(`    actual:   ${f.actual === undefined ? NOTHING : shown(f.actual)}`);
    if (why && why !== NOTHING) lines.push(`    why:      ${why}`);
  }
  for (const i of invariants) lines.push(`  invariant ${i.id} [${i.rules.join(', ')}]: ${i.detail ?? ''}`);
  return lines;
}

/**
 * Expected and actual values keyed by path, for vitest's diff, from the failed `equals` expectations
 * (the one matcher whose expected value is a value, not a condition); undefined when there is none.
 */
function diffValues(failures: readonly ExpectationResult[]): { expected: Record<string, unknown>; actual: Record<string, unknown> } | undefined {
  const equals = failures.filter((f) => f.matcher === 'equals' && typeof f.expected === 'object' && f.expected !== null && 'equals' in f.expected);
  if (equals.length === 0) return undefined;
  const expected: Record<string, unknown> = {};
  const actual: Record<string, unknown> = {};
  equals.forEach((f, i) => {
    const key = f.path in expected ? `${f.path} #${i + 1}` : f.path;
    expected[key] = (f.expected as { equals: unknown }).equals;
    actual[key] = f.actual;
  });
  return { expected, actual };
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > VALUE_MAX ? `${text.slice(0, VALUE_MAX)}…` : text;
}

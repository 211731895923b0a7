/**
 * junit.xml: the report as JUnit XML, the format CI systems (Jenkins, GitLab, the GitHub test-report
 * actions) read. One `<testsuite>` per spec chapter, one `<testcase>` per conformance case and per
 * property and per ambient check (those go to the chapter of their first rule), and one passing `<testcase>`
 * per record-shape finding, its text in `<system-out>` (it is informational, never a failure or a skip;
 * harness/report/record-shapes.ts). The output follows the JUnit schema of
 * the Jenkins xUnit plugin (junit-10.xsd; a copy is in fixtures/junit/, and the tests validate against
 * it), using only what the other common readers also understand.
 *
 * How statuses map: `fail` → `<failure>` with expected vs actual; `errored` → `<error>`; `skipped` →
 * `<skipped message="why">`; an expected failure (`xfail`) → `<skipped type="xfail">` (it does not fail
 * the run, as pytest reports one); a stale expected failure → `<failure type="stale">` (it does).
 */
import type { Report } from './report.ts';
import { ambientJUnitTests } from './ambient-render.ts';
import { recordShapeJUnitTests } from './record-shapes-render.ts';
import { draftOfReport, judgedDraftName } from './draft.ts';
import {
  caseNote,
  causeKeys,
  clipText,
  expectationLine,
  caseCauseTexts,
  firstLine,
  implementationName,
  interruptedBy,
  LEVELS,
  oneLine,
  xmlAttr,
  xmlText,
  type ReportCase,
  type ReportProperty,
} from './format.ts';

export interface JUnitOptions {
  /** Longest shown value (expected, actual) in a failure's text; longer ones are cut. Default 2000. */
  maxValue?: number;
}

/** The file name the CLI writes next to report.json. */
export const JUNIT_FILE = 'junit.xml';

const MESSAGE_MAX = 400;

interface Outcome {
  /** The element inside `<testcase>`, or nothing for a pass. */
  element?: 'failure' | 'error' | 'skipped';
  type?: string;
  message?: string;
  body?: string;
  /** What a passing test has to say, as `<system-out>`. */
  output?: string;
}

interface TestCase {
  name: string;
  classname: string;
  seconds: number;
  outcome: Outcome;
}

const seconds = (ms: number): string => (Math.max(0, ms) / 1000).toFixed(3);
const slug = (title: string): string => title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

/** Renders the whole report as a JUnit XML document. */
export function renderJUnit(report: Report, options: JUnitOptions = {}): string {
  const max = options.maxValue ?? 2000;
  const titles = new Map(report.chapters.map((c) => [c.chapter, c.title]));
  const chapterOfRule = new Map(report.rules.map((r) => [r.id, r.chapter]));
  const ruleTitle = new Map(report.rules.map((r) => [r.id, r.title]));
  const causeNumber = new Map(report.root_causes.map((c, i) => [c.key, i + 1]));
  const suites = new Map<number, TestCase[]>();
  const add = (chapter: number, test: TestCase): void => {
    if (!suites.has(chapter)) suites.set(chapter, []);
    suites.get(chapter)!.push(test);
  };
  const className = (chapter: number): string => `cantrip.chapter-${chapter}${titles.has(chapter) ? `-${slug(titles.get(chapter)!)}` : ''}`;

  for (const c of report.cases) {
    add(c.chapter, { name: c.id, classname: className(c.chapter), seconds: c.duration_ms, outcome: caseOutcome(c, { max, ruleTitle, causeNumber }) });
  }
  for (const p of report.properties ?? []) {
    const chapter = chapterOfRule.get(p.rules[0] ?? '') ?? 0;
    add(chapter, { name: `property ${p.id}`, classname: `${className(chapter)}.properties`, seconds: p.duration_ms, outcome: propertyOutcome(p, { max, ruleTitle }) });
  }

  // One test per ambient check, in the chapter of its first rule: judged once for the run, not per case.
  for (const { check, outcome } of ambientJUnitTests(report)) {
    const chapter = chapterOfRule.get(check.rules[0] ?? '') ?? 0;
    add(chapter, { name: `ambient ${check.id}`, classname: `${className(chapter)}.ambient`, seconds: 0, outcome });
  }

  // One passing test per record-shape finding, in the chapter of the section that shows the shape: it says
  // what differs in its <system-out>, where CI readers show it, without counting as a failure or a skip.
  for (const t of recordShapeJUnitTests(report)) {
    add(t.chapter, { name: t.name, classname: `${className(t.chapter)}.record-shapes`, seconds: 0, outcome: { output: t.output } });
  }

  const props = runProperties(report);
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const all = [...suites.values()].flat();
  const count = (tests: TestCase[], element: Outcome['element']): number => tests.filter((t) => t.outcome.element === element).length;
  const total = (tests: TestCase[]): number => tests.reduce((sum, t) => sum + t.seconds, 0);
  out.push(
    `<testsuites name="${xmlAttr(`Cantrip conformance: ${implementationName(report)} against ${judgedDraftName(report)}`)}" tests="${all.length}" failures="${count(all, 'failure')}" errors="${count(all, 'error')}" time="${seconds(total(all))}">`,
  );
  let id = 0;
  for (const chapter of [...suites.keys()].sort((a, b) => (a === 0 ? 1 : b === 0 ? -1 : a - b))) {
    const tests = suites.get(chapter)!;
    const name = chapter === 0 ? 'Cases without a catalog rule' : `${chapter}. ${titles.get(chapter) ?? `Chapter ${chapter}`}`;
    out.push(
      `  <testsuite name="${xmlAttr(name)}" package="cantrip" id="${id++}" tests="${tests.length}" failures="${count(tests, 'failure')}" errors="${count(tests, 'error')}" skipped="${count(tests, 'skipped')}" time="${seconds(total(tests))}" timestamp="${xmlAttr(antTimestamp(report.environment.started_at))}">`,
    );
    out.push('    <properties>');
    for (const [key, value] of props) out.push(`      <property name="${xmlAttr(key)}" value="${xmlAttr(value)}"/>`);
    out.push('    </properties>');
    for (const t of tests) out.push(...testcaseXml(t));
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}

/**
 * The start time as Ant writes `timestamp`: ISO 8601 to the second without a zone (here UTC), the form
 * the stricter JUnit readers accept; report.json keeps the exact time.
 */
function antTimestamp(iso: string): string {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})/.exec(iso);
  return m ? m[1]! : iso;
}

/** Facts about the run, repeated in each suite's `<properties>`. */
function runProperties(report: Report): [string, string][] {
  const impl = report.implementation;
  const env = report.environment;
  const props: [string, string][] = [
    ['implementation', implementationName(report)],
    ['implementation.spec_version', impl.spec_version],
    ['implementation.features', impl.features.join(', ')],
    ['spec_version', report.spec_version],
    // The draft judged: its rule ids are the ones the tests and failure texts name.
    ['draft', draftOfReport(report).version],
    ['draft.commit', draftOfReport(report).commit],
    ['draft.label', draftOfReport(report).label],
    ['case_file', env.case_file],
    ['filter', env.filter.join(' ')],
    ['node', env.node],
    ['platform', `${env.platform}/${env.arch}`],
    ['started_at', env.started_at],
    ['duration_ms', String(env.duration_ms)],
    ...(env.phases ? (Object.entries(env.phases).map(([phase, ms]) => [`phases.${phase}`, String(ms)]) as [string, string][]) : []),
  ];
  for (const level of LEVELS) props.push([`verdict.${level}`, report.verdict[level].status]);
  props.push(['profile', report.profile.name], ['rules.not_exercised', report.profile.rules_not_exercised.join(', ')]);
  const seed = report.properties?.[0]?.seed;
  if (seed !== undefined) props.push(['properties.seed', String(seed)]);
  const signal = interruptedBy(report);
  if (signal) props.push(['interrupted', signal]);
  return props;
}

function testcaseXml(t: TestCase): string[] {
  const open = `    <testcase name="${xmlAttr(t.name)}" classname="${xmlAttr(t.classname)}" time="${seconds(t.seconds)}"`;
  const o = t.outcome;
  if (!o.element) return o.output ? [`${open}>`, `      <system-out>${xmlText(o.output)}</system-out>`, '    </testcase>'] : [`${open}/>`];
  const attrs = `${o.type !== undefined ? ` type="${xmlAttr(o.type)}"` : ''}${o.message !== undefined ? ` message="${xmlAttr(clipText(o.message, MESSAGE_MAX))}"` : ''}`;
  const inner = o.body ? `<${o.element}${attrs}>${xmlText(o.body)}</${o.element}>` : `<${o.element}${attrs}/>`;
  return [`${open}>`, `      ${inner}`, '    </testcase>'];
}

interface Context {
  max: number;
  ruleTitle: Map<string, string>;
  causeNumber?: Map<string, number>;
}

const rulesLine = (rules: string[], ruleTitle: Map<string, string>): string => rules.map((r) => (ruleTitle.has(r) ? `${r} (${ruleTitle.get(r)})` : r)).join(', ');

/** The text of a failed case: what it checks, each failed expectation, invariant and problem, and its root causes. */
function caseDetail(c: ReportCase, ctx: Context): string[] {
  const lines = [`Case ${c.id} (${c.level}), rules ${rulesLine(c.rules, ctx.ruleTitle)}`, c.description, `Source: ${c.source}`];
  if (c.failed_rules.length > 0) lines.push(`Rules shown broken: ${c.failed_rules.join(', ')}`);
  if (c.reason) lines.push(`Reason: ${c.reason}`);
  const kept = caseNote({ limits_reached: c.limits_reached });
  if (kept) lines.push(`Kept in part: ${kept}`);
  if (c.failures.length > 0) {
    lines.push('', 'Failed expectations (expected vs actual):');
    for (const f of c.failures) {
      lines.push(`  ${f.path} (${f.matcher}${f.rule ? `, ${f.rule}` : ''})`, `    expected: ${oneLine(f.expected, ctx.max)}`, `    actual:   ${oneLine(f.actual, ctx.max)}`);
      if (f.why) lines.push(`    why:      ${f.why.split('\n').join('\n              ')}`);
    }
  }
  if (c.problems.length > 0) {
    lines.push('', 'Problems found while driving the case:');
    for (const p of c.problems) lines.push(`  ${clipText(p, ctx.max)}`);
  }
  const causes = causeKeys(c).filter((k) => ctx.causeNumber?.has(k));
  if (causes.length > 0) {
    lines.push('', 'Root causes (report.md, "Problems"):');
    // This case's own values, not the group's placeholders.
    const own = caseCauseTexts(c);
    for (const k of causes) lines.push(`  problem ${ctx.causeNumber!.get(k)}: ${own[k] ?? k}`);
  }
  return lines;
}

function caseOutcome(c: ReportCase, ctx: Context): Outcome {
  const rules = `[${(c.failed_rules.length > 0 ? c.failed_rules : c.rules).join(', ')}]`;
  if (c.stale) {
    return {
      element: 'failure',
      type: 'stale',
      message: `${rules} listed as an expected failure but passes: remove it from the expected-failures list`,
      body: [`Case ${c.id} (${c.level}), rules ${rulesLine(c.rules, ctx.ruleTitle)}`, c.description, `Source: ${c.source}`].join('\n'),
    };
  }
  switch (c.status) {
    case 'pass':
      return {};
    case 'skipped':
      return { element: 'skipped', message: c.reason ?? 'skipped' };
    case 'errored':
      return { element: 'error', type: c.timed_out ? 'timeout' : 'errored', message: `${rules} ${firstLine(c.reason) || 'errored'}`, body: caseDetail(c, ctx).join('\n') };
    case 'xfail':
      return { element: 'skipped', type: 'xfail', message: `expected failure (listed in --expected-failures): ${failureSummary(c)}`, body: caseDetail(c, ctx).join('\n') };
    case 'fail':
      return { element: 'failure', type: failureType(c), message: `${rules} ${failureSummary(c)}`, body: caseDetail(c, ctx).join('\n') };
  }
}

/** What failed first, in one line. */
function failureSummary(c: ReportCase): string {
  const parts: string[] = [];
  const first = c.failures[0];
  if (first) parts.push(expectationLine(first, 120));
  if (!first && c.problems[0]) parts.push(firstLine(c.problems[0]));
  if (!first && !c.problems[0] && c.reason) parts.push(firstLine(c.reason));
  const others = c.failures.length + c.problems.length - 1;
  return `${parts.join('') || 'failed'}${others > 0 ? ` (+${others} more)` : ''}`;
}

function failureType(c: ReportCase): string {
  return c.failures.length > 0 ? 'expectation' : 'problem';
}

function propertyDetail(p: ReportProperty, ctx: Context): string[] {
  const lines = [`Property ${p.id} (${p.level}), rules ${rulesLine(p.rules, ctx.ruleTitle)}`, p.title, `Seed ${p.seed} (repeat with --seed ${p.seed}), ${p.runs} runs`];
  if (p.failed_rules.length > 0) lines.push(`Rules shown broken: ${p.failed_rules.join(', ')}`);
  if (p.reason) lines.push(`Reason: ${p.reason}`);
  const ce = p.counterexample;
  if (!ce) return lines;
  if (ce.reason) lines.push(`Counterexample errored: ${ce.reason}`);
  if (ce.failures.length > 0) {
    lines.push('', 'Failed checks (expected vs actual):');
    for (const f of ce.failures) {
      lines.push(`  ${f.path} (${f.matcher})`, `    expected: ${oneLine(f.expected, ctx.max)}`, `    actual:   ${oneLine(f.actual, ctx.max)}`);
      if (f.why) lines.push(`    why:      ${f.why.split('\n').join('\n              ')}`);
    }
  }
  if (ce.invariants.length > 0) {
    lines.push('', 'Failed invariants:');
    for (const i of ce.invariants) lines.push(`  ${i.id} (${i.rules.join(', ')}): ${clipText((i.detail ?? '').split('\n').join('\n    '), ctx.max)}`);
  }
  lines.push('', `Reproducer: shrunk to ${ce.steps} crystal step(s) after ${ce.shrinks} shrinks; paste under cases: in tests.yaml:`, '', ce.case_yaml.trimEnd());
  return lines;
}

function propertyOutcome(p: ReportProperty, ctx: Context): Outcome {
  const rules = `[${(p.failed_rules.length > 0 ? p.failed_rules : p.rules).join(', ')}]`;
  switch (p.status) {
    case 'pass':
      return p.stale ? { element: 'failure', type: 'stale', message: `${rules} listed as an expected failure, yet passed` } : {};
    case 'xfail':
      return { element: 'skipped', type: 'xfail', message: `${rules} expected failure (listed in --expected-failures)`, body: propertyDetail(p, ctx).join('\n') };
    case 'skipped':
      return { element: 'skipped', message: p.reason ?? 'skipped' };
    case 'errored':
      return { element: 'error', type: p.interrupted ? 'interrupted' : p.timed_out ? 'timeout' : 'errored', message: `${rules} ${firstLine(p.reason ?? p.counterexample?.reason) || 'errored'}`, body: propertyDetail(p, ctx).join('\n') };
    case 'fail': {
      const ce = p.counterexample;
      const first = ce?.failures[0] ? expectationLine(ce.failures[0], 120) : ce?.invariants[0] ? `invariant ${ce.invariants[0].id}: ${firstLine(ce.invariants[0].detail)}` : 'counterexample found';
      return { element: 'failure', type: 'property', message: `${rules} seed ${p.seed}: ${first}`, body: propertyDetail(p, ctx).join('\n') };
    }
  }
}

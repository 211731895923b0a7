/** report.md and the console summary: the same facts as report.json, for people. */
import type { Report } from './report.ts';
import { actualText, caseNote, causeText, durationText, expectationLine, interruptedBy, LEVELS, reasonLine } from './format.ts';
import { notExercisedText, profileText, skipNote, skipReasons } from './profile.ts';
import { casesWithCauses, type RootCause } from './root-causes.ts';
import { judgedDraftName, outsideDraftNote } from './draft.ts';
import { ambientConsoleLines, ambientMarkdownSection } from './ambient-render.ts';
import { recordShapeConsoleLines, recordShapeMarkdownSection } from './record-shapes-render.ts';

const clip = (value: unknown, max = 300): string => {
  const text = value === undefined ? '(nothing)' : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max)}…` : text;
};

/**
 * The console summary, in the order things ran: the cases (one line per chapter, the top root causes,
 * failures in short), the properties, then how long it took and the verdict per level. The CLI prints
 * the cases' part as soon as the cases are done and the rest after the properties.
 */
export function summaryLines(report: Report): string[] {
  return [...caseSummaryLines(report), ...propertyLines(report), ...verdictLines(report)];
}

/** How the run marks a case it never started (harness/run/run.ts: a give-up or an interruption). */
const NOT_RUN = 'not run: ';

/** The cases' part of the summary: the implementation, one line per chapter, the top root causes, failures in short. */
export function caseSummaryLines(report: Report): string[] {
  const lines: string[] = [];
  const impl = report.implementation;
  lines.push(`${impl.name} ${impl.version}, judged against ${judgedDraftName(report)} (declares spec ${impl.spec_version}; features: ${impl.features.join(', ') || 'none'})`);
  for (const ch of report.chapters) {
    if (ch.total === 0) continue;
    lines.push(`  ${String(ch.chapter)}. ${ch.title.padEnd(12)} ${ch.pass} pass, ${ch.fail} fail, ${ch.errored} errored, ${ch.skipped} skipped, ${ch.xfail} xfail`);
  }
  lines.push(...rootCauseLines(report));
  // Cases the run gave up on (a silent adapter, an interruption) share one reason: the first is shown,
  // the rest counted, so a hung adapter does not print the same error once per case.
  const notRun = new Map<string, number>();
  for (const c of report.cases.filter((x) => x.status === 'fail' || x.status === 'errored')) {
    if (c.status === 'errored' && c.reason?.startsWith(NOT_RUN)) {
      const seen = notRun.get(c.reason);
      notRun.set(c.reason, (seen ?? 0) + 1);
      if (seen !== undefined) continue;
    }
    lines.push(`  ${c.status.toUpperCase()} ${c.id} [${(c.failed_rules.length > 0 ? c.failed_rules : c.rules).join(', ')}] ${c.source}`);
    if (c.reason) lines.push(`      ${c.reason}`);
    for (const f of c.failures) lines.push(`      ${expectationLine(f, 120)}`);
    for (const p of c.problems) lines.push(`      ${p}`);
  }
  for (const count of notRun.values()) if (count > 1) lines.push(`  ... and ${count - 1} more ${count - 1 === 1 ? 'case was' : 'cases were'} not run for the same cause (each is listed in report.md)`);
  lines.push(...ambientConsoleLines(report));
  lines.push(...recordShapeConsoleLines(report));
  for (const id of report.stale) lines.push(`  STALE ${id}: listed as an expected failure but passes; remove it from the list`);
  return lines;
}

/**
 * The closing lines: the run's duration and its phases, one verdict line per level (cases and
 * properties together, with what was skipped), then the profile the verdict covers.
 */
export function verdictLines(report: Report): string[] {
  const lines = [`took ${durationText(report)}`];
  for (const level of LEVELS) lines.push(`${level.padEnd(6)} ${report.verdict[level].status.toUpperCase().padEnd(10)}  (${verdictDetail(report, level)})`);
  lines.push(profileLine(report));
  const signal = interruptedBy(report);
  if (signal) lines.push(`interrupted (${signal}): the report is partial; what did not finish is errored, not failed`);
  return lines;
}

/**
 * What stands behind a level's verdict, in one line: `122/122 applicable pass; 100 skipped: 98 for
 * undeclared features, 2 about another crystal transport`. An incomplete level counts what ran to
 * the end: `120/120 run pass; 2 errored`.
 */
export function verdictDetail(report: Report, level: (typeof LEVELS)[number]): string {
  const v = report.verdict[level];
  const head = v.status === 'incomplete' ? `${v.pass}/${v.applicable - v.errored} run pass` : `${v.pass}/${v.applicable} applicable pass`;
  const p = v.properties;
  const parts = [
    v.judged_too_little ? `judged too little: ${v.judged_too_little.judged} of ${v.judged_too_little.of} offered cases and properties` : '',
    v.fail > 0 ? `${v.fail} fail` : '',
    v.errored > 0 ? `${v.errored} errored` : '',
    v.xfail > 0 ? `${v.xfail} expected failures` : '',
    p && p.pass + p.fail + p.errored > 0 ? `properties ${p.pass}/${p.pass + p.fail + p.errored} pass${p.fail ? `, ${p.fail} fail` : ''}${p.errored ? `, ${p.errored} errored` : ''}` : '',
    skipNote(report.profile.skipped[level]),
  ].filter(Boolean);
  return [head, ...parts].join('; ');
}

/** `profile: core (no feature declared; not declared: fork, …); 21 of 79 rules of Cantrip 0.3.1 (0c876ea) not exercised (listed in report.md and report.html)`. */
export function profileLine(report: Report): string {
  const p = report.profile;
  const n = p.rules_not_exercised.length;
  return `profile: ${profileText(p)}; ${notExercisedText(p, 5, judgedDraftName(report))}${n > 5 ? ' (listed in report.md and report.html)' : ''}${outsideDraftNote(report)}`;
}

/** How many root causes the console lists before pointing at report.md. */
export const CONSOLE_ROOT_CAUSES = 5;

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** The rules and the section a root cause is attributed to, e.g. `CIRCLE-4, CIRCLE-7; §4.3`; `max` rules at most. */
function attribution(cause: RootCause, max = Infinity): string {
  const rules = cause.rules.length > max ? [...cause.rules.slice(0, max), `+${cause.rules.length - max} more`] : cause.rules;
  return [rules.join(', '), cause.section].filter(Boolean).join('; ') || 'no rule';
}

/** One line saying how many problems lie behind how many cases. */
function problemsHeadline(report: Report): string {
  const causes = report.root_causes;
  return `${plural(causes.length, 'problem')} behind ${plural(casesWithCauses(causes), 'failing or errored case')}`;
}

/** Console lines for the root causes: a count, then the most common few. */
function rootCauseLines(report: Report): string[] {
  const causes = report.root_causes;
  if (causes.length === 0) return [];
  const lines = [`${problemsHeadline(report)}; the most common:`];
  const width = String(causes[0]!.count).length;
  for (const cause of causes.slice(0, CONSOLE_ROOT_CAUSES)) {
    lines.push(`  ${String(cause.count).padStart(width)} × [${attribution(cause, 4)}] ${clipLine(causeText(cause), 220)}`);
  }
  if (causes.length > CONSOLE_ROOT_CAUSES) lines.push(`  … and ${plural(causes.length - CONSOLE_ROOT_CAUSES, 'more problem')} (report.md, "Problems")`);
  return lines;
}

const clipLine = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max)}…` : text);

/** Inline code that survives backticks inside the text. */
function code(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return longest === 0 ? `${fence}${text}${fence}` : `${fence} ${text} ${fence}`;
}

/** The report.md lines for the root causes, shown before the per-case detail. */
function rootCauseSection(report: Report): string[] {
  const causes = report.root_causes;
  if (causes.length === 0) return [];
  const out = ['## Problems', '', `${problemsHeadline(report)}. Cases that fail for the same reason are counted as one problem; a case may show several (docs/reports.md, "Root causes").`, ''];
  for (const [i, cause] of causes.entries()) {
    out.push(`${i + 1}. **Problem ${i + 1}, seen in ${plural(cause.count, 'case')}** (${attribution(cause)}): ${code(causeText(cause))}`);
    const e = cause.example;
    const shownExample = e.path !== undefined
      ? `${code(e.path)}: expected ${code(clip(e.expected, 160))}, got ${code(actualText({ matcher: e.matcher ?? '', actual: e.actual, expected: e.expected }, 160))}`
      : clipLine((e.detail ?? '').split('\n').map((l) => l.trim()).filter(Boolean).join(' '), 400);
    out.push(`   - e.g. ${e.case}: ${shownExample}`);
    const listed = cause.cases.slice(0, 12).join(', ');
    out.push(`   - cases: ${listed}${cause.cases.length > 12 ? `, … and ${cause.cases.length - 12} more` : ''}`);
  }
  return out;
}

/** Console lines for the properties: a count, then each failure with what differed and its reproducer. */
export function propertyLines(report: Report): string[] {
  const props = report.properties;
  if (!props || props.length === 0) return [];
  const count = (s: string): number => props.filter((p) => p.status === s).length;
  const seed = props[0]?.seed;
  const interrupted = props.filter((p) => p.interrupted).length;
  const timedOut = props.filter((p) => p.timed_out).length;
  const cut = [...(interrupted ? [`${interrupted} interrupted`] : []), ...(timedOut ? [`${timedOut} by a time limit`] : [])];
  const expected = count('xfail') > 0 ? `, ${count('xfail')} expected failures` : '';
  const lines = [`properties: ${count('pass')} pass, ${count('fail')} fail, ${count('errored')} errored${cut.length > 0 ? ` (${cut.join(', ')})` : ''}, ${count('skipped')} skipped${expected} (seed ${seed}; repeat with --seed ${seed})`];
  for (const p of props.filter((x) => x.stale)) lines.push(`  STALE property ${p.id}: listed as an expected failure, yet passed`);
  for (const p of props.filter((x) => x.status === 'xfail')) lines.push(`  XFAIL property ${p.id} [${p.rules.join(', ')}]`);
  for (const p of props.filter((x) => x.status === 'fail' || x.status === 'errored')) {
    lines.push(`  ${p.interrupted ? 'INTERRUPTED' : p.timed_out ? 'TIME LIMIT' : p.status.toUpperCase()} property ${p.id} [${p.rules.join(', ')}] after ${p.runs} runs`);
    if (p.reason) lines.push(`      ${p.reason}`);
    const ce = p.counterexample;
    if (!ce) continue;
    for (const f of ce.failures) lines.push(`      ${expectationLine(f, 120)}`);
    for (const i of ce.invariants) lines.push(`      invariant ${i.id} (${i.rules.join(', ')}): ${(i.detail ?? '').split('\n')[0]}`);
    lines.push(`      shrunk to ${ce.steps} crystal step(s); as a tests.yaml case:`);
    for (const l of ce.case_yaml.trimEnd().split('\n')) lines.push(`        ${l}`);
  }
  return lines;
}

/** The report.md section for properties. */
function propertySection(report: Report): string[] {
  const props = report.properties;
  if (!props) return [];
  const out = ['', '## Properties', '', `Generated scenarios, seed ${props[0]?.seed ?? '—'} (\`--seed\` repeats the run).`, '', '| property | rules | level | status | runs | note |', '| --- | --- | --- | --- | --- | --- |'];
  for (const p of props) out.push(`| ${p.id} | ${p.rules.join(', ')} | ${p.level} | ${p.status}${p.timed_out ? ' (time limit)' : ''} | ${p.runs} | ${p.reason ?? ''} |`);
  for (const p of props.filter((x) => x.counterexample)) {
    const ce = p.counterexample!;
    out.push('', `### property ${p.id} (${p.status})`, '', `Rules ${p.rules.join(', ')} · ${p.level} · broken: ${p.failed_rules.join(', ') || '—'}`, '', p.title, '');
    for (const f of ce.failures) out.push(`- \`${f.path}\`: expected \`${clip(f.expected)}\`, got \`${actualText(f)}\`${f.why ? ` (${reasonLine(f.why)})` : ''}`);
    for (const i of ce.invariants) out.push(`- invariant \`${i.id}\` (${i.rules.join(', ')}): ${(i.detail ?? '').split('\n')[0]}`);
    if (ce.reason) out.push(`- errored: ${ce.reason}`);
    out.push('', `Shrunk counterexample (${ce.steps} crystal steps, ${ce.shrinks} shrinks), ready to paste under \`cases:\` in tests.yaml:`, '', '```yaml', ce.case_yaml.trimEnd(), '```');
  }
  return out;
}

/** report.md's account of what the verdict covers: the profile, and every rule nothing exercised. */
function profileSection(report: Report): string[] {
  const p = report.profile;
  const byId = new Map(report.rules.map((r) => [r.id, r]));
  const out = [`**Profile judged**: ${profileText(p, Infinity)}. ${notExercisedText(p, 0, judgedDraftName(report))}${p.rules_not_exercised.length > 0 ? ':' : '.'}`];
  if (p.rules_not_exercised.length > 0) {
    out.push('');
    for (const id of p.rules_not_exercised) {
      const r = byId.get(id);
      out.push(`- ${id}${r ? ` ${r.title} (${r.level}, ${r.status === 'untested' && r.testability !== 'behavioral' ? `untested: ${r.testability}` : r.status})` : ''}`);
    }
  }
  return out;
}

export function renderMarkdown(report: Report): string {
  const impl = report.implementation;
  const out: string[] = [];
  out.push(`# Cantrip conformance report: ${impl.name} ${impl.version}`, '');
  out.push(`**Draft judged: ${judgedDraftName(report)}**; the rule ids, titles and levels below are that draft's${outsideDraftNote(report)}.`, '');
  if (report.outside_draft && report.outside_draft.length > 0) out.push(`Cases outside this draft: ${report.outside_draft.join(', ')}.`, '');
  out.push(`Case file spec ${report.spec_version}, case format ${report.format_version}; features: ${impl.features.join(', ') || 'none'}.`);
  out.push(`Run at ${report.environment.started_at} on Node ${report.environment.node} (${report.environment.platform}/${report.environment.arch}), ${durationText(report)}.`, '');
  out.push('## Verdict', '', '| level | verdict | applicable | pass | fail | errored | xfail | skipped | skipped because |', '| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const level of LEVELS) {
    const v = report.verdict[level];
    out.push(`| ${level} | **${v.status}** | ${v.applicable} | ${v.pass} | ${v.fail} | ${v.errored} | ${v.xfail} | ${v.skipped} | ${skipReasons(report.profile.skipped[level]) || '—'} |`);
  }
  const signal = interruptedBy(report);
  if (signal) out.push('', `**Interrupted** (${signal}): the report is partial; the cases and properties that did not finish are errored, and the verdict says incomplete, not fail.`);
  out.push('', ...profileSection(report));
  out.push('', '## Chapters', '', '| chapter | cases | pass | fail | errored | xfail | skipped |', '| --- | --- | --- | --- | --- | --- | --- |');
  for (const ch of report.chapters) out.push(`| ${ch.chapter}. ${ch.title} | ${ch.total} | ${ch.pass} | ${ch.fail} | ${ch.errored} | ${ch.xfail} | ${ch.skipped} |`);
  const broken = report.cases.filter((c) => c.status === 'fail' || c.status === 'errored' || c.stale);
  const problems = rootCauseSection(report);
  if (problems.length > 0) out.push('', ...problems);
  const ambient = ambientMarkdownSection(report);
  if (ambient.length > 0) out.push('', ...ambient);
  const shapes = recordShapeMarkdownSection(report);
  if (shapes.length > 0) out.push('', ...shapes);
  out.push('', '## Failures', '');
  if (broken.length === 0) out.push('None.');
  for (const c of broken) {
    out.push(`### ${c.id} (${c.status}${c.stale ? ', stale expected failure' : ''}${c.attempts ? `, ${c.attempts} runs` : ''})`, '', `Rules ${c.rules.join(', ')}${c.failed_rules.length > 0 ? ` · broken: ${c.failed_rules.join(', ')}` : ''} · ${c.level} · ${c.source}`, '', c.description, '');
    if (c.reason) out.push(`Reason: ${c.reason}`, '');
    const kept = caseNote({ limits_reached: c.limits_reached });
    if (kept) out.push(`Kept in part: ${kept}`, '');
    const line = (f: (typeof c.failures)[number]): string => `- ${f.rule ? `[${f.rule}] ` : ''}\`${f.path}\`: expected \`${clip(f.expected)}\`, got \`${actualText(f)}\`${f.why ? ` (${reasonLine(f.why)})` : ''}`;
    if (c.problems.length > 0 && c.failures.length > 0) {
      // The run left its script: the problem is the finding, the expectations that read the run after it its consequences (docs/INTERPRETING.md).
      for (const p of c.problems) out.push(`- ${p}`);
      out.push('', 'Read after the implementation stopped following the case\'s script (the problem above), so not judged under their own rules:', '');
      for (const f of c.failures) out.push(line(f));
    } else {
      for (const f of c.failures) out.push(line(f));
      for (const p of c.problems) out.push(`- ${p}`);
    }
    out.push('');
  }
  out.push(...propertySection(report));
  out.push('', '## Rules', '', '| rule | level | status | cases | properties |', '| --- | --- | --- | --- | --- |');
  // An untested rule says why when the catalog marks it as beyond an adapter's reach.
  const statusOf = (r: Report['rules'][number]): string => (r.status === 'untested' && r.testability !== 'behavioral' ? `untested (${r.testability})` : r.status);
  for (const r of report.rules) out.push(`| ${r.id} ${r.title} | ${r.level} | ${statusOf(r)} | ${r.cases.join(', ') || '—'} | ${r.properties?.join(', ') || '—'} |`);
  out.push('', '## Cases', '', '| case | rules | level | status | ms | note |', '| --- | --- | --- | --- | --- | --- |');
  for (const c of report.cases) out.push(`| ${c.id} | ${c.rules.join(', ')} | ${c.level} | ${c.status}${c.stale ? ' (stale)' : ''}${c.attempts ? ` (${c.attempts} runs)` : ''} | ${c.duration_ms} | ${caseNote(c)} |`);
  return `${out.join('\n')}\n`;
}


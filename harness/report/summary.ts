/**
 * Two small outputs for CI: summary.md, a short Markdown digest for a job summary (GitHub's
 * `$GITHUB_STEP_SUMMARY`, or any place that shows Markdown), and badge.json, a shields.io endpoint
 * badge (https://shields.io/badges/endpoint-badge) that a README can show from wherever CI publishes
 * it.
 */
import { exitCode, INCOMPLETE_EXIT, type Report } from './report.ts';
import { notExercisedText, profileText, skipReasons } from './profile.ts';
import { recordShapeSummaryLines } from './record-shapes-render.ts';
import { draftOfReport, judgedDraftName, outsideDraftNote } from './draft.ts';
import { findingHeadline } from './ambient-render.ts';
import { causeText, durationText, expectationLine, firstLine, implementationName, interruptedBy, LEVELS, mdCode, mdText, plural } from './format.ts';

/** The file names the CLI writes next to report.json. */
export const SUMMARY_FILE = 'summary.md';
export const BADGE_FILE = 'badge.json';

export interface SummaryOptions {
  /** Most failing cases listed; the rest are counted. Default 15. */
  maxCases?: number;
  /** Most root causes listed. Default 5. */
  maxProblems?: number;
  /** Where the full reports are, named at the end (e.g. "the reports artifact"). */
  detailsAt?: string;
}

const cell = (markdown: string): string => markdown.replace(/(?<!\\)\|/g, '\\|');
const verdictMark = (status: string): string => (status === 'pass' ? '✅ pass' : status === 'fail' ? '❌ **fail**' : status === 'incomplete' ? '⚠️ **incomplete**' : '➖ no cases');
/** The heading's mark: the run passed, failed, or could not be judged in full (exit code 3). */
const runMark = (code: number): string => (code === 0 ? '✅' : code === INCOMPLETE_EXIT ? '⚠️ incomplete' : '❌');

/** A short Markdown digest of a report: verdicts, counts, the main problems and the first failures. */
export function renderJobSummary(report: Report, options: SummaryOptions = {}): string {
  const maxCases = options.maxCases ?? 15;
  const maxProblems = options.maxProblems ?? 5;
  const out: string[] = [];
  const profile = report.profile;
  out.push(`## Cantrip conformance: ${mdText(implementationName(report))} ${runMark(exitCode(report))}${profile.name === 'full' ? '' : ` (${profile.name} profile)`}`, '');
  out.push(
    `Judged against ${mdText(judgedDraftName(report))}${mdText(outsideDraftNote(report).replace(/^; /, ' · '))} · ${mdText(report.environment.case_file)}${report.environment.filter.length > 0 ? ` · filter ${mdCode(report.environment.filter.join(' '))}` : ''} · ${mdText(durationText(report))}`,
    '',
  );
  const signal = interruptedBy(report);
  if (signal) out.push(`**Interrupted** (${mdText(signal)}): the report is partial; what did not finish is errored, so the verdict is incomplete, not fail.`, '');
  const withProps = report.properties !== undefined;
  out.push(`| level | verdict | applicable | pass | fail | errored | xfail | skipped |${withProps ? ' properties |' : ''} skipped because |`, `| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |${withProps ? ' --- |' : ''} --- |`);
  for (const level of LEVELS) {
    const v = report.verdict[level];
    const p = v.properties;
    const why = skipReasons(profile.skipped[level]) || '—';
    out.push(`| ${level} | ${verdictMark(v.status)} | ${v.applicable} | ${v.pass} | ${v.fail} | ${v.errored} | ${v.xfail} | ${v.skipped} |${withProps ? ` ${p && p.pass + p.fail + p.errored + p.skipped > 0 ? `${p.pass} pass, ${p.fail} fail${p.errored ? `, ${p.errored} errored` : ''}${p.skipped ? `, ${p.skipped} skipped` : ''}` : '—'} |` : ''} ${why} |`);
  }
  out.push('');
  const notRun = profile.rules_not_exercised;
  out.push(`**Profile judged**: ${mdText(profileText(profile))}. ${mdText(notExercisedText(profile, 0, judgedDraftName(report)))}${notRun.length > 0 ? `: ${notRun.slice(0, 30).map(mdCode).join(', ')}${notRun.length > 30 ? ` and ${notRun.length - 30} more` : ''}` : ''}.`, '');
  if (report.stale.length > 0) out.push(`**Stale expected failures** (they pass; remove them from the list): ${report.stale.map(mdCode).join(', ')}`, '');

  const causes = report.root_causes;
  if (causes.length > 0) {
    const behind = new Set(causes.flatMap((c) => c.cases)).size;
    out.push(`### ${plural(causes.length, 'problem')} behind ${plural(behind, 'failing case')}`, '');
    causes.slice(0, maxProblems).forEach((c, i) => {
      const rules = [c.rules.join(', '), c.section ?? ''].filter(Boolean).join('; ') || 'no rule';
      out.push(`${i + 1}. **${plural(c.count, 'case')}** (${mdText(rules)}): ${mdCode(causeText(c))}`);
    });
    if (causes.length > maxProblems) out.push(`\n…and ${plural(causes.length - maxProblems, 'more problem')}.`);
    out.push('');
  }

  const ambient = (report.ambient_checks ?? []).filter((c) => c.status === 'fail');
  if (ambient.length > 0) {
    const findings = ambient.flatMap((c) => c.findings.map((f) => ({ check: c.id, f })));
    out.push(`### Ambient checks: ${plural(findings.length, 'finding')} (each counts once)`, '');
    for (const { check, f } of findings.slice(0, maxProblems)) out.push(`- ${mdCode(check)} (${mdText([f.rules.join(', '), f.section ?? ''].filter(Boolean).join('; ') || 'no rule')}), ${plural(f.count, 'case')}, ${mdCode(findingHeadline(f, 160))}`);
    if (findings.length > maxProblems) out.push(`- …and ${plural(findings.length - maxProblems, 'more finding')}.`);
    out.push('');
  }

  out.push(...recordShapeSummaryLines(report, mdText, mdCode));

  const broken = report.cases.filter((c) => c.status === 'fail' || c.status === 'errored');
  if (broken.length > 0) {
    out.push(`### Failing cases (${broken.length})`, '', '| case | rules | status | first difference |', '| --- | --- | --- | --- |');
    for (const c of broken.slice(0, maxCases)) {
      const first = c.failures[0] ? expectationLine(c.failures[0], 80) : firstLine(c.problems[0] ?? c.reason);
      out.push(`| ${cell(mdCode(c.id))} | ${mdText((c.failed_rules.length > 0 ? c.failed_rules : c.rules).join(', '))} | ${c.status} | ${cell(mdCode(first.length > 160 ? `${first.slice(0, 160)}…` : first))} |`);
    }
    if (broken.length > maxCases) out.push('', `…and ${plural(broken.length - maxCases, 'more failing case')}.`);
    out.push('');
  }

  const props = report.properties ?? [];
  const badProps = props.filter((p) => p.status === 'fail' || p.status === 'errored');
  if (props.length > 0) {
    const n = (s: string): number => props.filter((p) => p.status === s).length;
    out.push(`**Properties** (seed ${props[0]!.seed}): ${n('pass')} pass, ${n('fail')} fail, ${n('errored')} errored, ${n('skipped')} skipped.`);
    for (const p of badProps) out.push(`- ${mdCode(p.id)} (${mdText(p.rules.join(', '))}) ${p.status}${p.timed_out ? ' (time limit)' : ''}${p.counterexample ? `: shrunk to ${plural(p.counterexample.steps, 'crystal step')}, reproducer in report.md and report.html` : p.reason ? `: ${mdText(firstLine(p.reason))}` : ''}`);
    out.push('');
  }
  out.push(`Details: report.html, report.md, junit.xml and report.json${options.detailsAt ? ` in ${mdText(options.detailsAt)}` : ''}.`, '');
  return out.join('\n');
}

/** A shields.io endpoint badge (schemaVersion 1). */
export interface Badge {
  schemaVersion: 1;
  label: string;
  message: string;
  color: string;
}

export interface BadgeOptions {
  /** Left-hand text. Default "cantrip" and the draft judged, `cantrip 0.3.1`; a label given here is used as it is, and the message then ends with the draft (`· draft 0.3.1`). */
  label?: string;
}

/**
 * The badge of a run (the table in docs/reports.md, "badge.json"). A passing run shows the passing
 * share of each level with applicable cases, `MUST 157/157 · SHOULD 6/6`: brightgreen when every level
 * passes, green when MUST passes and another level does not, and blue with `· core profile, 108 skipped`
 * (or `partial profile`) when cases or properties were skipped for features the implementation does
 * not declare, since then a pass covers only part of the spec. A failing run (a MUST case or property
 * failed, or an expected failure is stale) is red, `MUST failing (3)`, with `· 1 errored` and `· 2 stale` when there are; an incomplete one (a MUST case or
 * property errored or was interrupted, none failed) is yellow, `MUST incomplete (2 errored)`;
 * lightgrey when nothing applicable ran. The badge names the draft judged: in its label by default
 * (`cantrip 0.3.1`), else at the end of its message.
 */
export function renderBadge(report: Report, options: BadgeOptions = {}): Badge {
  const version = draftOfReport(report).version;
  const badge = verdictBadge(report, options.label ?? `cantrip ${version}`);
  return options.label === undefined ? badge : { ...badge, message: `${badge.message} · draft ${version}` };
}

/** The badge's verdict, colour and message, under `label`. */
function verdictBadge(report: Report, label: string): Badge {
  const v = report.verdict;
  if (LEVELS.every((l) => v[l].status === 'no-cases')) return { schemaVersion: 1, label, message: 'no cases ran', color: 'lightgrey' };
  const code = exitCode(report);
  const mustProps = v.MUST.properties ?? { pass: 0, fail: 0, errored: 0, skipped: 0 };
  if (code === 1) {
    const failing = v.MUST.fail + mustProps.fail;
    const errored = v.MUST.errored + mustProps.errored;
    const parts = [failing > 0 ? `MUST failing (${failing})` : 'MUST failing'];
    if (errored > 0) parts.push(`${errored} errored`);
    if (report.stale.length > 0) parts.push(`${report.stale.length} stale`);
    return { schemaVersion: 1, label, message: parts.join(' · '), color: 'red' };
  }
  if (code === INCOMPLETE_EXIT) {
    const little = v.MUST.judged_too_little;
    const why = little && v.MUST.errored + mustProps.errored === 0 ? `judged ${little.judged} of ${little.of}` : `${v.MUST.errored + mustProps.errored} errored`;
    return { schemaVersion: 1, label, message: `MUST incomplete (${why})`, color: 'yellow' };
  }
  const shares = LEVELS.filter((l) => v[l].applicable > 0).map((l) => `${l} ${v[l].pass + v[l].xfail}/${v[l].applicable}`);
  const profile = report.profile;
  if (profile.name !== 'full') {
    const skipped = LEVELS.reduce((n, l) => n + profile.skipped[l].undeclared, 0);
    return { schemaVersion: 1, label, message: [...shares, `${profile.name} profile, ${skipped} skipped`].join(' · '), color: 'blue' };
  }
  const allPass = LEVELS.every((l) => v[l].status === 'pass' || v[l].status === 'no-cases');
  return { schemaVersion: 1, label, message: shares.join(' · ') || 'passing', color: allPass ? 'brightgreen' : 'green' };
}

/** badge.json text. */
export function renderBadgeJson(report: Report, options: BadgeOptions = {}): string {
  return `${JSON.stringify(renderBadge(report, options), null, 2)}\n`;
}

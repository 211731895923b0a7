/**
 * Two small outputs for CI: summary.md, a short Markdown digest for a job summary (GitHub's
 * `$GITHUB_STEP_SUMMARY`, or any place that shows Markdown), and badge.json, a shields.io endpoint
 * badge (https://shields.io/badges/endpoint-badge) that a README can show from wherever CI publishes
 * it.
 */
import { exitCode, type Report } from './report.ts';
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
const verdictMark = (status: string): string => (status === 'pass' ? '✅ pass' : status === 'fail' ? '❌ **fail**' : '➖ no cases');

/** A short Markdown digest of a report: verdicts, counts, the main problems and the first failures. */
export function renderJobSummary(report: Report, options: SummaryOptions = {}): string {
  const maxCases = options.maxCases ?? 15;
  const maxProblems = options.maxProblems ?? 5;
  const out: string[] = [];
  const passed = exitCode(report) === 0;
  out.push(`## Cantrip conformance: ${mdText(implementationName(report))} ${passed ? '✅' : '❌'}`, '');
  out.push(
    `Spec ${mdText(report.spec_version)} · ${mdText(report.environment.case_file)}${report.environment.filter.length > 0 ? ` · filter ${mdCode(report.environment.filter.join(' '))}` : ''} · ${mdText(durationText(report))}`,
    '',
  );
  const signal = interruptedBy(report);
  if (signal) out.push(`**Interrupted** (${mdText(signal)}): the report is partial; the case running then and every case after it are errored.`, '');
  const withProps = report.properties !== undefined;
  out.push(`| level | verdict | applicable | pass | fail | errored | xfail | skipped |${withProps ? ' properties |' : ''}`, `| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |${withProps ? ' --- |' : ''}`);
  for (const level of LEVELS) {
    const v = report.verdict[level];
    const p = v.properties;
    out.push(`| ${level} | ${verdictMark(v.status)} | ${v.applicable} | ${v.pass} | ${v.fail} | ${v.errored} | ${v.xfail} | ${v.skipped} |${withProps ? ` ${p && p.pass + p.fail + p.errored + p.skipped > 0 ? `${p.pass} pass, ${p.fail} fail${p.errored ? `, ${p.errored} errored` : ''}` : '—'} |` : ''}`);
  }
  out.push('');
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

  const broken = report.cases.filter((c) => c.status === 'fail' || c.status === 'errored');
  if (broken.length > 0) {
    out.push(`### Failing cases (${broken.length})`, '', '| case | rules | status | first difference |', '| --- | --- | --- | --- |');
    for (const c of broken.slice(0, maxCases)) {
      const inv = c.invariants.find((i) => i.status === 'fail');
      const first = c.failures[0] ? expectationLine(c.failures[0], 80) : inv ? `invariant ${inv.id}: ${firstLine(inv.detail)}` : firstLine(c.problems[0] ?? c.reason);
      out.push(`| ${cell(mdCode(c.id))} | ${mdText(c.rules.join(', '))} | ${c.status} | ${cell(mdCode(first.length > 160 ? `${first.slice(0, 160)}…` : first))} |`);
    }
    if (broken.length > maxCases) out.push('', `…and ${plural(broken.length - maxCases, 'more failing case')}.`);
    out.push('');
  }

  const props = report.properties ?? [];
  const badProps = props.filter((p) => p.status === 'fail' || p.status === 'errored');
  if (props.length > 0) {
    const n = (s: string): number => props.filter((p) => p.status === s).length;
    out.push(`**Properties** (seed ${props[0]!.seed}): ${n('pass')} pass, ${n('fail')} fail, ${n('errored')} errored, ${n('skipped')} skipped.`);
    for (const p of badProps) out.push(`- ${mdCode(p.id)} (${mdText(p.rules.join(', '))}) ${p.status}${p.counterexample ? `: shrunk to ${plural(p.counterexample.steps, 'crystal step')}, reproducer in report.md and report.html` : p.reason ? `: ${mdText(firstLine(p.reason))}` : ''}`);
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
  /** Left-hand text. Default "cantrip". */
  label?: string;
}

/**
 * The badge of a run. Message: the passing share of each level that has applicable cases, e.g.
 * `MUST 157/157 · SHOULD 6/6`, or `MUST failing (3)` when the run fails. Colour: brightgreen when every
 * level with cases passes, green when MUST passes and another level does not, red when the run fails
 * (a MUST case or property fails or errors, or an expected failure is stale), lightgrey when nothing
 * applicable ran.
 */
export function renderBadge(report: Report, options: BadgeOptions = {}): Badge {
  const label = options.label ?? 'cantrip';
  const v = report.verdict;
  if (LEVELS.every((l) => v[l].status === 'no-cases')) return { schemaVersion: 1, label, message: 'no cases ran', color: 'lightgrey' };
  if (exitCode(report) !== 0) {
    const failing = v.MUST.fail + v.MUST.errored + (v.MUST.properties ? v.MUST.properties.fail + v.MUST.properties.errored : 0);
    const parts = [failing > 0 ? `MUST failing (${failing})` : 'MUST failing'];
    if (report.stale.length > 0) parts.push(`${report.stale.length} stale`);
    return { schemaVersion: 1, label, message: parts.join(' · '), color: 'red' };
  }
  const shares = LEVELS.filter((l) => v[l].applicable > 0).map((l) => `${l} ${v[l].pass + v[l].xfail}/${v[l].applicable}`);
  const allPass = LEVELS.every((l) => v[l].status !== 'fail');
  return { schemaVersion: 1, label, message: shares.join(' · ') || 'passing', color: allPass ? 'brightgreen' : 'green' };
}

/** badge.json text. */
export function renderBadgeJson(report: Report, options: BadgeOptions = {}): string {
  return `${JSON.stringify(renderBadge(report, options), null, 2)}\n`;
}

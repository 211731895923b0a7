/**
 * The ambient checks (harness/report/ambient-checks.ts) in each output: console lines, a report.md
 * section, a report.html section and one JUnit test per check. Each shows per check its rules, the
 * cases it looked at and saw violated, and per finding its rules, its cases and its own example.
 */
import type { Report } from './report.ts';
import type { AmbientCheck, AmbientFinding } from './ambient-checks.ts';

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
const oneLine = (text: string, max: number): string => {
  const flat = text.split('\n').map((l) => l.trim()).filter(Boolean).join(' ');
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
};
const attribution = (f: AmbientFinding): string => [f.rules.join(', '), f.section].filter(Boolean).join('; ') || 'no rule';
/**
 * A finding in one line with its first case's own values (`e.g. <case>: turn t3: …`), never the grouping
 * key, whose placeholders (`…`, `#`) stand for what varies between cases and mean nothing to a reader.
 */
export const findingHeadline = (f: AmbientFinding, max: number): string => `e.g. ${f.example.case}: ${oneLine(f.example.detail, max)}`;
const failing = (report: Report): AmbientCheck[] => (report.ambient_checks ?? []).filter((c) => c.status === 'fail');

/** One line per violated ambient check and its findings, for the console. */
export function ambientConsoleLines(report: Report): string[] {
  const bad = failing(report);
  if (bad.length === 0) return [];
  const findings = bad.reduce((n, c) => n + c.findings.length, 0);
  const lines = [`ambient checks: ${plural(bad.length, 'check')} violated, ${plural(findings, 'finding')} (each counts once in its rules' level; report.md, "Ambient checks")`];
  for (const check of bad) {
    for (const f of check.findings) lines.push(`  ${check.id} [${attribution(f)}] in ${plural(f.count, 'case')}, ${findingHeadline(f, 160)}`);
  }
  return lines;
}

/** The report.md section: a table of every check, then each finding with its example. */
export function ambientMarkdownSection(report: Report): string[] {
  const checks = report.ambient_checks ?? [];
  if (checks.length === 0) return [];
  const out = [
    '## Ambient checks',
    '',
    'Checked after every case, judged once for the run: a violation does not fail the case it was seen in; each distinct finding fails the level of its rules once (docs/reports.md, "Ambient checks").',
    '',
    '| check | rules | status | cases checked | cases violated | findings |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  for (const c of checks) out.push(`| ${c.id} | ${c.rules.join(', ')} | ${c.status} | ${c.checked} | ${c.violated.length} | ${c.findings.length}${c.reason ? ` (${c.reason})` : ''} |`);
  for (const c of checks.filter((x) => x.findings.length > 0)) {
    out.push('', `### ${c.id} (${plural(c.violated.length, 'case')} violated of ${c.checked} checked)`, '');
    for (const f of c.findings) {
      out.push(`- **${attribution(f)}**, seen in ${plural(f.count, 'case')}: \`${f.key.replace(/`/g, "'")}\``);
      out.push(`  - e.g. ${f.example.case}: ${oneLine(f.example.detail, 400)}`);
      out.push(`  - cases: ${f.cases.slice(0, 12).join(', ')}${f.cases.length > 12 ? `, … and ${f.cases.length - 12} more` : ''}`);
    }
  }
  return out;
}

/** The report.html section; `html` escapes text, `ruleLink` and `caseLink` link an id. */
export function ambientHtmlSection(report: Report, html: (text: string | number) => string, ruleLink: (id: string) => string, caseLink: (id: string) => string): string {
  const checks = report.ambient_checks ?? [];
  const out = ['<section id="ambient">', '<h2>Ambient checks</h2>'];
  if (checks.length === 0) return [...out, '<p>No ambient check ran.</p>', '</section>'].join('\n');
  out.push(
    '<p>Checked after every case, judged once for the run: a violation does not fail the case it was seen in; each distinct finding fails the level of its rules once.</p>',
    '<table><thead><tr><th>check</th><th>rules</th><th>status</th><th class="num">cases checked</th><th class="num">cases violated</th><th class="num">findings</th></tr></thead><tbody>',
    ...checks.map((c) => `<tr><td><code>${html(c.id)}</code></td><td>${c.rules.map(ruleLink).join(', ')}</td><td><span class="badge s-${html(c.status)}">${html(c.status)}</span></td><td class="num">${c.checked}</td><td class="num">${c.violated.length}</td><td class="num">${c.findings.length}</td></tr>`),
    '</tbody></table>',
  );
  for (const c of checks.filter((x) => x.findings.length > 0)) {
    out.push(`<h3 id="ambient-${html(c.id)}"><code>${html(c.id)}</code></h3>`, '<ul>');
    for (const f of c.findings) {
      const rules = [f.rules.map(ruleLink).join(', '), f.section ? html(f.section) : ''].filter(Boolean).join('; ') || '<span class="muted">no rule</span>';
      const cases = f.cases.slice(0, 12).map(caseLink).join(', ') + (f.cases.length > 12 ? ` <span class="muted">and ${f.cases.length - 12} more</span>` : '');
      out.push(`<li><p><strong>${plural(f.count, 'case')}</strong> · ${rules}: <code>${html(f.key)}</code></p><div>For example, in ${caseLink(f.example.case)}:<pre>${html(f.example.detail)}</pre></div><div>Cases: ${cases}</div></li>`);
    }
    out.push('</ul>');
  }
  out.push('</section>');
  return out.join('\n');
}

/** One JUnit test per ambient check: a failure naming its findings, skipped when it never looked. */
export interface AmbientTest {
  check: AmbientCheck;
  outcome: { element?: 'failure' | 'skipped'; type?: string; message?: string; body?: string };
}

export function ambientJUnitTests(report: Report): AmbientTest[] {
  return (report.ambient_checks ?? []).map((check) => {
    if (check.status === 'skipped') return { check, outcome: { element: 'skipped', message: check.reason ?? 'it never looked at a case' } };
    if (check.status === 'pass') return { check, outcome: {} };
    const first = check.findings[0]!;
    const body = [
      `Ambient check ${check.id}, rules ${check.rules.join(', ')}: violated in ${plural(check.violated.length, 'case')} of ${check.checked} checked.`,
      ...check.findings.flatMap((f) => ['', `[${attribution(f)}] in ${plural(f.count, 'case')}: ${f.key}`, `  e.g. ${f.example.case}: ${f.example.detail}`, `  cases: ${f.cases.join(', ')}`]),
    ].join('\n');
    return { check, outcome: { element: 'failure', type: 'ambient', message: `[${attribution(first)}] ${findingHeadline(first, 200)}${check.findings.length > 1 ? ` (+${check.findings.length - 1} more)` : ''}`, body } };
  });
}

/**
 * The record-shape findings (harness/report/record-shapes.ts) in each output: console lines, a report.md
 * section, a report.html section, a job-summary section and one passing JUnit test per finding. Every
 * output says the findings are informational, and none of them shows one as a failure.
 */
import type { Report } from './report.ts';
import { RECORD_SHAPE_LEVEL_NOTE, type RecordShapeFinding } from './record-shapes.ts';

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
const casesOf = (f: RecordShapeFinding, max = 12): string => `${f.case_ids.slice(0, max).join(', ')}${f.case_ids.length > max ? `, … and ${f.case_ids.length - max} more` : ''}`;
const seenIn = (f: RecordShapeFinding): string => `${plural(f.cases, 'case')}, ${plural(f.records, 'record')}`;
/** `gate record: tool_call_id absent`. */
const headline = (f: RecordShapeFinding): string => `${f.field} ${f.difference}`;

const INTRO = 'The spec shows a canonical gate record (§4.3) and a Turn layout (§6.1), but no rule requires those shapes: the rules about what the entity sees are checked on the requests. Each kind of difference below is listed once for the run; it fails no case, no rule and no level (docs/reports.md, "Record shapes").';

/** What the section says when there is no finding: whether any loom was read at all. */
const noFinding = (report: Report): string =>
  report.cases.some((c) => c.status === 'pass' || c.status === 'fail' || c.status === 'xfail') ? 'No record of the looms read differs from the shapes the spec shows.' : 'No case ran to a verdict, so no loom was read.';

/** The findings of a report; undefined for a report written before they existed. */
const findingsOf = (report: Report): RecordShapeFinding[] | undefined => report.record_shapes;

/** One line per finding, for the console; nothing when the records match. */
export function recordShapeConsoleLines(report: Report): string[] {
  const findings = findingsOf(report) ?? [];
  if (findings.length === 0) return [];
  return [`record shapes: ${plural(findings.length, 'difference')} from the spec's shapes (${RECORD_SHAPE_LEVEL_NOTE}; report.md, "Record shapes")`, ...findings.map((f) => `  ${headline(f)} in ${seenIn(f)}; e.g. ${f.example.case}: ${f.example.path}`)];
}

/** The report.md section: a table of the findings, then the cases of each. */
export function recordShapeMarkdownSection(report: Report): string[] {
  const findings = findingsOf(report);
  if (findings === undefined) return [];
  const out = ['## Record shapes', '', INTRO, ''];
  if (findings.length === 0) return [...out, noFinding(report)];
  out.push('| record: field | differs | the spec shows | level | cases | records | first example |', '| --- | --- | --- | --- | --- | --- | --- |');
  for (const f of findings) out.push(`| ${f.field} | ${f.difference} | ${f.spec_shows} (${f.section}) | ${f.level} | ${f.cases} | ${f.records} | ${f.example.case}: \`${f.example.path}\` |`);
  out.push('');
  for (const f of findings) out.push(`- ${f.field}, ${f.difference}: ${casesOf(f)}`);
  return out;
}

/** The report.html section; `html` escapes text and `caseLink` links a case id. */
export function recordShapeHtmlSection(report: Report, html: (text: string | number) => string, caseLink: (id: string) => string): string {
  const findings = findingsOf(report) ?? [];
  const out = ['<section id="record-shapes">', '<h2>Record shapes</h2>', `<p>${html(INTRO)}</p>`];
  if (findingsOf(report) === undefined) return [...out, '<p>This report was written before record shapes were recorded.</p>', '</section>'].join('\n');
  if (findings.length === 0) return [...out, `<p>${html(noFinding(report))}</p>`, '</section>'].join('\n');
  out.push(
    '<table><thead><tr><th>record: field</th><th>differs</th><th>the spec shows</th><th>level</th><th class="num">cases</th><th class="num">records</th><th>first example</th></tr></thead><tbody>',
    ...findings.map(
      (f) =>
        `<tr id="record-shape-${html(f.kind)}"><td><code>${html(f.field)}</code></td><td>${html(f.difference)}</td><td>${html(f.spec_shows)} <span class="muted">(${html(f.section)})</span></td><td><span class="muted">${html(f.level)}</span></td><td class="num">${f.cases}</td><td class="num">${f.records}</td><td>${caseLink(f.example.case)}: <code>${html(f.example.path)}</code></td></tr>`,
    ),
    '</tbody></table>',
    '<ul>',
    ...findings.map((f) => `<li><code>${html(f.field)}</code> ${html(f.difference)}: ${f.case_ids.slice(0, 12).map(caseLink).join(', ')}${f.case_ids.length > 12 ? ` <span class="muted">and ${f.case_ids.length - 12} more</span>` : ''}</li>`),
    '</ul>',
    '</section>',
  );
  return out.join('\n');
}

/** The job summary's lines (`mdText` and `mdCode` escape Markdown); nothing when the records match. */
export function recordShapeSummaryLines(report: Report, mdText: (text: string) => string, mdCode: (text: string) => string): string[] {
  const findings = findingsOf(report) ?? [];
  if (findings.length === 0) return [];
  return [
    `### Record shapes: ${plural(findings.length, 'difference')} from the spec's shapes (informational, not counted)`,
    '',
    ...findings.map((f) => `- ${mdCode(f.field)} ${mdText(f.difference)}: ${mdText(seenIn(f))}, e.g. ${mdCode(f.example.case)}`),
    '',
  ];
}

/** One JUnit test per finding: it passes (it is no failure) and says what differs in its output. */
export interface RecordShapeTest {
  finding: RecordShapeFinding;
  name: string;
  /** The chapter of the spec section the shape is shown in (4 for §4.3, 6 for §6.1). */
  chapter: number;
  output: string;
}

export function recordShapeJUnitTests(report: Report): RecordShapeTest[] {
  return (findingsOf(report) ?? []).map((f) => ({
    finding: f,
    name: `record shape: ${headline(f)}`,
    chapter: Number(/§(\d+)/.exec(f.section)?.[1] ?? 0),
    output: [`Record shape (${RECORD_SHAPE_LEVEL_NOTE}).`, `${f.field}: ${f.difference}.`, `The spec shows ${f.spec_shows} (${f.section}).`, `Seen in ${seenIn(f)}; first in ${f.example.case} at ${f.example.path}.`, `Cases: ${f.case_ids.join(', ')}`].join('\n'),
  }));
}

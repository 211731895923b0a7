/**
 * The rule-by-implementation view: several reports side by side, one row per catalog rule, one column
 * per report, each cell saying how that implementation fares on that rule. As data (`buildMatrix`),
 * Markdown and one self-contained HTML page (inline CSS, no scripts, nothing loaded).
 *
 * A cell's status is the report's own roll-up of the rule (report.ts). Its count is always the same
 * fraction, so cells compare at a glance: how many of the rule's cases and properties that ran passed
 * (`6/7`); what else happened is named beside it (`1 fail`, `2 errored`, `3 skipped`). A rule that
 * passed wherever it ran is `pass` even when some of its cases were skipped for a feature the
 * implementation does not declare: nothing it did was wrong, and the skip is shown as a note.
 *
 * | cell | meaning |
 * | --- | --- |
 * | pass | every case and property of the rule that ran passed (some may have been skipped) |
 * | fail | a case or property shows the rule broken |
 * | errored | one of them errored, none failed: not judged in full |
 * | xfail | broken only in cases listed as expected failures |
 * | skip | every case and property of the rule was skipped |
 * | untested | nothing in the run checks the rule |
 *
 * A row is marked as differing only when the implementations' verdicts on the rule really differ:
 * one passes it and another breaks it (fail or xfail). Skips, errors and untested cells say nothing
 * about the rule, so they never make a difference on their own.
 */
import { loadCatalog, type Catalog } from '../../spec/catalog.ts';
import type { Report } from './report.ts';
import { anchor, html, implementationName, LEVELS, mdText } from './format.ts';
import { profileText } from './profile.ts';
import { documentHead, STYLE } from './html.ts';

export type CellStatus = 'pass' | 'fail' | 'errored' | 'xfail' | 'skip' | 'untested';

export interface MatrixCell {
  status: CellStatus;
  /** Cases and properties that list the rule or show it broken. */
  total: number;
  passed: number;
  /** Those that show the rule broken. */
  failed: number;
  skipped: number;
  errored: number;
}

export interface MatrixColumn {
  label: string;
  implementation: string;
  started_at: string;
  /** The profile the report judged, in words (profile.ts `profileText`). */
  profile: string;
  verdict: Record<(typeof LEVELS)[number], string>;
  /** How many rules are in each cell status. */
  counts: Record<CellStatus, number>;
}

export interface MatrixRow {
  id: string;
  title: string;
  level: string;
  chapter: number;
  summary: string;
  cells: MatrixCell[];
  /** One column passes the rule and another shows it broken (fail or xfail). */
  differs: boolean;
}

export interface Matrix {
  columns: MatrixColumn[];
  rows: MatrixRow[];
}

export interface MatrixInput {
  report: Report;
  /** Column heading; default the implementation's name and version, told apart when two are alike (see `source`). */
  label?: string;
  /**
   * Where the report came from (its file or folder), to tell apart two reports of the same
   * implementation and version: their columns are named by the folder that holds report.json, else
   * by the time each run started.
   */
  source?: string;
}

export interface MatrixOptions {
  catalog?: Catalog;
}

export interface MatrixRenderOptions {
  /** Only the rows where the implementations differ. */
  onlyDifferences?: boolean;
}

const STATUSES: CellStatus[] = ['pass', 'fail', 'errored', 'xfail', 'skip', 'untested'];

/** The file name the CLI may use for the HTML matrix. */
export const MATRIX_HTML_FILE = 'matrix.html';

function cellOf(report: Report, ruleId: string): MatrixCell {
  const rule = report.rules.find((r) => r.id === ruleId);
  if (!rule) return { status: 'untested', total: 0, passed: 0, failed: 0, skipped: 0, errored: 0 };
  const caseIds = new Set([...rule.cases, ...rule.failed_by]);
  const propIds = new Set([...(rule.properties ?? []), ...(rule.failed_by_properties ?? [])]);
  const cases = report.cases.filter((c) => caseIds.has(c.id));
  const props = (report.properties ?? []).filter((p) => propIds.has(p.id));
  const failedCases = new Set(rule.failed_by);
  const failedProps = new Set(rule.failed_by_properties ?? []);
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  let errored = 0;
  for (const c of cases) {
    if (failedCases.has(c.id) && (c.status === 'fail' || c.status === 'xfail')) failed++;
    else if (c.status === 'pass') passed++;
    else if (c.status === 'skipped') skipped++;
    else if (c.status === 'errored') errored++;
    else if (c.status === 'fail' || c.status === 'xfail') passed++; // broken, but for other rules than this one
  }
  for (const p of props) {
    if (failedProps.has(p.id) && p.status === 'fail') failed++;
    else if (p.status === 'pass' || p.status === 'fail') passed++;
    else if (p.status === 'skipped') skipped++;
    else errored++;
  }
  const status: CellStatus = rule.status === 'skipped' ? 'skip' : rule.status;
  return { status, total: cases.length + props.length, passed, failed, skipped, errored };
}

/** Builds the matrix from reports, one column each, rows in catalog order. */
export function buildMatrix(inputs: readonly (MatrixInput | Report)[], options: MatrixOptions = {}): Matrix {
  const catalog = options.catalog ?? loadCatalog();
  const entries: MatrixInput[] = inputs.map((x) => ('report' in x ? x : { report: x }));
  const uniqueLabels = columnLabels(entries);
  const known = new Map(catalog.rules.map((r) => [r.id as string, r]));
  const ids: string[] = catalog.rules.map((r) => r.id);
  for (const e of entries) for (const r of e.report.rules) if (!ids.includes(r.id)) ids.push(r.id);
  const rows: MatrixRow[] = ids.map((id) => {
    const fromCatalog = known.get(id);
    const fromReport = entries.map((e) => e.report.rules.find((r) => r.id === id)).find((r) => r !== undefined);
    const cells = entries.map((e) => cellOf(e.report, id));
    return {
      id,
      title: fromCatalog?.title ?? fromReport?.title ?? '',
      level: fromCatalog?.level ?? fromReport?.level ?? '',
      chapter: fromCatalog?.chapter ?? fromReport?.chapter ?? 0,
      summary: fromCatalog?.summary ?? '',
      cells,
      differs: cells.some((c) => c.status === 'pass') && cells.some((c) => c.status === 'fail' || c.status === 'xfail'),
    };
  });
  const columns: MatrixColumn[] = entries.map((e, i) => {
    const counts = Object.fromEntries(STATUSES.map((s) => [s, 0])) as Record<CellStatus, number>;
    for (const row of rows) counts[row.cells[i]!.status]++;
    return {
      label: uniqueLabels[i]!,
      implementation: implementationName(e.report),
      started_at: e.report.environment.started_at,
      profile: profileText(e.report.profile),
      verdict: { MUST: e.report.verdict.MUST.status, SHOULD: e.report.verdict.SHOULD.status, MAY: e.report.verdict.MAY.status },
      counts,
    };
  });
  return { columns, rows };
}

/**
 * Column headings: the given label, else the implementation's name and version. Two alike are told
 * apart by the folder their report came from, else by when each run started (to the second), else
 * numbered.
 */
function columnLabels(entries: readonly MatrixInput[]): string[] {
  const names = entries.map((e) => e.label ?? implementationName(e.report));
  const alike = (i: number): boolean => entries[i]!.label === undefined && names.filter((n) => n === names[i]).length > 1;
  const folders = entries.map((e) => (e.source === undefined ? undefined : folderOf(e.source)));
  const times = entries.map((e) => e.report.environment.started_at.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC'));
  const distinct = (values: (string | undefined)[], i: number): boolean => values[i] !== undefined && names.every((n, j) => j === i || n !== names[i] || values[j] !== values[i]);
  const numbered = new Map<string, number>();
  return names.map((name, i) => {
    if (!alike(i)) return name;
    if (distinct(folders, i)) return `${name} (${folders[i]})`;
    if (distinct(times, i)) return `${name} (${times[i]})`;
    const n = (numbered.get(name) ?? 0) + 1;
    numbered.set(name, n);
    return `${name} (#${n})`;
  });
}

/** The folder a report is in (`runs/v2` for `runs/v2/report.json`), or the path itself when it names no .json file. */
function folderOf(source: string): string {
  const parts = source.split(/[\\/]+/).filter(Boolean);
  if (parts.length > 1 && /\.json$/i.test(parts[parts.length - 1]!)) parts.pop();
  return parts.slice(-2).join('/') || source;
}

/**
 * `pass 7/7`, `pass 4/4 · 3 skipped`, `fail 6/7 · 1 fail`, `errored 5/7 · 2 errored`, `skip · 3 skipped`:
 * the status, how many of the rule's cases and properties that ran passed, then what else happened.
 */
export function cellText(cell: MatrixCell): string {
  if (cell.status === 'untested') return 'untested';
  const ran = cell.total - cell.skipped;
  const notes = [
    cell.failed > 0 ? `${cell.failed} ${cell.status === 'xfail' ? 'xfail' : 'fail'}` : '',
    cell.errored > 0 ? `${cell.errored} errored` : '',
    cell.skipped > 0 ? `${cell.skipped} skipped` : '',
  ].filter(Boolean);
  return [ran > 0 ? `${cell.status} ${cell.passed}/${ran}` : cell.status, ...notes].join(' · ');
}

const MARK: Record<CellStatus, string> = { pass: '✅', fail: '❌', errored: '💥', xfail: '⚠️', skip: '⏭️', untested: '·' };

/** What the cells and counts mean, under each table. */
const LEGEND =
  'n/m: of the m cases and properties of the rule that ran (skipped ones not counted), n passed · pass: all that ran passed (skipped ones are noted, not held against it) · fail / xfail: some show the rule broken (xfail: only in expected failures) · errored: one errored, none failed · skip: all were skipped · untested: nothing checks it · ≠: one implementation passes the rule and another breaks it.';

/** The matrix as a Markdown table, rules down, implementations across, with a verdict row on top. */
export function renderMatrixMarkdown(matrix: Matrix, options: MatrixRenderOptions = {}): string {
  const cols = matrix.columns;
  const rows = options.onlyDifferences ? matrix.rows.filter((r) => r.differs) : matrix.rows;
  const out: string[] = ['## Conformance matrix', ''];
  out.push(`| rule | level | ${cols.map((c) => mdText(c.label)).join(' | ')} |`, `| --- | --- |${cols.map(() => ' --- |').join('')}`);
  for (const level of LEVELS) out.push(`| **${level} verdict** | | ${cols.map((c) => (c.verdict[level] === 'fail' ? '**fail**' : c.verdict[level])).join(' | ')} |`);
  out.push(`| **profile** | | ${cols.map((c) => mdText(c.profile)).join(' | ')} |`);
  for (const r of rows) out.push(`| ${r.id} ${mdText(r.title)}${r.differs ? ' ≠' : ''} | ${r.level} | ${r.cells.map((cell) => `${MARK[cell.status]} ${cellText(cell)}`).join(' | ')} |`);
  out.push('');
  const totals = cols.map((c) => `${mdText(c.label)}: ${STATUSES.filter((s) => c.counts[s] > 0).map((s) => `${c.counts[s]} ${s}`).join(', ')}`);
  out.push(`Rules per status — ${totals.join('; ')}.`);
  if (options.onlyDifferences) out.push('', `Only the ${rows.length} rules where one implementation passes and another breaks the rule are shown (of ${matrix.rows.length}).`);
  out.push('', LEGEND, '');
  return out.join('\n');
}

/** The matrix as a self-contained HTML page. */
export function renderMatrixHtml(matrix: Matrix, options: MatrixRenderOptions = {}): string {
  const cols = matrix.columns;
  const rows = options.onlyDifferences ? matrix.rows.filter((r) => r.differs) : matrix.rows;
  const head = `<tr><th>rule</th><th>level</th>${cols.map((c) => `<th>${html(c.label)}<br><span class="muted">${html(c.started_at)}</span></th>`).join('')}</tr>`;
  const verdicts = [
    ...LEVELS.map((level) => `<tr><th scope="row" colspan="2">${level} verdict</th>${cols.map((c) => `<td><span class="badge s-${html(c.verdict[level])}">${html(c.verdict[level])}</span></td>`).join('')}</tr>`),
    `<tr><th scope="row" colspan="2">profile</th>${cols.map((c) => `<td>${html(c.profile)}</td>`).join('')}</tr>`,
  ];
  const body = rows.map((r) => {
    const cells = r.cells.map((cell) => {
      const detail = `of ${cell.total} cases and properties: ${cell.passed} passed, ${cell.failed} broken, ${cell.errored} errored, ${cell.skipped} skipped`;
      return `<td class="s-${cell.status}" title="${html(detail)}">${html(cellText(cell))}</td>`;
    });
    return `<tr id="${anchor('rule', r.id)}"${r.differs ? ' class="differs"' : ''}><th scope="row"><a href="#${anchor('rule', r.id)}">${html(r.id)}</a>${r.differs ? ' <span class="muted" title="the implementations differ">≠</span>' : ''}<br><span class="rule-title">${html(r.title)}</span>${r.summary ? `<br><span class="muted summary">${html(r.summary)}</span>` : ''}</th><td>${html(r.level)}</td>${cells.join('')}</tr>`;
  });
  const totals = cols.map((c) => `<li><strong>${html(c.label)}</strong>${c.label !== c.implementation ? ` (${html(c.implementation)})` : ''}: ${STATUSES.filter((s) => c.counts[s] > 0).map((s) => `<span class="badge s-${s}">${c.counts[s]} ${s}</span>`).join(' ')}</li>`);
  return [
    ...documentHead(`Cantrip conformance matrix: ${cols.map((c) => c.label).join(', ')}`, `${STYLE}
td.s-pass, td.s-fail, td.s-errored, td.s-xfail, td.s-skip, td.s-untested { font-weight: 600; white-space: nowrap; }
tr.differs > th { border-left: 4px solid var(--warn); }
.summary { font-weight: normal; font-size: .9em; }
th .rule-title { font-weight: 600; }
`),
    '<body>',
    '<h1>Cantrip conformance matrix</h1>',
    `<p>${cols.length} implementations, ${matrix.rows.length} rules${options.onlyDifferences ? `; only the ${rows.length} rules where one passes and another breaks the rule are shown` : `; ${matrix.rows.filter((r) => r.differs).length} rules where one passes and another breaks the rule (marked ≠)`}.</p>`,
    `<ul>${totals.join('')}</ul>`,
    '<table>',
    `<thead>${head}</thead>`,
    `<tbody>${verdicts.join('')}${body.join('')}</tbody>`,
    '</table>',
    `<p class="muted">${html(LEGEND)} Hover a cell for its counts.</p>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

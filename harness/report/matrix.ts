/**
 * The rule-by-implementation view: several reports side by side, one row per catalog rule, one column
 * per report, each cell saying how that implementation fares on that rule. As data (`buildMatrix`),
 * Markdown and one self-contained HTML page (inline CSS, no scripts, nothing loaded).
 *
 * A cell's status comes from the report's own roll-up of the rule (report.ts), with one refinement:
 * a rule that passes where it ran but some of whose cases or properties were skipped (the
 * implementation does not declare a feature or ward they need) is `partial` rather than `pass`.
 *
 * | cell | meaning |
 * | --- | --- |
 * | pass | every case and property of the rule that ran passed, and none was skipped |
 * | partial | those that ran passed, but some were skipped |
 * | fail | a case or property shows the rule broken |
 * | errored | one of them errored, none failed |
 * | xfail | broken only in cases listed as expected failures |
 * | skip | every case and property of the rule was skipped |
 * | untested | nothing in the run checks the rule |
 */
import { loadCatalog, type Catalog } from '../../spec/catalog.ts';
import type { Report } from './report.ts';
import { anchor, html, implementationName, LEVELS, mdText } from './format.ts';
import { documentHead, STYLE } from './html.ts';

export type CellStatus = 'pass' | 'partial' | 'fail' | 'errored' | 'xfail' | 'skip' | 'untested';

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
  /** The columns do not all have the same status. */
  differs: boolean;
}

export interface Matrix {
  columns: MatrixColumn[];
  rows: MatrixRow[];
}

export interface MatrixInput {
  report: Report;
  /** Column heading; default the implementation's name and version (numbered when two are alike). */
  label?: string;
}

export interface MatrixOptions {
  catalog?: Catalog;
}

export interface MatrixRenderOptions {
  /** Only the rows where the implementations differ. */
  onlyDifferences?: boolean;
}

const STATUSES: CellStatus[] = ['pass', 'partial', 'fail', 'errored', 'xfail', 'skip', 'untested'];

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
  const status: CellStatus =
    rule.status === 'pass' ? (skipped > 0 ? 'partial' : 'pass') : rule.status === 'skipped' ? 'skip' : rule.status;
  return { status, total: cases.length + props.length, passed, failed, skipped, errored };
}

/** Builds the matrix from reports, one column each, rows in catalog order. */
export function buildMatrix(inputs: readonly (MatrixInput | Report)[], options: MatrixOptions = {}): Matrix {
  const catalog = options.catalog ?? loadCatalog();
  const entries: MatrixInput[] = inputs.map((x) => ('report' in x ? x : { report: x }));
  const labels = entries.map((e) => e.label ?? implementationName(e.report));
  const seen = new Map<string, number>();
  for (const l of labels) seen.set(l, (seen.get(l) ?? 0) + 1);
  const numbered = new Map<string, number>();
  const uniqueLabels = labels.map((l, i) => {
    if ((seen.get(l) ?? 0) < 2 || entries[i]!.label !== undefined) return l;
    const n = (numbered.get(l) ?? 0) + 1;
    numbered.set(l, n);
    return `${l} (#${n})`;
  });
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
      differs: new Set(cells.map((c) => c.status)).size > 1,
    };
  });
  const columns: MatrixColumn[] = entries.map((e, i) => {
    const counts = Object.fromEntries(STATUSES.map((s) => [s, 0])) as Record<CellStatus, number>;
    for (const row of rows) counts[row.cells[i]!.status]++;
    return {
      label: uniqueLabels[i]!,
      implementation: implementationName(e.report),
      started_at: e.report.environment.started_at,
      verdict: { MUST: e.report.verdict.MUST.status, SHOULD: e.report.verdict.SHOULD.status, MAY: e.report.verdict.MAY.status },
      counts,
    };
  });
  return { columns, rows };
}

/** `pass`, `partial 3/5` (passed of all), `fail 1/4` (failed of all), `skip`, … */
export function cellText(cell: MatrixCell): string {
  switch (cell.status) {
    case 'pass':
      return cell.total > 0 ? `pass ${cell.passed}/${cell.total}` : 'pass';
    case 'partial':
      return `partial ${cell.passed}/${cell.total}`;
    case 'fail':
    case 'xfail':
      return `${cell.status} ${cell.failed}/${cell.total}`;
    case 'errored':
      return `errored ${cell.errored}/${cell.total}`;
    default:
      return cell.status;
  }
}

const MARK: Record<CellStatus, string> = { pass: '✅', partial: '🟡', fail: '❌', errored: '💥', xfail: '⚠️', skip: '⏭️', untested: '·' };

/** The matrix as a Markdown table, rules down, implementations across, with a verdict row on top. */
export function renderMatrixMarkdown(matrix: Matrix, options: MatrixRenderOptions = {}): string {
  const cols = matrix.columns;
  const rows = options.onlyDifferences ? matrix.rows.filter((r) => r.differs) : matrix.rows;
  const out: string[] = ['## Conformance matrix', ''];
  out.push(`| rule | level | ${cols.map((c) => mdText(c.label)).join(' | ')} |`, `| --- | --- |${cols.map(() => ' --- |').join('')}`);
  for (const level of LEVELS) out.push(`| **${level} verdict** | | ${cols.map((c) => (c.verdict[level] === 'fail' ? '**fail**' : c.verdict[level])).join(' | ')} |`);
  for (const r of rows) out.push(`| ${r.id} ${mdText(r.title)}${r.differs ? ' ≠' : ''} | ${r.level} | ${r.cells.map((cell) => `${MARK[cell.status]} ${cellText(cell)}`).join(' | ')} |`);
  out.push('');
  const totals = cols.map((c) => `${mdText(c.label)}: ${STATUSES.filter((s) => c.counts[s] > 0).map((s) => `${c.counts[s]} ${s}`).join(', ')}`);
  out.push(`Rules per status — ${totals.join('; ')}.`);
  if (options.onlyDifferences) out.push('', `Only the ${rows.length} rules where the implementations differ are shown (of ${matrix.rows.length}).`);
  out.push('', 'pass: all that ran passed · partial: all that ran passed, some skipped · fail n/m: n of m show the rule broken · skip: all skipped · untested: nothing checks it · ≠: the implementations differ.', '');
  return out.join('\n');
}

/** The matrix as a self-contained HTML page. */
export function renderMatrixHtml(matrix: Matrix, options: MatrixRenderOptions = {}): string {
  const cols = matrix.columns;
  const rows = options.onlyDifferences ? matrix.rows.filter((r) => r.differs) : matrix.rows;
  const head = `<tr><th>rule</th><th>level</th>${cols.map((c) => `<th>${html(c.label)}<br><span class="muted">${html(c.started_at)}</span></th>`).join('')}</tr>`;
  const verdicts = LEVELS.map((level) => `<tr><th scope="row" colspan="2">${level} verdict</th>${cols.map((c) => `<td><span class="badge s-${html(c.verdict[level])}">${html(c.verdict[level])}</span></td>`).join('')}</tr>`);
  const body = rows.map((r) => {
    const cells = r.cells.map((cell) => {
      const detail = `${cell.passed} passed, ${cell.failed} broken, ${cell.skipped} skipped, ${cell.errored} errored of ${cell.total}`;
      return `<td class="s-${cell.status}" title="${html(detail)}">${html(cellText(cell))}</td>`;
    });
    return `<tr id="${anchor('rule', r.id)}"${r.differs ? ' class="differs"' : ''}><th scope="row"><a href="#${anchor('rule', r.id)}">${html(r.id)}</a>${r.differs ? ' <span class="muted" title="the implementations differ">≠</span>' : ''}<br><span class="rule-title">${html(r.title)}</span>${r.summary ? `<br><span class="muted summary">${html(r.summary)}</span>` : ''}</th><td>${html(r.level)}</td>${cells.join('')}</tr>`;
  });
  const totals = cols.map((c) => `<li><strong>${html(c.label)}</strong>${c.label !== c.implementation ? ` (${html(c.implementation)})` : ''}: ${STATUSES.filter((s) => c.counts[s] > 0).map((s) => `<span class="badge s-${s}">${c.counts[s]} ${s}</span>`).join(' ')}</li>`);
  return [
    ...documentHead(`Cantrip conformance matrix: ${cols.map((c) => c.label).join(', ')}`, `${STYLE}
td.s-pass, td.s-partial, td.s-fail, td.s-errored, td.s-xfail, td.s-skip, td.s-untested { font-weight: 600; white-space: nowrap; }
tr.differs > th { border-left: 4px solid var(--warn); }
.summary { font-weight: normal; font-size: .9em; }
th .rule-title { font-weight: 600; }
`),
    '<body>',
    '<h1>Cantrip conformance matrix</h1>',
    `<p>${cols.length} implementations, ${matrix.rows.length} rules${options.onlyDifferences ? `; only the ${rows.length} rules where they differ are shown` : `; ${matrix.rows.filter((r) => r.differs).length} rules where they differ (marked ≠)`}.</p>`,
    `<ul>${totals.join('')}</ul>`,
    '<table>',
    `<thead>${head}</thead>`,
    `<tbody>${verdicts.join('')}${body.join('')}</tbody>`,
    '</table>',
    '<p class="muted">pass: every case and property of the rule that ran passed · partial: those that ran passed, some were skipped · fail n/m: n of m show the rule broken · errored · xfail: broken only in expected failures · skip: all skipped · untested: nothing in the run checks the rule. Hover a cell for its counts.</p>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

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
 *
 * The columns may have judged different drafts (one implementation under 0.1.0, 0.2.0 and 0.3.1, say).
 * A row is then one rule across drafts, found through the registry's map of rule ids: `LLM-4 /
 * CRYSTAL-4` is one row, with each column's cell read under that column's own id. A rule that a
 * column's draft does not have (new in a later draft, or removed) is `not in this draft` there, which
 * is neither a pass nor a failure. Rows follow the newest draft's catalog; a rule only older drafts
 * have comes after the rule it follows in the newest of them.
 */
import { catalogOf, draftVersions, ruleCounterpart, type DraftCatalog, type DraftRule } from '../../spec/drafts.ts';
import type { Report } from './report.ts';
import { draftName, draftOfReport, type ReportDraft } from './draft.ts';
import { anchor, html, implementationName, LEVELS, mdText } from './format.ts';
import { profileText } from './profile.ts';
import { documentHead, STYLE } from './html.ts';

/** `not-in-draft`: the column's draft has no such rule (it is new in a later draft, or was removed). */
export type CellStatus = 'pass' | 'fail' | 'errored' | 'xfail' | 'skip' | 'untested' | 'not-in-draft';

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
  /** The draft the column's report judged. */
  draft: ReportDraft;
  started_at: string;
  /** The profile the report judged, in words (profile.ts `profileText`). */
  profile: string;
  verdict: Record<(typeof LEVELS)[number], string>;
  /** How many rules are in each cell status. */
  counts: Record<CellStatus, number>;
}

export interface MatrixRow {
  /** The rule's id in the newest draft of the matrix that has it (also its anchor in the HTML page). */
  id: string;
  /** Its id in each draft of the matrix, by version; absent for a draft without the rule. */
  ids: Record<string, string>;
  /** Every id it has in the matrix's drafts, newest first, `LLM-4 / CRYSTAL-4`; just the id when all agree. */
  label: string;
  title: string;
  /** Its strongest level in the newest draft that has it. */
  level: string;
  /** Its strongest level in each draft that has it, by version. */
  levels: Record<string, string>;
  chapter: number;
  summary: string;
  /** How the rule changed between the matrix's drafts beyond its name, e.g. `reversed at 0.2.0`, `level-changed at 0.3.1`. */
  changes: string[];
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

export interface MatrixRenderOptions {
  /** Only the rows where the implementations differ. */
  onlyDifferences?: boolean;
}

const STATUSES: CellStatus[] = ['pass', 'fail', 'errored', 'xfail', 'skip', 'untested', 'not-in-draft'];

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

const NOT_IN_DRAFT: MatrixCell = { status: 'not-in-draft', total: 0, passed: 0, failed: 0, skipped: 0, errored: 0 };

/** Kinds of change that say a rule itself changed between two drafts, not only its name or words. */
const SUBSTANTIVE = new Set(['amended', 'level-changed', 'reversed']);

/** One rule across the matrix's drafts while the rows are being laid out: its id in each draft. */
interface Lineage {
  ids: Map<string, string>;
  /** Where the title, level and summary come from (the newest draft's rule), when a catalog has it. */
  rule?: DraftRule;
  /** A rule only a report lists, in no catalog the kit knows: its report's own roll-up. */
  reported?: Report['rules'][number];
}

/**
 * The rows' rules: one lineage per rule across the given drafts (versions the registry knows, oldest
 * first), in the newest draft's catalog order, with a rule only older drafts have placed after the rule
 * it follows in the newest of them.
 */
function lineages(versions: readonly string[]): Lineage[] {
  const rows: Lineage[] = [];
  const byId = new Map<string, Lineage>();
  const key = (version: string, id: string): string => `${version} ${id}`;
  const done: string[] = [];
  for (const version of [...versions].reverse()) {
    const catalog: DraftCatalog = catalogOf(version);
    let previous: Lineage | undefined;
    for (const rule of catalog.rules) {
      let row: Lineage | undefined;
      // The newest draft already laid out that continues this rule holds its row.
      for (const newer of done) {
        const id = ruleCounterpart(rule.id, version, newer).id;
        row = id === undefined ? undefined : byId.get(key(newer, id));
        if (row) break;
      }
      if (!row) {
        row = { ids: new Map(), rule };
        rows.splice(previous ? rows.indexOf(previous) + 1 : 0, 0, row);
      }
      row.ids.set(version, rule.id);
      byId.set(key(version, rule.id), row);
      previous = row;
    }
    done.unshift(version);
  }
  return rows;
}

/** What changed in a rule between consecutive drafts of the matrix, beyond its name: `reversed at 0.2.0`. */
function changesOf(ids: ReadonlyMap<string, string>, versions: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 1; i < versions.length; i++) {
    const [older, newer] = [versions[i - 1]!, versions[i]!];
    const id = ids.get(newer);
    if (id === undefined || !ids.has(older)) continue;
    const kinds = ruleCounterpart(id, newer, older).changes.filter((c) => SUBSTANTIVE.has(c));
    if (kinds.length > 0) out.push(`${kinds.join(', ')} at ${newer}`);
  }
  return out;
}

/** Builds the matrix from reports, one column each; rows are rules, mapped across the columns' drafts. */
export function buildMatrix(inputs: readonly (MatrixInput | Report)[]): Matrix {
  const entries: MatrixInput[] = inputs.map((x) => ('report' in x ? x : { report: x }));
  const drafts = entries.map((e) => draftOfReport(e.report));
  const registered = draftVersions();
  // The drafts this kit knows, oldest first; a report of a draft it does not know gets rows from its own rules only.
  const versions = registered.filter((v) => drafts.some((d) => d.version === v));
  const uniqueLabels = columnLabels(entries, new Set(drafts.map((d) => d.version)).size > 1);
  const laidOut = lineages(versions);
  // Rules a report lists that its draft's catalog does not have (or of a draft the kit does not know): rows of their own.
  entries.forEach((e, i) => {
    const version = drafts[i]!.version;
    for (const r of e.report.rules) {
      if (laidOut.some((row) => row.ids.get(version) === r.id)) continue;
      laidOut.push({ ids: new Map([[version, r.id]]), reported: r });
    }
  });
  const rows: MatrixRow[] = laidOut.map((lineage) => {
    const newestFirst = [...lineage.ids.keys()].sort((a, b) => registered.indexOf(b) - registered.indexOf(a));
    const id = lineage.ids.get(newestFirst[0]!)!;
    const labelIds = [...new Set(newestFirst.map((v) => lineage.ids.get(v)!))];
    const levels = Object.fromEntries(newestFirst.map((v) => [v, lineage.reported?.level ?? catalogOf(v).rules.find((r) => r.id === lineage.ids.get(v))!.level]));
    const cells = entries.map((e, i) => {
      const own = lineage.ids.get(drafts[i]!.version);
      return own === undefined ? NOT_IN_DRAFT : cellOf(e.report, own);
    });
    return {
      id,
      ids: Object.fromEntries(lineage.ids),
      label: labelIds.join(' / '),
      title: lineage.rule?.title ?? lineage.reported?.title ?? '',
      level: lineage.rule?.level ?? lineage.reported?.level ?? '',
      levels,
      chapter: lineage.rule?.chapter ?? lineage.reported?.chapter ?? 0,
      summary: lineage.rule?.summary ?? '',
      changes: lineage.reported ? [] : changesOf(lineage.ids, versions),
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
      draft: drafts[i]!,
      started_at: e.report.environment.started_at,
      profile: profileText(e.report.profile),
      verdict: { MUST: e.report.verdict.MUST.status, SHOULD: e.report.verdict.SHOULD.status, MAY: e.report.verdict.MAY.status },
      counts,
    };
  });
  return { columns, rows };
}

/**
 * Column headings: the given label, else the implementation's name and version, and the draft judged
 * when the matrix spans several (`miniature 0.1.0 @ 0.3.1`). Two alike are told apart by the folder
 * their report came from, else by when each run started (to the second), else numbered.
 */
function columnLabels(entries: readonly MatrixInput[], severalDrafts: boolean): string[] {
  const names = entries.map((e) => e.label ?? `${implementationName(e.report)}${severalDrafts ? ` @ ${draftOfReport(e.report).version}` : ''}`);
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
  if (cell.status === 'not-in-draft') return 'not in this draft';
  const ran = cell.total - cell.skipped;
  const notes = [
    cell.failed > 0 ? `${cell.failed} ${cell.status === 'xfail' ? 'xfail' : 'fail'}` : '',
    cell.errored > 0 ? `${cell.errored} errored` : '',
    cell.skipped > 0 ? `${cell.skipped} skipped` : '',
  ].filter(Boolean);
  return [ran > 0 ? `${cell.status} ${cell.passed}/${ran}` : cell.status, ...notes].join(' · ');
}

const MARK: Record<CellStatus, string> = { pass: '✅', fail: '❌', errored: '💥', xfail: '⚠️', skip: '⏭️', untested: '·', 'not-in-draft': '—' };

/** What the cells and counts mean, under each table. */
const LEGEND =
  'n/m: of the m cases and properties of the rule that ran (skipped ones not counted), n passed · pass: all that ran passed (skipped ones are noted, not held against it) · fail / xfail: some show the rule broken (xfail: only in expected failures) · errored: one errored, none failed · skip: all were skipped · untested: nothing checks it · not in this draft: the draft that column judged has no such rule (new in a later draft, or removed), so it is neither passed nor failed · ≠: one implementation passes the rule and another breaks it.';

/** What a row across drafts means, said once above the table. */
const ACROSS_DRAFTS =
  'The columns judged different drafts. Each row is one rule across them, found through the map of rule ids between drafts: a row headed `LLM-4 / CRYSTAL-4` is LLM-4 in the newer drafts and CRYSTAL-4 in the older, and each cell is read under its own draft\'s id. Where a rule changed between drafts beyond its name, the row says how (`reversed at 0.2.0`).';

/** Whether the columns judged more than one draft. */
const acrossDrafts = (matrix: Matrix): boolean => new Set(matrix.columns.map((c) => c.draft.version)).size > 1;

/** `SHOULD (MUST at 0.1.0)`: the row's level, and the older drafts' where they differ. */
function levelText(row: MatrixRow): string {
  const older = Object.entries(row.levels).filter(([, level]) => level !== row.level);
  return older.length === 0 ? row.level : `${row.level} (${older.map(([v, level]) => `${level} at ${v}`).join(', ')})`;
}

/** The row's heading text: its ids (`LLM-4 / CRYSTAL-4`), title, and what changed between the drafts. */
function rowHeading(row: MatrixRow): string {
  return `${row.label} ${row.title}${row.changes.length > 0 ? ` (${row.changes.join('; ')})` : ''}`;
}

/** The matrix as a Markdown table, rules down, implementations across, with a verdict row on top. */
export function renderMatrixMarkdown(matrix: Matrix, options: MatrixRenderOptions = {}): string {
  const cols = matrix.columns;
  const rows = options.onlyDifferences ? matrix.rows.filter((r) => r.differs) : matrix.rows;
  const out: string[] = ['## Conformance matrix', ''];
  if (acrossDrafts(matrix)) out.push(ACROSS_DRAFTS, '');
  out.push(`| rule | level | ${cols.map((c) => mdText(c.label)).join(' | ')} |`, `| --- | --- |${cols.map(() => ' --- |').join('')}`);
  out.push(`| **draft judged** | | ${cols.map((c) => mdText(draftName(c.draft))).join(' | ')} |`);
  for (const level of LEVELS) out.push(`| **${level} verdict** | | ${cols.map((c) => (c.verdict[level] === 'fail' ? '**fail**' : c.verdict[level])).join(' | ')} |`);
  out.push(`| **profile** | | ${cols.map((c) => mdText(c.profile)).join(' | ')} |`);
  for (const r of rows) out.push(`| ${mdText(rowHeading(r))}${r.differs ? ' ≠' : ''} | ${levelText(r)} | ${r.cells.map((cell) => `${MARK[cell.status]} ${cellText(cell)}`).join(' | ')} |`);
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
  const head = `<tr><th>rule</th><th>level</th>${cols.map((c) => `<th>${html(c.label)}<br>${html(draftName(c.draft))}<br><span class="muted">${html(c.started_at)}</span></th>`).join('')}</tr>`;
  const verdicts = [
    `<tr><th scope="row" colspan="2">draft judged</th>${cols.map((c) => `<td>${html(draftName(c.draft))} <span class="muted">(${html(c.draft.label)})</span></td>`).join('')}</tr>`,
    ...LEVELS.map((level) => `<tr><th scope="row" colspan="2">${level} verdict</th>${cols.map((c) => `<td><span class="badge s-${html(c.verdict[level])}">${html(c.verdict[level])}</span></td>`).join('')}</tr>`),
    `<tr><th scope="row" colspan="2">profile</th>${cols.map((c) => `<td>${html(c.profile)}</td>`).join('')}</tr>`,
  ];
  // A rule only a report lists may share its id with a catalog rule of another draft: ids stay unique.
  const used = new Set<string>();
  const rowAnchor = (r: MatrixRow): string => {
    let id = anchor('rule', r.id);
    for (let n = 2; used.has(id); n++) id = anchor('rule', `${r.id}~${n}`);
    used.add(id);
    return id;
  };
  const body = rows.map((r) => {
    const id = rowAnchor(r);
    const cells = r.cells.map((cell) => {
      const detail = `of ${cell.total} cases and properties: ${cell.passed} passed, ${cell.failed} broken, ${cell.errored} errored, ${cell.skipped} skipped`;
      return `<td class="s-${cell.status}" title="${html(detail)}">${html(cellText(cell))}</td>`;
    });
    const changed = r.changes.length > 0 ? `<br><span class="muted">${html(r.changes.join('; '))}</span>` : '';
    return `<tr id="${id}"${r.differs ? ' class="differs"' : ''}><th scope="row"><a href="#${id}">${html(r.label)}</a>${r.differs ? ' <span class="muted" title="the implementations differ">≠</span>' : ''}<br><span class="rule-title">${html(r.title)}</span>${changed}${r.summary ? `<br><span class="muted summary">${html(r.summary)}</span>` : ''}</th><td>${html(levelText(r))}</td>${cells.join('')}</tr>`;
  });
  const totals = cols.map((c) => `<li><strong>${html(c.label)}</strong>${c.label !== c.implementation ? ` (${html(c.implementation)})` : ''}: ${STATUSES.filter((s) => c.counts[s] > 0).map((s) => `<span class="badge s-${s}">${c.counts[s]} ${s}</span>`).join(' ')}</li>`);
  return [
    ...documentHead(`Cantrip conformance matrix: ${cols.map((c) => c.label).join(', ')}`, `${STYLE}
td.s-pass, td.s-fail, td.s-errored, td.s-xfail, td.s-skip, td.s-untested { font-weight: 600; white-space: nowrap; }
td.s-not-in-draft { color: var(--muted); font-style: italic; white-space: nowrap; }
tr.differs > th { border-left: 4px solid var(--warn); }
.summary { font-weight: normal; font-size: .9em; }
th .rule-title { font-weight: 600; }
`),
    '<body>',
    '<h1>Cantrip conformance matrix</h1>',
    ...(acrossDrafts(matrix) ? [`<p>${html(ACROSS_DRAFTS).replace(/`([^`]*)`/g, '<code>$1</code>')}</p>`] : []),
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

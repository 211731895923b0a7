/**
 * The front page: every implementation by draft, each cell the newest version's verdict per level and
 * what that verdict covers; the rules where implementations split and the rules nobody passes; and the
 * list of rules, each linking to its page. Readable without scripts; a small script sorts and filters.
 */
import { html, LEVELS, plural, type MatrixRow } from '../report/index.ts';
import type { SiteEntry } from './entries.ts';
import type { SiteModel } from './model.ts';
import { page, paths, statusBadge, TABLE_SCRIPT } from './page.ts';
import { anyLevelFails, coverageText, levelSummary, sortKey } from './verdicts.ts';

/** The levels of one report as a cell's lines, and what they cover. */
export function verdictCell(entry: SiteEntry): string {
  const levels = LEVELS.map((l) => {
    const s = levelSummary(entry.report, l);
    return `<span>${l} ${statusBadge(s.status)} ${html(s.text)}</span>`;
  }).join('');
  return `<div class="levels">${levels}</div><div class="muted">version ${html(entry.version)} · ${html(coverageText(entry.report))}</div>`;
}

/** Columns whose cell has one of `statuses`. */
const columnsWith = (row: MatrixRow, statuses: string[]): number[] => row.cells.flatMap((cell, i) => (statuses.includes(cell.status) ? [i] : []));

/** How many implementations named in a row of the signal tables before the rest are only counted (the rule page lists them all). */
export const NAMED_PER_SIGNAL = 6;

/**
 * Which columns pass a rule (or break it), as links to the implementations' pages: at most
 * {@link NAMED_PER_SIGNAL} named, the rest counted, so the front page stays small however many
 * implementations the site holds.
 */
function whoLinks(model: SiteModel, row: MatrixRow, statuses: string[], depth: number): string {
  const columns = columnsWith(row, statuses);
  if (columns.length === 0) return '<span class="muted">—</span>';
  const named = columns.slice(0, NAMED_PER_SIGNAL).map((i) => {
    const col = model.columns[i]!;
    return `<a href="${'../'.repeat(depth)}${paths.implementation(col.implementation.slug)}#draft-${html(col.entry.draft)}">${html(col.implementation.name)}</a> <span class="muted">@ ${html(col.entry.draft)}</span>`;
  });
  const rest = columns.length - named.length;
  return `${named.join(', ')}${rest > 0 ? ` and <a href="${'../'.repeat(depth)}${paths.rule(row.id)}">${rest} more</a>` : ''}`;
}

/** `MUST` when every draft agrees, else `MUST at 0.1.0, SHOULD at 0.3.1`. */
export function levelsText(row: MatrixRow): string {
  const levels = Object.entries(row.levels).reverse();
  return new Set(levels.map(([, l]) => l)).size <= 1 ? row.level : levels.map(([v, l]) => `${l} at ${v}`).join(', ');
}

function ruleLink(row: MatrixRow, depth = 0): string {
  return `<a href="${'../'.repeat(depth)}${paths.rule(row.id)}">${html(row.label)}</a>`;
}

function signalTable(model: SiteModel, rows: MatrixRow[], empty: string): string {
  if (rows.length === 0) return `<p class="muted">${html(empty)}</p>`;
  const body = rows.map((r) => `<tr><td>${ruleLink(r)}</td><td>${html(r.title)}</td><td>${html(levelsText(r))}</td><td>${whoLinks(model, r, ['pass'], 0)}</td><td>${whoLinks(model, r, ['fail', 'xfail'], 0)}</td></tr>`).join('\n');
  return `<table><thead><tr><th>rule</th><th>title</th><th>level</th><th>passes it</th><th>breaks it</th></tr></thead><tbody>\n${body}\n</tbody></table>`;
}

export function renderFrontPage(model: SiteModel, footer: string): string {
  const heads = model.drafts.map((d) => `<th data-sort>Cantrip ${html(d)}</th>`).join('');
  const rows = model.implementations.map((impl) => {
    const newest = impl.versions[impl.versions.length - 1]!;
    const cells = model.drafts.map((d) => {
      const entry = impl.latest.get(d);
      return entry ? `<td class="cell" data-key="${sortKey(entry.report)}">${verdictCell(entry)}</td>` : '<td class="cell muted" data-key="-1">not judged at this draft</td>';
    });
    const broken = [...impl.latest.values()].some((e) => anyLevelFails(e.report));
    return `<tr data-broken="${broken ? 'yes' : 'no'}"><td><a href="${paths.implementation(impl.slug)}">${html(impl.name)}</a></td><td data-key="${impl.versions.length}">${html(newest.version)}${impl.versions.length > 1 ? ` <span class="muted">(${impl.versions.length} versions)</span>` : ''}</td>${cells.join('')}</tr>`;
  });
  const ruleRows = model.matrix.rows.map((r) => {
    const count = (statuses: string[]): number => r.cells.filter((c) => statuses.includes(c.status)).length;
    const pass = count(['pass']);
    const fail = count(['fail', 'xfail']);
    const other = r.cells.length - pass - fail - count(['not-in-draft']);
    const mark = r.differs ? statusBadge('partial', 'split') : pass === 0 && fail > 0 ? statusBadge('fail', 'nobody passes') : '';
    return `<tr data-broken="${fail > 0 ? 'yes' : 'no'}"><td data-key="${r.chapter.toString().padStart(2, '0')}">${ruleLink(r)}</td><td>${html(r.title)}</td><td>${html(levelsText(r))}</td><td class="num">${pass}</td><td class="num">${fail}</td><td class="num">${other}</td><td>${mark}</td></tr>`;
  });
  const body = [
    `<h1>${html(model.title)}</h1>`,
    `<p>How ${plural(model.implementations.length, 'implementation')} of the Cantrip specification fare at the drafts they implement, from ${plural(model.reportCount, 'report')} written by <code>cantrip-conformance run</code>. Each cell is the newest version's verdict per level (cases passed of those that applied) and what it covers: the profile (<code>full</code>, or <code>core</code>/<code>partial</code> when cases were skipped for features the implementation does not declare), how many cases and properties were skipped, and how many of the draft's rules nothing exercised.</p>`,
    `<h2 id="implementations">Implementations by draft</h2>`,
    `<div class="filters" data-for="implementations-table" hidden><label>filter <input type="search" placeholder="name, version, status"></label><label><input type="checkbox"> only those failing a level</label></div>`,
    `<table id="implementations-table" class="sortable"><thead><tr><th data-sort>implementation</th><th data-sort>version</th>${heads}</tr></thead><tbody>`,
    ...rows,
    '</tbody></table>',
    `<h2 id="signals">Rules to look at</h2>`,
    `<p class="muted">A rule that implementations split on, or that nobody passes, is often one whose text leaves room for more than one reading. Each implementation is judged at its newest version.</p>`,
    `<h3 id="split">Where implementations split (${model.split.length})</h3>`,
    signalTable(model, model.split, 'No rule: wherever one implementation passes a rule, none breaks it.'),
    `<h3 id="nobody">That nobody passes (${model.nobody.length})</h3>`,
    signalTable(model, model.nobody, 'No rule: every rule that some implementation breaks, another passes.'),
    `<h2 id="rules">Rules</h2>`,
    `<p class="muted">Counted over the implementations' newest reports: how many pass each rule, break it, or did not judge it (skipped, errored, untested).</p>`,
    `<div class="filters" data-for="rules-table" hidden><label>filter <input type="search" placeholder="id, title, level"></label><label><input type="checkbox"> only rules someone breaks</label></div>`,
    `<table id="rules-table" class="sortable"><thead><tr><th data-sort>rule</th><th data-sort>title</th><th data-sort>level</th><th data-sort class="num">pass</th><th data-sort class="num">break</th><th data-sort class="num">not judged</th><th data-sort>signal</th></tr></thead><tbody>`,
    ...ruleRows,
    '</tbody></table>',
  ].join('\n');
  return page({ title: 'Implementations', siteTitle: model.title, depth: 0, script: TABLE_SCRIPT, footer }, body);
}

export { ruleLink, whoLinks };

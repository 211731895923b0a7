/**
 * A rule's page: the rule in the kit's words with its level at each draft (the catalogs of spec/), how
 * it changed between drafts, the cases that check it, each implementation's result on it with the
 * cases that showed it broken, and the places in the reference implementation that carry it.
 */
import { catalogOf, draftVersions } from '../../spec/drafts.ts';
import { cellText, html, plural, type MatrixRow } from '../report/index.ts';
import type { SiteModel } from './model.ts';
import { page, paths, statusBadge } from './page.ts';
import type { CodeMention } from './reference-code.ts';

/** The rule's catalog entry at each draft that has it, oldest first. */
function catalogEntries(row: MatrixRow): { draft: string; id: string; level: string; summary: string; section: string }[] {
  const known = draftVersions();
  return Object.entries(row.ids)
    .sort(([a], [b]) => known.indexOf(a) - known.indexOf(b))
    .flatMap(([draft, id]) => {
      if (!known.includes(draft)) return [];
      const rule = catalogOf(draft).rules.find((r) => r.id === id);
      return rule ? [{ draft, id, level: rule.level, summary: rule.summary, section: rule.section }] : [];
    });
}

/** The cases that check the rule, with their descriptions as the reports give them. */
function casesOf(model: SiteModel, row: MatrixRow): { id: string; description: string; level: string }[] {
  const found = new Map<string, { id: string; description: string; level: string }>();
  model.columns.forEach((col) => {
    const own = row.ids[col.entry.draft];
    const rule = own === undefined ? undefined : col.entry.report.rules.find((r) => r.id === own);
    for (const id of rule?.cases ?? []) {
      if (found.has(id)) continue;
      const c = col.entry.report.cases.find((x) => x.id === id);
      found.set(id, { id, description: c?.description ?? '', level: c?.level ?? '' });
    }
  });
  return [...found.values()].sort((a, b) => a.id.localeCompare(b.id));
}

export function renderRulePage(model: SiteModel, row: MatrixRow, mentions: Map<string, CodeMention[]>, footer: string): string {
  const entries = catalogEntries(row);
  const catalog = entries.map((e) => `<tr><td>${html(e.draft)}</td><td><code>${html(e.id)}</code></td><td>${html(e.level)}</td><td>§${html(e.section)}</td><td>${html(e.summary)}</td></tr>`).join('');
  const results = model.columns.map((col, i) => {
    const cell = row.cells[i]!;
    const own = row.ids[col.entry.draft];
    const rule = own === undefined ? undefined : col.entry.report.rules.find((r) => r.id === own);
    const broken = rule && rule.failed_by.length > 0 ? `<br><span class="muted">broken in ${rule.failed_by.map((c) => `<code>${html(c)}</code>`).join(', ')}</span>` : '';
    const status = cell.status === 'not-in-draft' ? 'skipped' : cell.status;
    // cellText starts with the status, which the badge already shows.
    const words = cellText(cell);
    const rest = words.startsWith(cell.status) ? words.slice(cell.status.length).replace(/^ · /, '').trim() : words;
    return `<tr data-broken="${cell.status === 'fail' || cell.status === 'xfail' ? 'yes' : 'no'}"><td><a href="../${paths.implementation(col.implementation.slug)}#${html(`draft-${col.entry.draft}`)}">${html(col.implementation.name)}</a></td><td>${html(col.entry.version)}</td><td>${html(col.entry.draft)}${own !== undefined && own !== row.id ? ` <span class="muted">(as ${html(own)})</span>` : ''}</td><td>${statusBadge(status, cell.status === 'not-in-draft' ? 'not in this draft' : cell.status)} ${html(cell.status === 'not-in-draft' ? '' : rest)}${broken}</td></tr>`;
  });
  const cases = casesOf(model, row);
  const caseList = cases.length > 0 ? `<ul>${cases.map((c) => `<li><code>${html(c.id)}</code> <span class="muted">${html(c.level)}</span> ${html(c.description)}</li>`).join('')}</ul>` : '<p class="muted">No case of these reports lists the rule.</p>';
  const ids = [...new Set(Object.values(row.ids))];
  const code = ids.flatMap((id) => (mentions.get(id) ?? []).map((m) => ({ ...m, id })));
  const source = model.settings.source_url?.replace(/\/+$/, '');
  const codeList =
    code.length > 0
      ? `<ul>${code.map((m) => `<li>${source ? `<a href="${html(`${source}/${m.file}#L${m.line}`)}"><code>${html(m.file)}:${m.line}</code></a>` : `<code>${html(m.file)}:${m.line}</code>`} <span class="muted">(names ${html(m.id)})</span></li>`).join('')}</ul>`
      : '<p class="muted">The reference names this rule nowhere in its code.</p>';
  const body = [
    `<h1>${html(row.label)} · ${html(row.title)}</h1>`,
    row.changes.length > 0 ? `<p>Changed between drafts: ${html(row.changes.join('; '))}.</p>` : '',
    `<h2>The rule at each draft</h2>`,
    `<p class="muted">In the kit's words (spec/rules*.yaml); the spec's text is the authority.</p>`,
    `<table><thead><tr><th>draft</th><th>id</th><th>level</th><th>section</th><th>what it asks</th></tr></thead><tbody>${catalog}</tbody></table>`,
    `<h2>Results</h2>`,
    `<p>${row.differs ? `${statusBadge('partial', 'split')} implementations split on this rule.` : ''}</p>`,
    `<table><thead><tr><th>implementation</th><th>version</th><th>draft</th><th>result</th></tr></thead><tbody>${results.join('')}</tbody></table>`,
    `<h2>Cases (${cases.length})</h2>`,
    caseList,
    `<h2>In the reference implementation</h2>`,
    codeList,
    `<p class="muted">${plural(code.length, 'place')} whose comments name ${html(ids.join(' or '))}.</p>`,
  ].join('\n');
  return page({ title: `${row.label} ${row.title}`, siteTitle: model.title, depth: 1, footer }, body);
}

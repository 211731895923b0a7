/**
 * An implementation's history at one draft, when the site holds several of its versions: the verdict
 * per level of each version, a small trend chart of the share passed per level (inline SVG, nothing
 * fetched), and what changed between consecutive versions as `cantrip-conformance diff` computes it:
 * cases newly failing, fixed, and failing for a different reason.
 */
import { diffReports, expectationLine, html, LEVELS, plural, type Change, type Report } from '../report/index.ts';
import type { SiteEntry } from './entries.ts';
import type { SiteImplementation } from './model.ts';
import { statusBadge } from './page.ts';
import type { RuleLinker } from './rule-links.ts';
import { levelSummary } from './verdicts.ts';

/** The versions judged at `draft`, oldest first. */
export function versionsAt(impl: SiteImplementation, draft: string): SiteEntry[] {
  return impl.versions.flatMap((v) => {
    const e = v.byDraft.get(draft);
    return e ? [e] : [];
  });
}

const WIDTH = 360;
const HEIGHT = 90;
const LINE_CLASS: Record<string, string> = { MUST: 'var(--fail)', SHOULD: 'var(--warn)', MAY: 'var(--link)' };

/** The share of applicable cases passed at a level, 0 to 1; undefined when none applied. */
function share(e: SiteEntry, level: (typeof LEVELS)[number]): number | undefined {
  const v = e.report.verdict[level];
  return v.applicable === 0 ? undefined : (v.pass + v.xfail) / v.applicable;
}

/** A line per level over the versions; the y axis runs from 0 to 100% passed. */
export function trendChart(entries: readonly SiteEntry[]): string {
  const step = entries.length > 1 ? (WIDTH - 40) / (entries.length - 1) : 0;
  const x = (i: number): number => 30 + i * step;
  const y = (s: number): number => 10 + (1 - s) * (HEIGHT - 25);
  const lines = LEVELS.map((level) => {
    const points = entries.flatMap((e, i) => {
      const s = share(e, level);
      return s === undefined ? [] : [`${x(i).toFixed(1)},${y(s).toFixed(1)}`];
    });
    if (points.length === 0) return '';
    return `<polyline fill="none" stroke="${LINE_CLASS[level]}" stroke-width="2" points="${points.join(' ')}"><title>${level}</title></polyline>`;
  }).join('');
  const labels = entries.map((e, i) => `<text x="${x(i).toFixed(1)}" y="${HEIGHT - 2}" text-anchor="middle">${html(e.version)}</text>`).join('');
  const legend = LEVELS.map((l, i) => `<text x="${WIDTH - 5}" y="${12 + i * 12}" text-anchor="end" style="fill:${LINE_CLASS[l]}">${l}</text>`).join('');
  const caption = entries.map((e) => `${e.version}: ${LEVELS.map((l) => `${l} ${levelSummary(e.report, l).text}`).join(', ')}`).join('; ');
  return `<svg class="trend" role="img" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}"><title>${html(`share of cases passed per level: ${caption}`)}</title><text x="2" y="14">100%</text><text x="2" y="${HEIGHT - 14}">0%</text>${lines}${labels}${legend}</svg>`;
}

/**
 * What went wrong in a case or property of `report`, in its own words (its first failed expectation,
 * driving problem or error), rather than the diff's cause keys, whose placeholders stand for what
 * varies between cases and mean nothing to a reader.
 */
export function ownFailureText(report: Report, change: Change): string {
  if (change.kind === 'property') {
    const p = (report.properties ?? []).find((x) => x.id === change.id);
    const f = p?.counterexample?.failures[0];
    return f ? expectationLine(f) : (p?.reason ?? p?.counterexample?.reason ?? '');
  }
  const c = report.cases.find((x) => x.id === change.id);
  if (!c) return '';
  const f = c.failures[0];
  return f ? expectationLine(f) : (c.problems[0] ?? c.reason ?? '');
}

function changeList(title: string, changes: readonly Change[], draft: string, ruleLink: RuleLinker, shownFrom: Report): string {
  if (changes.length === 0) return '';
  const items = changes.map((c) => {
    const text = ownFailureText(shownFrom, c);
    const causes = text !== '' ? `<br><span class="muted">${html(text.length > 400 ? `${text.slice(0, 400)}…` : text)}</span>` : '';
    return `<li><code>${html(c.id)}</code> ${c.kind === 'property' ? '(property) ' : ''}${c.rules.map((r) => ruleLink(r, draft)).join(' ')} ${statusBadge(c.from === 'absent' ? 'skipped' : c.from, c.from)} → ${statusBadge(c.to === 'absent' ? 'skipped' : c.to, c.to)}${causes}</li>`;
  });
  return `<h5>${html(title)} (${changes.length})</h5><ul>${items.join('')}</ul>`;
}

/** The history section of one draft; empty when the site holds one version there. */
export function historySection(impl: SiteImplementation, draft: string, ruleLink: RuleLinker): string {
  const entries = versionsAt(impl, draft);
  if (entries.length < 2) return '';
  const rows = entries.map((e) => `<tr><td>${html(e.version)}</td><td>${html(e.date)}</td>${LEVELS.map((l) => {
    const s = levelSummary(e.report, l);
    return `<td>${statusBadge(s.status)} ${html(s.text)}</td>`;
  }).join('')}</tr>`);
  const diffs: string[] = [];
  for (let i = 1; i < entries.length; i++) {
    const before = entries[i - 1]!;
    const after = entries[i]!;
    const diff = diffReports(before.report, after.report);
    const parts = [
      changeList('newly failing', diff.new_failures, draft, ruleLink, after.report),
      // A fixed case is told by what it did wrong before.
      changeList('fixed', diff.fixed, draft, ruleLink, before.report),
      changeList('failing for a different reason', diff.changed_reasons, draft, ruleLink, after.report),
    ].filter(Boolean);
    const moved = diff.verdict.map((v) => `${v.level} ${v.from} → ${v.to}`).join(', ');
    diffs.push(
      `<h4 id="${html(`diff-${draft}-${after.version}`)}">${html(before.version)} → ${html(after.version)}</h4>`,
      `<p>${moved === '' ? 'Verdicts unchanged.' : `Verdicts: ${html(moved)}.`} ${plural(diff.new_failures.length, 'case or property newly failing', 'cases or properties newly failing')}, ${diff.fixed.length} fixed, ${diff.changed_reasons.length} failing for a different reason.</p>`,
      ...(parts.length > 0 ? parts : ['<p class="muted">No case or property changed its result.</p>']),
    );
  }
  return [
    `<h3 id="${html(`history-${draft}`)}">History at ${html(draft)}</h3>`,
    trendChart(entries),
    `<table><thead><tr><th>version</th><th>date</th>${LEVELS.map((l) => `<th>${l}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`,
    ...diffs,
  ].join('\n');
}

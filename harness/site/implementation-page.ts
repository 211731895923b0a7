/**
 * An implementation's page: per draft, the newest version's verdict per level and what it covers, its
 * failures grouped by root cause with what was expected and what happened, what was skipped and why,
 * its badge (a shields.io endpoint) with the line that embeds it, and, when the site holds several
 * versions, its history.
 */
import { causeText, html, LEVELS, oneLine, plural, verdictDetail, type RootCause } from '../report/index.ts';
import type { SiteEntry } from './entries.ts';
import type { SiteImplementation, SiteModel } from './model.ts';
import { historySection } from './history.ts';
import { page, paths, statusBadge } from './page.ts';
import { ruleLinker, type RuleLinker } from './rule-links.ts';
import { levelSummary } from './verdicts.ts';
import { badgeEmbed } from './badges.ts';

/** Cases listed under a root cause before the rest are counted. */
const CASES_SHOWN = 12;
/** Longest expected or actual value shown. */
const VALUE_MAX = 400;

function rootCauseItem(cause: RootCause, draft: string, ruleLink: RuleLinker): string {
  const e = cause.example;
  const values =
    cause.kind === 'expectation' && e.path !== undefined
      ? `<dl class="facts"><dt>checked</dt><dd><code>${html(e.path)}</code> ${html(e.matcher ?? '')}</dd><dt>expected</dt><dd><code>${html(oneLine(e.expected, VALUE_MAX))}</code></dd><dt>actual</dt><dd><code>${html(e.actual === undefined ? '(nothing)' : oneLine(e.actual, VALUE_MAX))}</code></dd>${e.why ? `<dt>why</dt><dd>${html(e.why)}</dd>` : ''}</dl>`
      : e.detail !== undefined
        ? `<pre>${html(oneLine(e.detail, VALUE_MAX * 2).replace(/^"|"$/g, ''))}</pre>`
        : '';
  const shown = cause.cases.slice(0, CASES_SHOWN).map((c) => `<code>${html(c)}</code>`).join(', ');
  const more = cause.cases.length > CASES_SHOWN ? ` and ${cause.cases.length - CASES_SHOWN} more` : '';
  const rules = cause.rules.length > 0 ? cause.rules.map((r) => ruleLink(r, draft)).join(' ') : '<span class="muted">no rule</span>';
  return `<li><p><strong>${rules}</strong> · ${plural(cause.count, 'case')}${cause.section ? ` · §${html(cause.section)}` : ''}</p><p>${html(causeText(cause))}</p>${values}<p class="muted">seen in ${shown}${more}</p></li>`;
}

/** Skipped cases of one report grouped by their reason, most first. */
function skippedByReason(entry: SiteEntry): [string, number][] {
  const counts = new Map<string, number>();
  for (const c of entry.report.cases) if (c.status === 'skipped') counts.set(c.reason ?? '(no reason given)', (counts.get(c.reason ?? '(no reason given)') ?? 0) + 1);
  for (const p of entry.report.properties ?? []) if (p.status === 'skipped') counts.set(`property: ${p.reason ?? '(no reason given)'}`, (counts.get(`property: ${p.reason ?? '(no reason given)'}`) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]);
}

function draftSection(model: SiteModel, impl: SiteImplementation, draft: string): string {
  const entry = impl.latest.get(draft)!;
  const report = entry.report;
  const ruleLink = ruleLinker(model, 1);
  const levels = LEVELS.map((l) => {
    const s = levelSummary(report, l);
    return `<tr><th>${l}</th><td>${statusBadge(s.status)}</td><td>${html(verdictDetail(report, l))}</td></tr>`;
  }).join('');
  const causes = report.root_causes;
  const failing = causes.length > 0 ? `<ol class="problems">${causes.map((c) => rootCauseItem(c, draft, ruleLink)).join('\n')}</ol>` : '<p>No case failed or errored.</p>';
  const ambient = report.ambient_checks.filter((a) => a.status === 'fail');
  const ambientList = ambient.length > 0 ? `<h3>Checks run after every case that found a violation</h3><ul>${ambient.map((a) => `<li><code>${html(a.id)}</code> ${a.rules.map((r) => ruleLink(r, draft)).join(' ')}: ${plural(a.violated.length, 'case')}${a.findings[0] ? ` · <span class="muted">${html(oneLine(a.findings[0].example.detail, VALUE_MAX).replace(/^"|"$/g, ''))}</span>` : ''}</li>`).join('')}</ul>` : '';
  const skipped = skippedByReason(entry);
  const skippedList = skipped.length > 0 ? `<ul>${skipped.map(([reason, n]) => `<li>${n} × ${html(reason)}</li>`).join('')}</ul>` : '<p>Nothing was skipped.</p>';
  const p = report.profile;
  const notExercised = p.rules_not_exercised.length > 0 ? p.rules_not_exercised.map((r) => ruleLink(r, draft)).join(' ') : '<span class="muted">none</span>';
  return [
    `<section id="${html(`draft-${draft}`)}">`,
    `<h2>Cantrip ${html(draft)} · version ${html(entry.version)}</h2>`,
    `<p class="muted">judged ${html(report.environment.started_at)} · report <code>${html(entry.file)}</code></p>`,
    `<table><tbody>${levels}</tbody></table>`,
    `<dl class="facts"><dt>profile</dt><dd>${html(p.name)}</dd><dt>features declared</dt><dd>${p.features.length > 0 ? html(p.features.join(', ')) : 'none'}</dd><dt>not declared (cases skipped for them)</dt><dd>${p.undeclared.length > 0 ? html(p.undeclared.join(', ')) : 'none'}</dd><dt>rules not exercised</dt><dd>${notExercised}</dd></dl>`,
    `<h3>Failures by root cause (${causes.length})</h3>`,
    failing,
    ambientList,
    `<h3>Skipped, with the reasons</h3>`,
    skippedList,
    `<h3>Badge</h3>`,
    badgeEmbed(model, impl, entry),
    historySection(impl, draft, ruleLink),
    '</section>',
  ].join('\n');
}

export function renderImplementationPage(model: SiteModel, impl: SiteImplementation, footer: string): string {
  const drafts = model.drafts.filter((d) => impl.latest.has(d));
  const versions = impl.versions.map((v) => `<li>${html(v.version)} <span class="muted">${html(v.date)} · ${[...v.byDraft.keys()].map((d) => html(d)).join(', ')}</span></li>`).join('');
  const body = [
    `<h1>${html(impl.name)}</h1>`,
    `<nav><ul>${drafts.map((d) => `<li><a href="#${html(`draft-${d}`)}">Cantrip ${html(d)}</a></li>`).join('')}</ul></nav>`,
    `<h2>Versions on this site</h2><ul>${versions}</ul>`,
    ...drafts.map((d) => draftSection(model, impl, d)),
  ].join('\n');
  return page({ title: impl.name, siteTitle: model.title, depth: 1, footer }, body);
}


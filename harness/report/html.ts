/**
 * report.html: the report as one self-contained page. Inline CSS, no scripts, no fonts, images or
 * other files, and a Content-Security-Policy that forbids the page to load anything, so it opens the
 * same from a CI artifact, a mail attachment or a disk with no network.
 *
 * Sections: the verdict per level, chapters, the root-cause groups ("Problems"), the failing cases with
 * expected vs actual and the catalog summary of their rules, the properties with their reproducers, a
 * table of every rule (catalog summary, status, links to its cases and properties) and a table of every
 * case (links back to its rules and to its failure). Every id is `<kind>-<name>` (report-format.ts
 * `anchor`), so a link such as `report.html#rule-LOOP-3` or `#case-<case id>` can be shared.
 */
import type { Catalog } from '../../spec/catalog.ts';
import { exitCode, INCOMPLETE_EXIT, type Report } from './report.ts';
import { notExercisedText, profileText, skipReasons } from './profile.ts';
import { ambientHtmlSection } from './ambient-render.ts';
import { recordShapeHtmlSection } from './record-shapes-render.ts';
import { catalogOfReport, draftOfReport, judgedDraftName, outsideDraftNote } from './draft.ts';
import {
  actualText,
  caseNote,
  anchor,
  causeKeys,
  causeText,
  reasonLine,
  clipText,
  durationText,
  expectedText,
  html,
  implementationName,
  interruptedBy,
  LEVELS,
  plural,
  type ReportCase,
  type ReportProperty,
  type ReportRule,
} from './format.ts';

export interface HtmlOptions {
  /** The rule catalog for each rule's summary; default: the catalog of the draft the report judged. */
  catalog?: Catalog<string>;
  /** Longest value (expected, actual, detail) shown in full before it is cut. Default 2000. */
  maxValue?: number;
}

/** The file name the CLI writes next to report.json. */
export const HTML_FILE = 'report.html';

/** Forbids every fetch: only the inline style applies; no script, image, font, frame or connection. */
export const HTML_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

export const STYLE = `
:root { color-scheme: light dark; --fg: #1b1f24; --bg: #fff; --muted: #59636e; --line: #d1d9e0; --head: #f6f8fa;
  --pass: #1a7f37; --pass-bg: #dafbe1; --fail: #cf222e; --fail-bg: #ffebe9; --warn: #9a6700; --warn-bg: #fff8c5;
  --skip: #59636e; --skip-bg: #eff2f5; --link: #0969da; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9198a1; --line: #3d444d; --head: #151b23;
  --pass: #3fb950; --pass-bg: #12261e; --fail: #f85149; --fail-bg: #2d1214; --warn: #d29922; --warn-bg: #272115;
  --skip: #9198a1; --skip-bg: #1c2128; --link: #4493f8; } }
* { box-sizing: border-box; }
body { font: 14px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); margin: 0 auto; padding: 1rem 1.5rem 4rem; max-width: 88rem; }
h1 { font-size: 1.6rem; margin: .5rem 0; } h2 { font-size: 1.25rem; margin-top: 2.5rem; border-bottom: 1px solid var(--line); padding-bottom: .25rem; }
h3 { font-size: 1.05rem; margin: 1.5rem 0 .25rem; }
a { color: var(--link); text-decoration: none; } a:hover { text-decoration: underline; }
code, pre { font: 12.5px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { background: var(--head); border: 1px solid var(--line); border-radius: 6px; padding: .6rem .8rem; overflow-x: auto; white-space: pre-wrap; word-break: break-word; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0; }
th, td { border: 1px solid var(--line); padding: .3rem .5rem; text-align: left; vertical-align: top; }
th { background: var(--head); position: sticky; top: 0; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
nav ul { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: .25rem 1rem; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .1rem 1rem; margin: .5rem 0; }
dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; }
.badge { display: inline-block; border-radius: 1em; padding: 0 .6em; font-weight: 600; font-size: .85em; white-space: nowrap; }
.s-pass { color: var(--pass); background: var(--pass-bg); } .s-fail, .s-errored, .s-stale { color: var(--fail); background: var(--fail-bg); }
.s-xfail, .s-partial, .s-incomplete { color: var(--warn); background: var(--warn-bg); } .s-skipped, .s-skip, .s-untested, .s-no-cases { color: var(--skip); background: var(--skip-bg); }
.muted { color: var(--muted); }
.overall { font-size: 1.1rem; margin: .75rem 0; }
article.failure { border-left: 4px solid var(--fail); padding: .1rem 0 .1rem 1rem; margin: 1rem 0; }
article.failure.xfail { border-left-color: var(--warn); }
ul.rules { padding-left: 1.2rem; } ul.links { list-style: none; padding: 0; margin: 0; }
ol.problems > li { margin-bottom: 1rem; }
td.ids a { margin-right: .4rem; }
details > summary { cursor: pointer; color: var(--link); }
tr:target, article:target, li:target { outline: 2px solid var(--link); outline-offset: 2px; }
@media print { th { position: static; } details { display: block; } }
`;

interface Ctx {
  report: Report;
  /** Undefined when this kit does not know the report's draft: rules are then shown by title only. */
  catalog: Catalog<string> | undefined;
  summary: Map<string, string>;
  max: number;
  causeNumber: Map<string, number>;
  caseIds: Set<string>;
  propertyIds: Set<string>;
  ruleIds: Set<string>;
}

const badge = (status: string): string => `<span class="badge s-${html(status)}">${html(status)}</span>`;

/** A link to a case, a rule or a property when the page has it, else the plain name. */
function caseLink(ctx: Ctx, id: string): string {
  return ctx.caseIds.has(id) ? `<a href="#${anchor('case', id)}">${html(id)}</a>` : html(id);
}
function ruleLink(ctx: Ctx, id: string): string {
  return ctx.ruleIds.has(id) ? `<a href="#${anchor('rule', id)}">${html(id)}</a>` : html(id);
}
function propertyLink(ctx: Ctx, id: string): string {
  return ctx.propertyIds.has(id) ? `<a href="#${anchor('property', id)}">${html(id)}</a>` : html(id);
}
const list = (items: string[], none = '<span class="muted">—</span>'): string => (items.length > 0 ? items.join(' ') : none);

/** A value shown in full up to the limit, cut beyond it with a note. */
function value(ctx: Ctx, v: unknown): string {
  const text = v === undefined ? '(nothing)' : (JSON.stringify(v, null, 1) ?? String(v)).replace(/\n\s*/g, ' ');
  const cut = text.length > ctx.max;
  return `<code>${html(clipText(text, ctx.max))}</code>${cut ? ' <span class="muted">(cut; the full value is in report.json)</span>' : ''}`;
}

/** Renders the report as a self-contained HTML page. */
export function renderHtml(report: Report, options: HtmlOptions = {}): string {
  const catalog = options.catalog ?? catalogOfReport(report);
  const ctx: Ctx = {
    report,
    catalog,
    summary: new Map((catalog?.rules ?? []).map((r) => [r.id, r.summary])),
    max: options.maxValue ?? 2000,
    causeNumber: new Map(report.root_causes.map((c, i) => [c.key, i + 1])),
    caseIds: new Set(report.cases.map((c) => c.id)),
    propertyIds: new Set((report.properties ?? []).map((p) => p.id)),
    ruleIds: new Set(report.rules.map((r) => r.id)),
  };
  const title = `Cantrip conformance: ${implementationName(report)} against ${judgedDraftName(report)}`;
  const body = [header(ctx), nav(ctx), verdict(ctx), chapters(ctx), problems(ctx), ambientHtmlSection(ctx.report, html, (id) => ruleLink(ctx, id), (id) => caseLink(ctx, id)), recordShapeHtmlSection(ctx.report, html, (id) => caseLink(ctx, id)), failures(ctx), properties(ctx), rules(ctx), cases(ctx)];
  return [
    ...documentHead(title, STYLE),
    '<body>',
    ...body,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

function header(ctx: Ctx): string {
  const r = ctx.report;
  const impl = r.implementation;
  const env = r.environment;
  const seed = r.properties?.[0]?.seed;
  const facts: [string, string][] = [
    ['Draft judged', `${html(judgedDraftName(r))} <span class="muted">(the text labelled ${html(draftOfReport(r).label)}; rule ids, titles and levels are this draft's${html(outsideDraftNote(r))})</span>`],
    ['Implementation', `${html(impl.name)} ${html(impl.version)} <span class="muted">(declares spec ${html(impl.spec_version)}, protocol ${html(impl.protocol_version)})</span>`],
    ['Features', html(impl.features.join(', ') || 'none')],
    ...(impl.sandbox ? [['Sandbox', html(`${impl.sandbox.language} (tool ${impl.sandbox.tool}, argument ${impl.sandbox.argument})`)] as [string, string]] : []),
    ['Cases', `${html(env.case_file)}, spec ${html(r.spec_version)}, format ${html(r.format_version)}`],
    ['Filter', html(env.filter.join(' ') || 'none')],
    ['Run', `${html(env.started_at)}, ${html(durationText(r))}, Node ${html(env.node)} on ${html(env.platform)}/${html(env.arch)} (${html(env.cpus)} CPUs)`],
    ...(seed !== undefined ? [['Property seed', `${html(seed)} <span class="muted">(--seed ${html(seed)} repeats the scenarios)</span>`] as [string, string]] : []),
  ];
  const code = exitCode(r);
  const overall = code === 0 ? ['pass', 'meets every applicable MUST'] : code === INCOMPLETE_EXIT ? ['incomplete', 'failed no MUST case or property, but some errored or were interrupted, so MUST was not judged in full'] : ['fail', 'does not meet every applicable MUST'];
  const s = r.summary;
  return [
    '<header>',
    `<h1>Cantrip conformance report</h1>`,
    `<p class="overall">${html(implementationName(r))} against ${html(judgedDraftName(r))}: ${badge(overall[0]!)} ${html(overall[1]!)} (exit code ${code})${r.profile.name === 'full' ? '' : `, for the ${html(r.profile.name)} profile only (<a href="#profile">what was not checked</a>)`}</p>`,
    ...(interruptedBy(r) ? [`<p class="overall">${badge('incomplete')} The run was interrupted (${html(interruptedBy(r)!)}): this report is partial; the cases and properties that did not finish are errored, and the verdict is incomplete, not fail.</p>`] : []),
    `<p>${plural(s.total, 'case')}: ${s.pass} pass, ${s.fail} fail, ${s.errored} errored, ${s.xfail} expected failures, ${s.skipped} skipped${s.stale ? `, <strong>${s.stale} stale</strong>` : ''}.</p>`,
    '<dl class="facts">',
    ...facts.map(([k, v]) => `<dt>${html(k)}</dt><dd>${v}</dd>`),
    '</dl>',
    '</header>',
  ].join('\n');
}

function nav(ctx: Ctx): string {
  const r = ctx.report;
  const broken = r.cases.filter(isBroken).length;
  const items: [string, string][] = [
    ['verdict', 'Verdict'],
    ['chapters', 'Chapters'],
    ['problems', `Problems (${r.root_causes.length})`],
    ['ambient', `Ambient checks (${(r.ambient_checks ?? []).filter((c) => c.status === 'fail').length} violated)`],
    ['record-shapes', `Record shapes (${r.record_shapes?.length ?? 0})`],
    ['failures', `Failures (${broken})`],
    ['properties', `Properties (${r.properties?.length ?? 0})`],
    ['rules', `Rules (${r.rules.length})`],
    ['cases', `Cases (${r.cases.length})`],
  ];
  return `<nav><ul>${items.map(([id, label]) => `<li><a href="#${id}">${html(label)}</a></li>`).join('')}</ul></nav>`;
}

const isBroken = (c: ReportCase): boolean => c.status === 'fail' || c.status === 'errored' || c.status === 'xfail' || c.stale === true;

function verdict(ctx: Ctx): string {
  const r = ctx.report;
  const withProps = r.properties !== undefined;
  const rows = LEVELS.map((level) => {
    const v = r.verdict[level];
    const p = v.properties;
    const why = skipReasons(r.profile.skipped[level]);
    return `<tr><th scope="row">${level}</th><td>${badge(v.status)}</td><td class="num">${v.applicable}</td><td class="num">${v.pass}</td><td class="num">${v.fail}</td><td class="num">${v.errored}</td><td class="num">${v.xfail}</td><td class="num">${v.skipped}</td>${withProps ? `<td>${p ? html(`${p.pass} pass, ${p.fail} fail, ${p.errored} errored, ${p.skipped} skipped`) : ''}</td>` : ''}<td>${why ? html(why) : '<span class="muted">—</span>'}</td></tr>`;
  });
  const stale = r.stale.length > 0 ? `<p><strong>Stale expected failures</strong> (listed, but they pass; remove them from the list): ${r.stale.map((id) => caseLink(ctx, id)).join(', ')}</p>` : '';
  return [
    '<section id="verdict">',
    '<h2>Verdict</h2>',
    '<table><thead><tr><th>level</th><th>verdict</th><th class="num">applicable</th><th class="num">pass</th><th class="num">fail</th><th class="num">errored</th><th class="num">xfail</th><th class="num">skipped</th>' +
      `${withProps ? '<th>properties</th>' : ''}<th>skipped because</th></tr></thead>`,
    `<tbody>${rows.join('')}</tbody></table>`,
    '<p class="muted">A level fails when a case or property of it failed or an expected failure is stale; it is incomplete when none failed but one errored or did not finish; it passes when every applicable case passed or is an expected failure and every property that ran passed. Skipped cases are not applicable.</p>',
    stale,
    profileBlock(ctx),
    '</section>',
  ].join('\n');
}

/** What the verdict covers: the profile, and every rule nothing exercised, linked to its row. */
function profileBlock(ctx: Ctx): string {
  const p = ctx.report.profile;
  const ids = p.rules_not_exercised;
  return [
    `<div id="profile"><p><strong>Profile judged</strong>: ${html(profileText(p, Infinity))}. ${html(notExercisedText(p, 0, judgedDraftName(ctx.report)))}${ids.length > 0 ? ':' : '.'}</p>`,
    ...(ids.length > 0 ? [`<p class="ids">${ids.map((id) => ruleLink(ctx, id)).join(' ')}</p>`] : []),
    '</div>',
  ].join('\n');
}

function chapters(ctx: Ctx): string {
  const rows = ctx.report.chapters
    .map((c) => `<tr><td>${c.chapter}. ${html(c.title)}</td><td class="num">${c.total}</td><td class="num">${c.pass}</td><td class="num">${c.fail}</td><td class="num">${c.errored}</td><td class="num">${c.xfail}</td><td class="num">${c.skipped}</td></tr>`)
    .join('');
  return [
    '<section id="chapters">',
    '<h2>Chapters</h2>',
    '<table><thead><tr><th>chapter</th><th class="num">cases</th><th class="num">pass</th><th class="num">fail</th><th class="num">errored</th><th class="num">xfail</th><th class="num">skipped</th></tr></thead>',
    `<tbody>${rows}</tbody></table>`,
    '</section>',
  ].join('\n');
}

function problems(ctx: Ctx): string {
  const causes = ctx.report.root_causes;
  const out = ['<section id="problems">', '<h2>Problems</h2>'];
  if (causes.length === 0) {
    out.push('<p>No failing or errored case.</p>', '</section>');
    return out.join('\n');
  }
  const shown = new Set(causes.flatMap((c) => c.cases)).size;
  out.push(
    `<p>${plural(causes.length, 'problem')} behind ${plural(shown, 'failing or errored case')}. Cases that fail for the same reason are one problem; a case may show several.</p>`,
    '<ol class="problems">',
  );
  causes.forEach((cause, i) => {
    const attribution = [cause.rules.map((r) => ruleLink(ctx, r)).join(', '), cause.section ? html(cause.section) : ''].filter(Boolean).join('; ') || '<span class="muted">no rule</span>';
    const e = cause.example;
    const example =
      e.path !== undefined
        ? `<code>${html(e.path)}</code>: expected ${value(ctx, e.expected)}, got ${value(ctx, e.actual)}${e.why ? ` <span class="muted">(${html(reasonLine(e.why))})</span>` : ''}`
        : `<pre>${html(clipText(e.detail ?? '', ctx.max))}</pre>`;
    const linked = cause.cases.map((id) => caseLink(ctx, id));
    const caseList = linked.length > 12 ? `${linked.slice(0, 12).join(', ')} <details><summary>and ${linked.length - 12} more</summary>${linked.slice(12).join(', ')}</details>` : linked.join(', ');
    out.push(
      `<li id="problem-${i + 1}"><p><strong>${plural(cause.count, 'case')}</strong> <span class="muted">(${html(cause.kind)})</span> · ${attribution}</p>`,
      `<p><code>${html(causeText(cause))}</code></p>`,
      `<div>For example, in ${caseLink(ctx, e.case)}: ${example}</div>`,
      `<div>Cases: ${caseList}</div></li>`,
    );
  });
  out.push('</ol>', '</section>');
  return out.join('\n');
}

/** The rules of a case or property with their catalog summaries. */
function ruleSummaries(ctx: Ctx, ids: string[], broken: string[]): string {
  const items = ids.map((id) => {
    const rule = ctx.report.rules.find((r) => r.id === id);
    const summary = ctx.summary.get(id) ?? rule?.title ?? '';
    return `<li>${ruleLink(ctx, id)}${rule ? ` <strong>${html(rule.title)}</strong>` : ''}${broken.includes(id) ? ' <span class="badge s-fail">broken</span>' : ''}: ${html(summary)}</li>`;
  });
  const extra = broken.filter((id) => !ids.includes(id));
  for (const id of extra) {
    const rule = ctx.report.rules.find((r) => r.id === id);
    items.push(`<li>${ruleLink(ctx, id)}${rule ? ` <strong>${html(rule.title)}</strong>` : ''} <span class="badge s-fail">broken</span> <span class="muted">(not a rule of the case)</span>: ${html(ctx.summary.get(id) ?? '')}</li>`);
  }
  return `<ul class="rules">${items.join('')}</ul>`;
}

function expectationTable(ctx: Ctx, failures: ReportCase['failures']): string {
  if (failures.length === 0) return '';
  const rows = failures.map(
    (f) => `<tr><td><code>${html(f.path)}</code>${'rule' in f && f.rule ? ` <span class="muted">(${html(f.rule)})</span>` : ''}</td><td>${html(f.matcher)}</td><td>${value(ctx, f.expected)}</td><td>${value(ctx, f.actual)}</td><td>${html(f.why ?? '')}</td></tr>`,
  );
  return `<table><thead><tr><th>path</th><th>matcher</th><th>expected</th><th>actual</th><th>why</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function invariantList(ctx: Ctx, invariants: ReportCase['invariants']): string {
  if (invariants.length === 0) return '';
  return `<p>Failed invariants:</p><ul>${invariants.map((i) => `<li><code>${html(i.id)}</code> (${i.rules.map((r) => ruleLink(ctx, r)).join(', ')})<pre>${html(clipText(i.detail ?? '', ctx.max))}</pre></li>`).join('')}</ul>`;
}

function failures(ctx: Ctx): string {
  const broken = ctx.report.cases.filter(isBroken);
  const out = ['<section id="failures">', '<h2>Failures</h2>'];
  if (broken.length === 0) out.push('<p>None.</p>');
  for (const c of broken) {
    const status = c.stale ? 'stale' : c.status;
    const causes = causeKeys(c).filter((k) => ctx.causeNumber.has(k));
    out.push(
      `<article class="failure ${html(status)}" id="${anchor('failure', c.id)}">`,
      `<h3>${caseLink(ctx, c.id)} ${badge(status)} <span class="muted">${html(c.level)} · ${html(c.source)} · ${html(c.duration_ms)} ms</span></h3>`,
      `<p>${html(c.description)}</p>`,
      ruleSummaries(ctx, c.rules, c.failed_rules),
    );
    if (c.stale) out.push('<p>Listed as an expected failure, but it passes: remove it from the expected-failures list.</p>');
    if (c.status === 'xfail') out.push('<p class="muted">Expected failure: listed in --expected-failures, so it does not fail the run.</p>');
    if (c.reason) out.push(`<p>Reason: <code>${html(c.reason)}</code>${c.timed_out ? ' (time limit)' : ''}</p>`);
    const kept = caseNote({ limits_reached: c.limits_reached });
    if (kept) out.push(`<p>Kept in part: <code>${html(kept)}</code></p>`);
    // Ambient invariants are judged once for the run (section "Ambient checks"), not as this case's failure.
    out.push(expectationTable(ctx, c.failures));
    if (c.problems.length > 0) out.push(`<p>Problems found while driving the case:</p><ul>${c.problems.map((p) => `<li><code>${html(clipText(p, ctx.max))}</code></li>`).join('')}</ul>`);
    if (causes.length > 0) out.push(`<p>Root causes: ${causes.map((k) => `<a href="#problem-${ctx.causeNumber.get(k)}">problem ${ctx.causeNumber.get(k)}</a>`).join(', ')}</p>`);
    out.push('</article>');
  }
  out.push('</section>');
  return out.join('\n');
}

function properties(ctx: Ctx): string {
  const props = ctx.report.properties;
  const out = ['<section id="properties">', '<h2>Properties</h2>'];
  if (!props) {
    out.push('<p>The generated properties did not run (<code>--no-properties</code>).</p>', '</section>');
    return out.join('\n');
  }
  const seed = props[0]?.seed;
  out.push(
    `<p>Generated scenarios${seed !== undefined ? `, seed ${html(seed)} (<code>--seed ${html(seed)}</code> repeats them)` : ''}. A failing property comes with its shrunk counterexample as a tests.yaml case.</p>`,
    '<table><thead><tr><th>property</th><th>rules</th><th>level</th><th>status</th><th class="num">runs</th><th class="num">ms</th><th>note</th></tr></thead><tbody>',
  );
  for (const p of props) {
    // An interrupted or timed-out property has no counterexample to link to: its reason is all there is.
    const note = p.interrupted ? html(p.reason ?? 'interrupted') : p.timed_out ? `${html(p.reason ?? 'errored')} (time limit)` : p.status === 'fail' || p.status === 'errored' ? `<a href="#${anchor('property-failure', p.id)}">counterexample</a>${p.reason ? ` ${html(p.reason)}` : ''}` : html(p.reason ?? '');
    out.push(
      `<tr id="${anchor('property', p.id)}"><td><code>${html(p.id)}</code><br><span class="muted">${html(p.title)}</span></td><td class="ids">${p.rules.map((r) => ruleLink(ctx, r)).join(' ')}</td><td>${html(p.level)}</td><td>${badge(p.status)}</td><td class="num">${p.runs}</td><td class="num">${html(p.duration_ms)}</td><td>${note}</td></tr>`,
    );
  }
  out.push('</tbody></table>');
  // An interrupted or timed-out property has nothing more to show than its row says: no counterexample, no reproducer.
  for (const p of props.filter((x) => (x.status === 'fail' || x.status === 'errored') && !x.interrupted && !x.timed_out)) out.push(propertyFailure(ctx, p));
  out.push('</section>');
  return out.join('\n');
}

function propertyFailure(ctx: Ctx, p: ReportProperty): string {
  const ce = p.counterexample;
  const out = [
    `<article class="failure" id="${anchor('property-failure', p.id)}">`,
    `<h3>property ${propertyLink(ctx, p.id)} ${badge(p.status)} <span class="muted">${html(p.level)} · ${p.runs} runs · seed ${html(p.seed)}</span></h3>`,
    `<p>${html(p.title)}</p>`,
    ruleSummaries(ctx, p.rules, p.failed_rules),
  ];
  if (p.reason) out.push(`<p>Reason: <code>${html(p.reason)}</code></p>`);
  if (ce) {
    if (ce.reason) out.push(`<p>The counterexample errored: <code>${html(ce.reason)}</code></p>`);
    out.push(expectationTable(ctx, ce.failures), invariantList(ctx, ce.invariants));
    out.push(`<p>Reproducer, shrunk to ${plural(ce.steps, 'crystal step')} after ${plural(ce.shrinks, 'shrink')}; paste it under <code>cases:</code> in tests.yaml:</p>`, `<pre>${html(ce.case_yaml.trimEnd())}</pre>`);
  }
  out.push('</article>');
  return out.join('\n');
}

function ruleStatusText(r: ReportRule): string {
  return r.status === 'untested' && r.testability !== 'behavioral' ? `${badge('untested')} <span class="muted">(${html(r.testability)})</span>` : badge(r.status);
}

function rules(ctx: Ctx): string {
  const out = [
    '<section id="rules">',
    '<h2>Rules</h2>',
    "<p>Each rule's status is the worst its cases, properties and ambient checks show: fail &gt; errored &gt; xfail &gt; pass &gt; skipped &gt; untested.</p>",
    '<table><thead><tr><th>rule</th><th>level</th><th>summary</th><th>status</th><th>cases</th><th>properties</th></tr></thead><tbody>',
  ];
  for (const r of ctx.report.rules) {
    const summary = ctx.summary.get(r.id);
    const caseCell = r.cases.map((id) => caseLink(ctx, id) + (r.failed_by.includes(id) ? ' <span class="badge s-fail">fail</span>' : ''));
    if ((r.failed_by_ambient ?? []).length > 0) caseCell.push(`<br><span class="muted">broken by ambient checks:</span> ${(r.failed_by_ambient ?? []).map((id) => `<a href="#ambient-${html(id)}">${html(id)}</a>`).join(' ')}`);
    const propCell = (r.properties ?? []).map((id) => propertyLink(ctx, id) + ((r.failed_by_properties ?? []).includes(id) ? ' <span class="badge s-fail">fail</span>' : ''));
    out.push(
      `<tr id="${anchor('rule', r.id)}"><th scope="row">${html(r.id)}</th><td>${html(r.level)}</td><td><strong>${html(r.title)}</strong>${summary ? `<br>${html(summary)}` : ''}</td><td>${ruleStatusText(r)}</td><td class="ids">${list(caseCell)}</td><td class="ids">${list(propCell)}</td></tr>`,
    );
  }
  out.push('</tbody></table>', '</section>');
  return out.join('\n');
}

function cases(ctx: Ctx): string {
  const out = [
    '<section id="cases">',
    '<h2>Cases</h2>',
    '<table><thead><tr><th>case</th><th>rules</th><th>level</th><th>status</th><th class="num">ms</th><th>source</th><th>note</th></tr></thead><tbody>',
  ];
  for (const c of ctx.report.cases) {
    const status = c.stale ? 'stale' : c.status;
    const statusCell = isBroken(c) ? `<a href="#${anchor('failure', c.id)}">${badge(status)}</a>` : badge(status);
    const note = caseNote(c) || (c.failures[0] ? `${c.failures[0].path}: expected ${expectedText(c.failures[0], 80)}, got ${actualText(c.failures[0], 80)}` : '');
    out.push(
      `<tr id="${anchor('case', c.id)}"><td><code>${html(c.id)}</code><br><span class="muted">${html(c.description)}</span></td><td class="ids">${c.rules.map((r) => ruleLink(ctx, r)).join(' ')}</td><td>${html(c.level)}</td><td>${statusCell}</td><td class="num">${html(c.duration_ms)}</td><td><code>${html(c.source)}</code></td><td>${html(clipText(note, 300))}</td></tr>`,
    );
  }
  out.push('</tbody></table>', '</section>');
  return out.join('\n');
}

/**
 * The opening of every self-contained page the kit writes: nothing loaded, one inline style; no script
 * unless `policy` allows one (the results site's pages allow their one script by its hash).
 */
export function documentHead(title: string, style: string, policy: string = HTML_CSP): string[] {
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${html(policy)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="generator" content="cantrip-conformance">',
    `<title>${html(title)}</title>`,
    `<style>${style}</style>`,
    '</head>',
  ];
}

/**
 * Every output names the draft it judged, and takes rule titles, levels, chapter titles and the count of
 * rules from that draft's catalog (issue 24); `diff` compares reports of two drafts through the map of
 * rule ids; `matrix` lays one implementation out across the three drafts, a row per rule lineage.
 *
 * The reports across drafts come from runs of the reference at 0.1.0, 0.2.0 and 0.3.1 on a small slice
 * of tests.yaml, planned for each draft as `run --spec` plans them (harness/testing/draft-samples.ts),
 * each written as report.json and read back with readReport, as the `diff` and `matrix` commands do.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { catalogOf, draftVersions, ruleCounterpart } from '../../spec/drafts.ts';
import type { CaseResult, SuiteResult } from '../run/run.ts';
import { runMatrix } from '../cli/compare.ts';
import { chapterTitles, draftOfReport, UNDECLARED_DRAFT } from './draft.ts';
import { diffReports, hasRegressions, renderDiffMarkdown, renderDiffText } from './diff.ts';
import { readReport } from './format.ts';
import { renderHtml } from './html.ts';
import { judgedRuleId } from './judged-ids.ts';
import { renderJUnit } from './junit.ts';
import { caseSummaryLines, renderMarkdown, verdictLines } from './markdown.ts';
import { buildMatrix, cellText, renderMatrixHtml, renderMatrixMarkdown } from './matrix.ts';
import { assertReportValid, buildReport, exitCode, type Report } from './report.ts';
import { renderBadge, renderJobSummary } from './summary.ts';
import { CHROMIUM_PACKAGE, findChromium, renderInChromium } from '../testing/chromium.ts';
import { checkHtml, elements, findXmllint, junitSchemaProblems, parseXml, validateWithXmllint } from '../testing/markup-check.ts';
import { referenceAtEveryDraft } from '../testing/draft-samples.ts';
import { caseDrafts, loadCaseFile } from '../case-file/index.ts';
import { PACKAGE_ROOT } from '../case-file/package-root.ts';

const file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
import { hangBound } from '../testing/hang-bound.ts';

const CHROMIUM = findChromium();
const XMLLINT = findXmllint();
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
const tmp = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'cantrip-report-drafts-'));
  made.push(dir);
  return dir;
};

/** The three report.json files, read back, oldest draft first. */
let files: string[];
let reports: Report[];
let byVersion: Map<string, Report>;

beforeAll(async () => {
  const dir = tmp();
  const samples = await referenceAtEveryDraft();
  files = samples.map(({ version, report }) => {
    const file = join(dir, version, 'report.json');
    mkdirSync(join(dir, version), { recursive: true });
    writeFileSync(file, JSON.stringify(report));
    return file;
  });
  reports = files.map((f) => readReport(f));
  byVersion = new Map(reports.map((r) => [draftOfReport(r).version, r]));
}, hangBound(120_000));

const at = (version: string): Report => byVersion.get(version)!;

describe('a report judged at 0.3.1', () => {
  it('records the draft and takes its rules, levels and chapter titles from the 0.3.1 catalog', () => {
    const r = at('0.3.1');
    expect(r.draft).toEqual({ version: '0.3.1', commit: '0c876ea', label: '0.3.1' });
    expect(() => assertReportValid(r)).not.toThrow();
    expect(r.rules.map((x) => x.id)).toEqual(catalogOf('0.3.1').rules.map((x) => x.id));
    expect(r.profile.rules_total).toBe(79);
    // COMP-9 is SHOULD at 0.3.1 (MUST at 0.1.0); its title and level are the judged draft's.
    expect(r.rules.find((x) => x.id === 'COMP-9')!.level).toBe('SHOULD');
    expect(at('0.1.0').rules.find((x) => x.id === 'COMP-9')!.level).toBe('MUST');
    expect(r.chapters.map((c) => c.title)).toEqual(['The loop', 'The LLM', 'The identity', 'The circle', 'Composition', 'The loom', 'Production']);
    expect(at('0.1.0').chapters[1]!.title).toBe('The crystal');
    // The cases of renamed rules count under the new ids; no 0.1.0 id is left.
    expect(r.rules.find((x) => x.id === 'LLM-4')!.cases.length).toBeGreaterThan(0);
    expect(JSON.stringify(r.rules)).not.toMatch(/"(CRYSTAL|CALL)-\d+"/);
    // The ambient invariants name 0.1.0 ids (the judge's own); the report reads them in 0.3.1's.
    expect([...r.ambient_checks.find((c) => c.id === 'request-schema')!.rules].sort()).toEqual(['LLM-4', 'LOOP-1']);
    expect(exitCode(r)).toBe(0);
  });

  it('the console names it in the first line and in the profile line, with the cases outside it', () => {
    const r = at('0.3.1');
    expect(caseSummaryLines(r)[0]).toContain('judged against Cantrip 0.3.1 (0c876ea)');
    const profile = verdictLines(r).find((l) => l.startsWith('profile: '))!;
    expect(profile).toContain(`${r.profile.rules_not_exercised.length} of 79 rules of Cantrip 0.3.1 (0c876ea) not exercised`);
    // CANTRIP-3 is removed at 0.3.1: its cases are outside the draft, listed, and neither failed nor skipped.
    expect(r.outside_draft).toContain('construct-without-done-gate-refused');
    expect(r.cases.map((c) => c.id)).not.toContain('construct-without-done-gate-refused');
    expect(profile).toMatch(new RegExp(`; ${r.outside_draft!.length} cases outside this draft \\(not run\\)$`));
    // At 0.1.0 only the cases written for later drafts are outside (the new rules' and the reversed rules' own cases).
    const outsideSeed = at('0.1.0').outside_draft ?? [];
    for (const id of outsideSeed) expect(caseDrafts(file.cases.find((c) => c.id === id)!), id).not.toContain('0.1.0');
    expect(verdictLines(at('0.1.0')).find((l) => l.startsWith('profile: '))).toMatch(new RegExp(`; ${outsideSeed.length} cases outside this draft \\(not run\\)$`));
  });

  it('report.md and summary.md name it, and list rules by their 0.3.1 ids and titles', () => {
    const r = at('0.3.1');
    const md = renderMarkdown(r);
    expect(md).toContain('**Draft judged: Cantrip 0.3.1 (0c876ea)**');
    expect(md).toContain(`| LLM-4 ${catalogOf('0.3.1').rules.find((x) => x.id === 'LLM-4')!.title} | MUST |`);
    expect(md).toContain('| 2. The LLM |');
    expect(md).not.toMatch(/\bCRYSTAL-\d/);
    const summary = renderJobSummary(r);
    expect(summary).toContain('Judged against Cantrip 0.3.1 (0c876ea)');
    expect(summary).toContain('of 79 rules of Cantrip 0.3.1 (0c876ea) not exercised');
  });

  it('the badge names it in its label, or in its message under a label of the caller', () => {
    expect(renderBadge(at('0.3.1')).label).toBe('cantrip 0.3.1');
    expect(renderBadge(at('0.2.0')).label).toBe('cantrip 0.2.0');
    expect(renderBadge(at('0.3.1'), { label: 'conformance' }).message).toMatch(/ · draft 0\.3\.1$/);
  });

  it('report.html names it in its title and header, with each rule under its 0.3.1 id and summary', () => {
    const r = at('0.3.1');
    const page = renderHtml(r);
    expect(checkHtml(page).problems).toEqual([]);
    expect(page).toContain('<title>Cantrip conformance: cantrip-reference 0.1.0 against Cantrip 0.3.1 (0c876ea)</title>');
    expect(page).toContain('<dt>Draft judged</dt><dd>Cantrip 0.3.1 (0c876ea)');
    expect(page).toContain('cantrip-reference 0.1.0 against Cantrip 0.3.1 (0c876ea): <span class="badge s-pass">');
    const row = page.slice(page.indexOf('<tr id="rule-LLM-4">'), page.indexOf('</tr>', page.indexOf('<tr id="rule-LLM-4">')));
    const summary = catalogOf('0.3.1').rules.find((x) => x.id === 'LLM-4')!.summary;
    expect(row).toContain(summary.replace(/&/g, '&amp;').replace(/'/g, '&#39;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;'));
    expect(page).not.toContain('id="rule-CRYSTAL-4"');
  });

  it('junit.xml names it in the suites\' name and properties, with chapters in its words', () => {
    const xml = renderJUnit(at('0.3.1'));
    const root = parseXml(xml);
    expect(junitSchemaProblems(root)).toEqual([]);
    expect(root.attrs.name).toBe('Cantrip conformance: cantrip-reference 0.1.0 against Cantrip 0.3.1 (0c876ea)');
    const suites = elements(root);
    expect(suites.map((s) => s.attrs.name)).toContain('2. The LLM');
    for (const suite of suites) {
      const props = elements(elements(suite).find((e) => e.name === 'properties')!).map((p) => [p.attrs.name, p.attrs.value]);
      expect(props).toEqual(expect.arrayContaining([['draft', '0.3.1'], ['draft.commit', '0c876ea'], ['draft.label', '0.3.1']]));
    }
    if (XMLLINT) {
      const file = join(tmp(), 'junit.xml');
      writeFileSync(file, xml);
      expect(validateWithXmllint(XMLLINT, file).status).toBe(0);
    }
  });

  it('a report written before drafts were told apart reads as judged at 0.1.0', () => {
    const { draft: _dropped, ...older } = JSON.parse(JSON.stringify(at('0.1.0'))) as Report;
    const file = join(tmp(), 'old.json');
    writeFileSync(file, JSON.stringify(older));
    const read = readReport(file);
    expect(read.draft).toBeUndefined();
    expect(draftOfReport(read)).toEqual({ version: '0.1.0', commit: 'cfee8a3', label: '0.1.0-draft' });
    expect(renderMarkdown(read)).toContain('**Draft judged: Cantrip 0.1.0 (cfee8a3)**');
    expect(renderBadge(read).label).toBe('cantrip 0.1.0');
  });
});

describe('rule ids the judge writes in 0.1.0 terms', () => {
  it('no registered draft reuses an id of 0.1.0 for another rule, so reading a stray 0.1.0 id is never ambiguous', () => {
    const seed = new Set(catalogOf(UNDECLARED_DRAFT).rules.map((r) => r.id));
    for (const version of draftVersions()) {
      for (const rule of catalogOf(version).rules) {
        if (!seed.has(rule.id)) continue;
        // An id the later draft shares with 0.1.0 is that very rule's counterpart.
        expect([version, rule.id, ruleCounterpart(rule.id, version, UNDECLARED_DRAFT).id]).toEqual([version, rule.id, rule.id]);
      }
    }
    expect(judgedRuleId('CRYSTAL-4', '0.3.1')).toBe('LLM-4');
    expect(judgedRuleId('CALL-2', '0.2.0')).toBe('IDENTITY-2');
    expect(judgedRuleId('CIRCLE-9', '0.3.1')).toBe('MEDIUM-3');
    expect(judgedRuleId('LOOP-1', '0.3.1')).toBe('LOOP-1');
    expect(judgedRuleId('CRYSTAL-4', '0.1.0')).toBe('CRYSTAL-4');
    // Removed at 0.3.1: no counterpart, so it is dropped: nothing a 0.3.1 report shows names a rule outside 0.3.1 (issue 31).
    expect(judgedRuleId('CANTRIP-3', '0.3.1')).toBeUndefined();
  });

  it('an ambient finding under CRYSTAL-4 in a 0.3.1 run breaks LLM-4 and fails MUST there', () => {
    const broken: CaseResult = {
      id: 'a-case',
      rules: ['LOOP-1'],
      level: 'MUST',
      requires: [],
      description: 'a case',
      status: 'pass',
      duration_ms: 1,
      failures: [],
      expectations: 1,
      invariants: [{ id: 'request-schema', rules: ['CRYSTAL-4', 'LOOP-1'], status: 'fail', detail: 'tool call without an id', cause: 'tool call without an id' }],
      problems: [],
      failed_rules: [],
      position: { file: 'tests.yaml', line: 1, column: 1 },
    };
    const suite: SuiteResult = { description: { name: 'x', version: '1', spec_version: '0.3.1', protocol_version: 1, features: [] }, file: 'tests.yaml', spec_version: '0.1.0-draft', draft: '0.3.1', format_version: 1, started_at: '2026-03-07T00:00:00.000Z', duration_ms: 1, cases: [broken] };
    const report = buildReport(suite);
    expect(report.rules.find((r) => r.id === 'LLM-4')!.status).toBe('fail');
    expect(report.verdict.MUST.status).toBe('fail');
    expect(report.verdict.MUST.ambient_findings).toBe(1);
  });
});

describe('diff of two drafts', () => {
  it('says so in its first line and compares rules through the map of rule ids', () => {
    const d = diffReports(at('0.1.0'), at('0.3.1'));
    expect(d.drafts).toEqual({ from: '0.1.0', to: '0.3.1' });
    const text = renderDiffText(d);
    expect(text.split('\n')[0]).toBe('different drafts: old judged Cantrip 0.1.0 (cfee8a3), new judged Cantrip 0.3.1 (0c876ea); rules are compared through the map of rule ids between drafts, cases by id');
    expect(renderDiffMarkdown(d).split('\n')[0]).toBe('## Conformance diff across drafts: Cantrip 0.1.0 (cfee8a3) → Cantrip 0.3.1 (0c876ea)');
    // One run, read at two drafts: a renamed rule whose cases all apply at 0.3.1 keeps its status (LLM-4
    // is CRYSTAL-4, both pass); the only moves are to untested, for rules whose cases are outside 0.3.1.
    expect(d.rules.map((r) => r.id)).not.toContain('LLM-4');
    expect(d.rules.length).toBeGreaterThan(0);
    for (const r of d.rules) expect([r.id, r.to]).toEqual([r.id, 'untested']);
    // CALL-3 is reversed at 0.2.0 (IDENTITY-3) and has a case of its own there, which passes: no move.
    expect(d.rules.map((r) => r.id)).not.toContain('IDENTITY-3');
    // A rule that moved under another id is shown under both: LLM-4 made to fail at 0.3.1 is CRYSTAL-4 at 0.1.0.
    const later = at('0.3.1');
    const broken = { ...later, rules: later.rules.map((r) => (r.id === 'LLM-4' ? { ...r, status: 'fail' as const } : r)) };
    const moved = diffReports(at('0.1.0'), broken);
    expect(moved.rules.find((r) => r.id === 'LLM-4')).toMatchObject({ old_id: 'CRYSTAL-4', to: 'fail' });
    expect(renderDiffText(moved)).toContain('  LLM-4 (CRYSTAL-4 at 0.1.0) ');
    // Rules of one draft only are listed as such, never as a change of status or a regression.
    const only = d.rules_in_one_draft.map((r) => `${r.id}@${r.draft}`);
    expect(only).toContain('CANTRIP-3@0.1.0');
    expect(only).toContain('LOOP-7@0.3.1');
    expect(only).toContain('COMP-10@0.3.1');
    expect(d.rules.map((r) => r.id)).not.toContain('LOOP-7');
    expect(d.rules.map((r) => r.id)).not.toContain('CANTRIP-3');
    expect(text).toContain('  CANTRIP-3 ');
    expect(text).toMatch(/rules of one draft only \(\d+; not compared\):/);
    expect(hasRegressions(d)).toBe(false);
    // The cases of CANTRIP-3 ran at 0.1.0 only: removed, and said to be outside 0.3.1.
    expect(d.removed.find((c) => c.id === 'construct-without-done-gate-refused')).toMatchObject({ from: 'pass', to: 'absent', outside_draft: '0.3.1' });
    expect(text).toContain('  construct-without-done-gate-refused [CANTRIP-3, CIRCLE-1] pass → absent\n      outside draft 0.3.1: not run there');
  });

  it('a renamed rule that breaks under the newer draft is a change of LLM-4, shown with its 0.1.0 id', () => {
    const worse = structuredClone(at('0.3.1'));
    worse.rules.find((r) => r.id === 'LLM-4')!.status = 'fail';
    const d = diffReports(at('0.1.0'), worse);
    expect(d.rules.filter((r) => r.id === 'LLM-4')).toEqual([{ id: 'LLM-4', old_id: 'CRYSTAL-4', title: worse.rules.find((r) => r.id === 'LLM-4')!.title, from: 'pass', to: 'fail' }]);
    expect(renderDiffText(d)).toContain('  LLM-4 (CRYSTAL-4 at 0.1.0) ');
  });

  it('a reversed rule is compared with its counterpart and says it reversed', () => {
    const other = structuredClone(at('0.3.1'));
    other.rules.find((r) => r.id === 'COMP-1')!.status = 'pass';
    const d = diffReports(at('0.1.0'), other);
    const comp1 = d.rules.find((r) => r.id === 'COMP-1')!;
    expect(comp1.changes).toContain('reversed');
    expect(renderDiffText(d)).toMatch(/COMP-1 .*\[reversed between the drafts\]/);
  });

  it('two reports of one draft: no drafts line, nothing of one draft only', () => {
    const d = diffReports(at('0.3.1'), at('0.3.1'));
    expect(d.drafts).toBeUndefined();
    expect(d.rules_in_one_draft).toEqual([]);
    expect(renderDiffText(d).split('\n')[0]).toMatch(/^old: cantrip-reference 0\.1\.0 .* against Cantrip 0\.3\.1 \(0c876ea\)$/);
  });
});

describe('matrix of the reference across the three drafts', () => {
  it('one row per rule lineage, each cell under its own draft\'s id, "not in this draft" where it has none', () => {
    const m = buildMatrix(reports);
    expect(m.columns.map((c) => c.label)).toEqual(['cantrip-reference 0.1.0 @ 0.1.0', 'cantrip-reference 0.1.0 @ 0.2.0', 'cantrip-reference 0.1.0 @ 0.3.1']);
    expect(m.columns.map((c) => c.draft.version)).toEqual(['0.1.0', '0.2.0', '0.3.1']);
    // 79 rules of 0.3.1, and CANTRIP-3, which only 0.1.0 has.
    expect(m.rows).toHaveLength(80);
    const row = (label: string) => m.rows.find((r) => r.label === label)!;
    const llm4 = row('LLM-4 / CRYSTAL-4');
    expect(llm4.ids).toEqual({ '0.1.0': 'CRYSTAL-4', '0.2.0': 'LLM-4', '0.3.1': 'LLM-4' });
    expect(llm4.cells.map((c) => c.status)).toEqual(['pass', 'pass', 'pass']);
    expect(llm4.cells[2]!.passed).toBe(llm4.cells[0]!.passed);
    expect(row('MEDIUM-3 / CIRCLE-9').ids['0.1.0']).toBe('CIRCLE-9');
    const cantrip3 = row('CANTRIP-3');
    expect(cantrip3.cells.map((c) => c.status)).toEqual(['pass', 'not-in-draft', 'not-in-draft']);
    expect(cellText(cantrip3.cells[1]!)).toBe('not in this draft');
    // A removed rule keeps its place after the rule it followed.
    expect(m.rows.indexOf(cantrip3)).toBe(m.rows.findIndex((r) => r.id === 'CANTRIP-2') + 1);
    expect(row('LOOP-7').cells[0]!.status).toBe('not-in-draft');
    expect(row('COMP-10').cells.map((c) => c.status).slice(0, 2)).toEqual(['not-in-draft', 'not-in-draft']);
    // "Not in this draft" is never a failure, and never a difference.
    expect(m.rows.filter((r) => r.differs)).toEqual([]);
    expect(row('COMP-1').changes).toEqual([expect.stringMatching(/^(.*, )?reversed(, .*)? at 0\.2\.0$/)]);
    expect(row('COMP-9').levels).toMatchObject({ '0.1.0': 'MUST', '0.3.1': 'SHOULD' });
    for (const column of m.columns) expect(Object.values(column.counts).reduce((a, b) => a + b, 0)).toBe(m.rows.length);
    expect(m.columns[0]!.counts['not-in-draft']).toBe(13);
    expect(m.columns[2]!.counts['not-in-draft']).toBe(1);
  });

  it('as Markdown and HTML: headers name implementation and draft, rows both ids', () => {
    const m = buildMatrix(reports);
    const md = renderMatrixMarkdown(m);
    expect(md).toContain('| rule | level | cantrip-reference 0.1.0 @ 0.1.0 | cantrip-reference 0.1.0 @ 0.2.0 | cantrip-reference 0.1.0 @ 0.3.1 |');
    expect(md).toContain('| **draft judged** | | Cantrip 0.1.0 (cfee8a3) | Cantrip 0.2.0 (cf70fdc) | Cantrip 0.3.1 (0c876ea) |');
    expect(md).toMatch(/\n\| LLM-4 \/ CRYSTAL-4 Well-formed tool calls \| MUST \| ✅ pass \d+\/\d+ \| ✅ pass \d+\/\d+ \| ✅ pass \d+\/\d+ \|\n/);
    expect(md).toMatch(/\n\| CANTRIP-3 [^|]+ \| MUST \| ✅ pass \d+\/\d+ \| — not in this draft \| — not in this draft \|\n/);
    expect(md).toMatch(/\n\| COMP-9 [^|]+\| SHOULD \(MUST at 0\.1\.0\) \|/);
    const page = renderMatrixHtml(m);
    expect(checkHtml(page).problems).toEqual([]);
    expect(page).toContain('<td class="s-not-in-draft"');
    expect(page).toContain('>LLM-4 / CRYSTAL-4</a>');
  });

  it('from the command line, three report.json files', () => {
    const out: string[] = [];
    const err: string[] = [];
    const html = join(tmp(), 'matrix.html');
    const code = runMatrix([...files, '--html', html], { out: (l) => out.push(l), err: (l) => err.push(l), cwd: '/' });
    expect([code, err]).toEqual([0, []]);
    expect(out[0]).toBe(renderMatrixMarkdown(buildMatrix(files.map((f) => ({ report: readReport(f), source: f })))));
    expect(out[0]).toContain('| LLM-4 / CRYSTAL-4 ');
    expect(checkHtml(readFileSync(html, 'utf8')).problems).toEqual([]);
  });

  describe.skipIf(!CHROMIUM)(CHROMIUM ? 'in headless Chromium' : `in headless Chromium: SKIPPED, install the Debian package ${CHROMIUM_PACKAGE}`, () => {
    it('renders the matrix across drafts and a 0.3.1 report.html with no console message, error or request', async () => {
      const dir = tmp();
      const matrix = join(dir, 'matrix.html');
      writeFileSync(matrix, renderMatrixHtml(buildMatrix(reports)));
      const page = join(dir, 'report.html');
      writeFileSync(page, renderHtml(at('0.3.1')));
      const [m, r] = await renderInChromium([matrix, page], { count: ['tr[id^="rule-"]', 'td.s-not-in-draft', 'section'] });
      for (const p of [m!, r!]) {
        expect({ file: p.file, console: p.console, exceptions: p.exceptions, log: p.log, requests: p.requests }).toEqual({ file: p.file, console: [], exceptions: [], log: [], requests: [] });
        expect(p.dom.duplicateIds).toEqual([]);
        expect(p.dom.brokenLinks).toEqual([]);
      }
      // A row per rule lineage; "not in this draft" 13 times at 0.1.0, 3 at 0.2.0 (COMP-10, COMP-11, CANTRIP-3), once at 0.3.1.
      expect(m!.dom.counts['tr[id^="rule-"]']).toBe(80);
      expect(m!.dom.counts['td.s-not-in-draft']).toBe(13 + 3 + 1);
      // The 0.3.1 report: a row per rule of 0.3.1, the DOM the checker saw, the draft in the title.
      expect(r!.dom.counts['tr[id^="rule-"]']).toBe(79);
      expect(r!.dom.ids).toBe(checkHtml(readFileSync(page, 'utf8')).ids.length);
      expect(r!.dom.title).toBe('Cantrip conformance: cantrip-reference 0.1.0 against Cantrip 0.3.1 (0c876ea)');
    }, hangBound(60_000));
  });
});

describe('chapter titles per draft', () => {
  it('come from the registry\'s terms', () => {
    expect(chapterTitles('0.1.0')[2]).toBe('The crystal');
    expect(chapterTitles('0.1.0')[3]).toBe('The call');
    expect(chapterTitles('0.2.0')[3]).toBe('The identity');
  });
});

/**
 * The report outputs on real runs: the reference, the conformant variant and a defect miniature
 * (ignores-done), each run once through the adapter interface (harness/testing/report-samples.ts).
 * JUnit XML is validated against the Jenkins xUnit JUnit schema (fixtures/junit/junit-10.xsd) with
 * xmllint and with a structural check; the HTML pages are checked with an HTML checker and rendered in
 * headless Chromium, which must see no console message, no error and no network request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCatalog } from '../../spec/catalog.ts';
import type { Report } from './report.ts';
import { anchor, readReport } from './format.ts';
import { diffReports, hasRegressions, isUnchanged, renderDiffMarkdown, renderDiffText } from './diff.ts';
import { renderHtml } from './html.ts';
import { renderJUnit } from './junit.ts';
import { buildMatrix, cellText, renderMatrixHtml, renderMatrixMarkdown } from './matrix.ts';
import { writeReportOutputs } from './outputs.ts';
import { renderBadge, renderJobSummary } from './summary.ts';
import { CHROMIUM_PACKAGE, findChromium, renderInChromium, type PageReport } from '../testing/chromium.ts';
import { checkHtml, elements, findXmllint, junitSchemaProblems, parseXml, textOf, validateWithXmllint, type XmlElement } from '../testing/markup-check.ts';
import { sampleReports, type Samples } from '../testing/report-samples.ts';
import { hangBound } from '../testing/hang-bound.ts';

const XMLLINT = findXmllint();
const CHROMIUM = findChromium();
const NO_XMLLINT = 'SKIPPED: xmllint not found; install the Debian package libxml2-utils to validate junit.xml against fixtures/junit/junit-10.xsd';
const NO_CHROMIUM = `SKIPPED: Chromium not found; install the Debian package ${CHROMIUM_PACKAGE} (or set CHROMIUM_BIN) to render the HTML reports in a headless browser`;
if (!XMLLINT) console.warn(NO_XMLLINT);
if (!CHROMIUM) console.warn(NO_CHROMIUM);
const xmllint = (file: string): { status: number | null; output: string } => validateWithXmllint(XMLLINT!, file);

const testcases = (root: XmlElement): XmlElement[] => elements(root).flatMap((s) => elements(s).filter((e) => e.name === 'testcase'));
const testcase = (root: XmlElement, name: string): XmlElement => {
  const found = testcases(root).find((t) => t.attrs.name === name);
  if (!found) throw new Error(`no testcase ${name}`);
  return found;
};

let samples: Samples;
let dir: string;
const NAMES = ['reference', 'variant', 'defect'] as const;

beforeAll(async () => {
  samples = await sampleReports();
  dir = mkdtempSync(join(tmpdir(), 'cantrip-report-outputs-'));
  for (const name of NAMES) {
    writeFileSync(join(dir, `${name}.json`), JSON.stringify(samples[name]));
    writeReportOutputs(join(dir, name), samples[name]);
  }
}, hangBound(120_000));

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the sample runs', () => {
  it('give what the tests below rely on: the variant passes what it runs and skips some, the defect fails LOOP-3 and a property', () => {
    expect(samples.variant.summary.fail + samples.variant.summary.errored).toBe(0);
    expect(samples.variant.summary.skipped).toBeGreaterThan(0);
    const defect = samples.defect;
    expect(defect.cases.find((c) => c.id === 'done-ends-cast-with-answer')?.status).toBe('fail');
    expect(defect.properties?.find((p) => p.id === 'done-ends-the-cast')?.status).toBe('fail');
    expect(defect.root_causes.length).toBeGreaterThan(0);
  });
});

describe('junit.xml', () => {
  it.each(NAMES)('%s: one testcase per case and property, grouped by chapter, counts that add up, valid by the schema rules', (name) => {
    const report = samples[name];
    const xml = readFileSync(join(dir, name, 'junit.xml'), 'utf8');
    const root = parseXml(xml);
    expect(junitSchemaProblems(root)).toEqual([]);
    expect(root.name).toBe('testsuites');
    const all = testcases(root);
    // One test per case, per property and per ambient check (judged once for the run), and a passing one per record-shape finding.
    const shapes = report.record_shapes ?? [];
    expect(all.length).toBe(report.cases.length + (report.properties?.length ?? 0) + report.ambient_checks.length + shapes.length);
    for (const f of shapes) expect(elements(all.find((t) => t.attrs.name === `record shape: ${f.field} ${f.difference}`)!).map((e) => e.name)).toEqual(['system-out']);
    expect(new Set(all.map((t) => `${t.attrs.classname}/${t.attrs.name}`)).size).toBe(all.length);
    const suites = elements(root).filter((e) => e.name === 'testsuite');
    for (const s of suites) {
      expect(s.attrs.name).toMatch(/^\d\. /);
      const mine = elements(s).filter((e) => e.name === 'testcase');
      expect(Number(s.attrs.tests)).toBe(mine.length);
      expect(Number(s.attrs.failures)).toBe(mine.filter((t) => elements(t).some((e) => e.name === 'failure')).length);
      expect(Number(s.attrs.errors)).toBe(mine.filter((t) => elements(t).some((e) => e.name === 'error')).length);
      expect(Number(s.attrs.skipped)).toBe(mine.filter((t) => elements(t).some((e) => e.name === 'skipped')).length);
    }
    const props = report.properties ?? [];
    const ambient = report.ambient_checks;
    const failures = report.cases.filter((c) => c.status === 'fail' || c.stale).length + props.filter((p) => p.status === 'fail').length + ambient.filter((a) => a.status === 'fail').length;
    const skipped = report.cases.filter((c) => c.status === 'skipped' || c.status === 'xfail').length + props.filter((p) => p.status === 'skipped').length + ambient.filter((a) => a.status === 'skipped').length;
    expect(Number(root.attrs.failures)).toBe(failures);
    expect(suites.reduce((n, s) => n + Number(s.attrs.skipped), 0)).toBe(skipped);
    for (const t of all.filter((x) => elements(x).some((e) => e.name === 'skipped'))) expect(elements(t)[0]!.attrs.message).toBeTruthy();
  });

  it('a failing case carries its rules, expected and actual; a failing property its reproducer', () => {
    const root = parseXml(readFileSync(join(dir, 'defect', 'junit.xml'), 'utf8'));
    const failure = elements(testcase(root, 'done-ends-cast-with-answer'))[0]!;
    expect(failure.name).toBe('failure');
    // The message names the rules the case shows broken: here those of the driving fault where the run
    // left its script (a query after an accepted done breaks LOOP-3 and CIRCLE-8), not its expectations'.
    expect(failure.attrs.message).toContain('[LOOP-3, CIRCLE-8]');
    const body = textOf(failure);
    expect(body).toMatch(/expected: \{"equals":/);
    expect(body).toContain('actual:');
    expect(body).toContain('Root causes');
    const property = elements(testcase(root, 'property done-ends-the-cast'))[0]!;
    expect(property.name).toBe('failure');
    expect(textOf(property)).toContain('- id: property-done-ends-the-cast');
    expect(textOf(property)).toContain(`Seed ${samples.defect.properties![0]!.seed}`);
  });

  it.skipIf(!XMLLINT).each(NAMES)(XMLLINT ? '%s: xmllint validates it against fixtures/junit/junit-10.xsd' : `%s: ${NO_XMLLINT}`, (name) => {
    const result = xmllint(join(dir, name, 'junit.xml'));
    expect(result.output).toContain('validates');
    expect(result.status).toBe(0);
  });

  it.skipIf(!XMLLINT)(XMLLINT ? 'the schema is strict enough to matter: xmllint refuses a testsuite without its failures count' : NO_XMLLINT, () => {
    const broken = renderJUnit(samples.variant).replace(/(<testsuite [^>]*?) failures="\d+"/, '$1');
    const file = join(dir, 'broken-junit.xml');
    writeFileSync(file, broken);
    const result = xmllint(file);
    expect(result.status).not.toBe(0);
    expect(result.output).toMatch(/failures/);
  });
});

describe('report.html', () => {
  it.each(NAMES)('%s: well-formed, unique ids, every internal link resolves, nothing external', (name) => {
    const check = checkHtml(readFileSync(join(dir, name, 'report.html'), 'utf8'));
    expect(check.problems).toEqual([]);
    expect(check.tags.get('script')).toBeUndefined();
    expect(check.links.every((l) => l.startsWith('#'))).toBe(true);
  });

  it('every rule links to each of its cases and properties, and every case back to its rules', () => {
    const report = samples.defect;
    const page = readFileSync(join(dir, 'defect', 'report.html'), 'utf8');
    const row = (id: string): string => {
      const start = page.indexOf(`<tr id="${id}">`);
      expect(start, id).toBeGreaterThan(0);
      return page.slice(start, page.indexOf('</tr>', start));
    };
    for (const r of report.rules) {
      const html = row(anchor('rule', r.id));
      for (const c of r.cases) expect(html).toContain(`href="#${anchor('case', c)}"`);
      for (const p of r.properties ?? []) expect(html).toContain(`href="#${anchor('property', p)}"`);
    }
    for (const c of report.cases) {
      const html = row(anchor('case', c.id));
      for (const r of c.rules) expect(html).toContain(`href="#${anchor('rule', r)}"`);
      if (c.status === 'fail') expect(html).toContain(`href="#${anchor('failure', c.id)}"`);
    }
  });

  it("shows a failure with expected vs actual and its rules' catalog summaries, the root causes and the reproducer", () => {
    const page = readFileSync(join(dir, 'defect', 'report.html'), 'utf8');
    const start = page.indexOf(`id="${anchor('failure', 'done-ends-cast-with-answer')}"`);
    const block = page.slice(start, page.indexOf('</article>', start));
    const summary = loadCatalog().rules.find((r) => r.id === 'LOOP-3')!.summary;
    expect(block).toContain(summary.replace(/&/g, '&amp;').replace(/'/g, '&#39;').replace(/"/g, '&quot;'));
    expect(block).toContain('<th>expected</th><th>actual</th>');
    expect(block).toContain('href="#problem-');
    expect(page).toContain('id="problem-1"');
    const prop = page.slice(page.indexOf(`id="${anchor('property-failure', 'done-ends-the-cast')}"`));
    expect(prop).toContain('- id: property-done-ends-the-cast');
  });

  describe.skipIf(!CHROMIUM)(CHROMIUM ? 'in headless Chromium' : `in headless Chromium: ${NO_CHROMIUM}`, () => {
    let pages: PageReport[];
    let probe: PageReport;
    beforeAll(async () => {
      const matrix = join(dir, 'matrix.html');
      writeFileSync(matrix, renderMatrixHtml(buildMatrix([samples.reference, samples.variant, samples.defect])));
      // A page that does load something and logs an error: the checks must see both.
      const bad = join(dir, 'probe.html');
      writeFileSync(bad, '<!DOCTYPE html><html><head><title>probe</title></head><body><img src="http://cantrip.invalid/x.png" alt=""><script>console.error("probe error")</script></body></html>');
      const all = await renderInChromium([...NAMES.map((n) => join(dir, n, 'report.html')), matrix, bad], { count: ['section', 'tr[id^="rule-"]', 'tr[id^="case-"]'] });
      probe = all.pop()!;
      pages = all;
    }, hangBound(120_000));

    it('renders every page with no console message, no error and no network request', () => {
      expect(pages).toHaveLength(4);
      for (const p of pages) {
        expect({ file: p.file, console: p.console, exceptions: p.exceptions, log: p.log, requests: p.requests }).toEqual({ file: p.file, console: [], exceptions: [], log: [], requests: [] });
        expect(p.dom.duplicateIds).toEqual([]);
        expect(p.dom.brokenLinks).toEqual([]);
        expect(p.dom.externalLinks).toEqual([]);
        expect(p.dom.bodyHeight).toBeGreaterThan(1000);
        expect(p.screenshotBytes).toBeGreaterThan(5000);
      }
    });

    it('builds the DOM the checker saw: the same ids, every rule and case row, the sections', () => {
      for (const [i, name] of NAMES.entries()) {
        const p = pages[i]!;
        const report: Report = samples[name];
        const check = checkHtml(readFileSync(p.file, 'utf8'));
        expect(p.dom.ids).toBe(check.ids.length);
        expect(p.dom.counts['tr[id^="rule-"]']).toBe(report.rules.length);
        expect(p.dom.counts['tr[id^="case-"]']).toBe(report.cases.length);
        // verdict, chapters, problems, ambient checks, record shapes, failures, properties, rules, cases.
        expect(p.dom.counts.section).toBe(9);
        expect(p.dom.title).toBe(`Cantrip conformance: ${report.implementation.name} ${report.implementation.version} against Cantrip 0.1.0 (cfee8a3)`);
      }
      expect(pages[3]!.dom.counts['tr[id^="rule-"]']).toBe(samples.reference.rules.length);
    });

    it('would notice a request and a console error (the probe page)', () => {
      expect(probe.requests.some((r) => r.startsWith('http://cantrip.invalid/'))).toBe(true);
      expect(probe.console.some((m) => m.type === 'error' && m.text.includes('probe error'))).toBe(true);
    });
  });
});

describe('summary.md and badge.json', () => {
  it('summarise the defect run: failing verdict, the main problems and the first failing cases, in a few kilobytes', () => {
    const md = readFileSync(join(dir, 'defect', 'summary.md'), 'utf8');
    expect(md).toMatch(/^## Cantrip conformance: miniature:ignores-done 0\.1\.0 ❌/);
    expect(md).toContain('| MUST | ❌ **fail** |');
    expect(md).toMatch(/### \d+ problems behind \d+ failing cases/);
    expect(md).toContain('`done-ends-cast-with-answer`');
    expect(md).toContain('`done-ends-the-cast`');
    expect(md.length).toBeLessThan(12_000);
    expect(renderJobSummary(samples.variant)).toContain('| MUST | ✅ pass |');
  });

  it('badge.json is a shields.io endpoint: red for the defect, brightgreen for the reference, blue with its profile for the variant', () => {
    const defect = JSON.parse(readFileSync(join(dir, 'defect', 'badge.json'), 'utf8'));
    expect(Object.keys(defect).sort()).toEqual(['color', 'label', 'message', 'schemaVersion']);
    expect(defect).toMatchObject({ schemaVersion: 1, label: 'cantrip 0.1.0', color: 'red' });
    expect(defect.message).toMatch(/^MUST failing \(\d+\)$/);
    const shares = (r: typeof samples.variant): string => `MUST ${r.verdict.MUST.pass}/${r.verdict.MUST.applicable} · SHOULD ${r.verdict.SHOULD.pass}/${r.verdict.SHOULD.applicable} · MAY ${r.verdict.MAY.pass}/${r.verdict.MAY.applicable}`;
    expect(renderBadge(samples.reference)).toMatchObject({ color: 'brightgreen', message: shares(samples.reference) });
    // The variant declares fewer features than the cases ask for: its pass covers a partial profile, and the badge says so.
    const skipped = (['MUST', 'SHOULD', 'MAY'] as const).reduce((n, l) => n + samples.variant.profile.skipped[l].undeclared, 0);
    expect(skipped).toBeGreaterThan(0);
    expect(renderBadge(samples.variant)).toMatchObject({ color: 'blue', message: `${shares(samples.variant)} · partial profile, ${skipped} skipped` });
  });
});

describe('diff', () => {
  it('variant → defect: new failures with their causes, rules and verdicts that moved', () => {
    const d = diffReports(readReport(join(dir, 'variant.json')), readReport(join(dir, 'defect.json')));
    const done = d.new_failures.find((c) => c.id === 'done-ends-cast-with-answer')!;
    expect(done).toMatchObject({ kind: 'case', from: 'pass', to: 'fail', rules: ['LOOP-3', 'CIRCLE-8'] });
    expect(done.causes.length).toBeGreaterThan(0);
    expect(d.new_failures.some((c) => c.kind === 'property' && c.id === 'done-ends-the-cast')).toBe(true);
    expect(d.fixed).toEqual([]);
    expect(d.verdict).toContainEqual({ level: 'MUST', from: 'pass', to: 'fail' });
    expect(d.rules).toContainEqual(expect.objectContaining({ id: 'LOOP-3', from: 'pass', to: 'fail' }));
    expect(hasRegressions(d)).toBe(true);
    expect(renderDiffText(d)).toMatch(/new failures \(\d+\):\n {2}done-ends-cast-with-answer \[LOOP-3, CIRCLE-8\] pass → fail\n {6}/);
    expect(renderDiffMarkdown(d)).toContain('### New failures');
  });

  it('defect → variant: the same cases are fixed and nothing regresses', () => {
    const d = diffReports(samples.defect, samples.variant);
    const forward = diffReports(samples.variant, samples.defect);
    expect(d.fixed.map((c) => c.id).sort()).toEqual(forward.new_failures.map((c) => c.id).sort());
    expect(d.new_failures).toEqual([]);
    expect(hasRegressions(d)).toBe(false);
  });

  it('reference → variant: cases the variant cannot run are status changes, not failures', () => {
    const d = diffReports(samples.reference, samples.variant);
    expect(d.new_failures).toEqual([]);
    // Cases skipped on both sides (a wire-transport case in a callback run) are no change at all.
    const skippedByReference = new Set(samples.reference.cases.filter((c) => c.status === 'skipped').map((c) => c.id));
    expect(d.other_changes.length).toBe(samples.variant.cases.filter((c) => c.status === 'skipped' && !skippedByReference.has(c.id)).length);
    expect(d.other_changes.every((c) => c.from === 'pass' && c.to === 'skipped')).toBe(true);
    expect(d.added).toEqual([]);
    expect(d.removed).toEqual([]);
  });

  it('a report against itself is unchanged', () => {
    const d = diffReports(samples.defect, samples.defect);
    expect(isUnchanged(d)).toBe(true);
    expect(renderDiffText(d)).toContain('no differences');
  });

  it('sees changed reasons, added and removed cases', () => {
    const after = structuredClone(samples.defect);
    const changed = after.cases.find((c) => c.id === 'done-ends-cast-with-answer')!;
    changed.failures = [{ path: 'outcomes.first.result', matcher: 'equals', ok: false, expected: { equals: 42 }, actual: 41, why: 'values differ' }];
    changed.problems = [];
    after.cases = after.cases.filter((c) => c.id !== 'loop3-done-first-of-three-calls');
    after.cases.push({ ...structuredClone(after.cases[0]!), id: 'a-new-case' });
    const d = diffReports(samples.defect, after);
    const reason = d.changed_reasons.find((c) => c.id === 'done-ends-cast-with-answer')!;
    expect(reason.new_causes).toEqual(['expectation outcomes.….result equals <number>: values differ']);
    expect(reason.gone_causes.length).toBeGreaterThan(0);
    expect(d.removed.map((c) => c.id)).toEqual(['loop3-done-first-of-three-calls']);
    expect(d.added.map((c) => c.id)).toEqual(['a-new-case']);
    // The case's own words and values, not the grouping key.
    expect(renderDiffText(d)).toContain('+ expectation outcomes.first.result: expected equals 42, got 41');
  });
});

describe('matrix', () => {
  it('rule by implementation: LOOP-3 passes in the reference and the variant and fails in the defect', () => {
    const m = buildMatrix([samples.reference, samples.variant, samples.defect]);
    expect(m.columns.map((c) => c.label)).toEqual(['cantrip-reference 0.1.0', 'miniature 0.1.0', 'miniature:ignores-done 0.1.0']);
    expect(m.rows.map((r) => r.id)).toEqual(loadCatalog().rules.map((r) => r.id));
    const loop3 = m.rows.find((r) => r.id === 'LOOP-3')!;
    expect(loop3.cells.map((c) => c.status)).toEqual(['pass', 'pass', 'fail']);
    expect(loop3.differs).toBe(true);
    expect(loop3.cells[2]!.failed).toBeGreaterThan(0);
    // The variant declares fewer features: some rules pass where it could run their cases, the rest
    // skipped. That is a pass with a note, not a state of its own, and not a difference from the reference.
    const narrower = m.rows.filter((r) => r.cells[1]!.skipped > 0 && r.cells[0]!.skipped === 0 && r.cells[1]!.passed > 0 && r.cells[1]!.failed === 0);
    expect(narrower.length).toBeGreaterThan(0);
    for (const r of narrower) expect([r.id, r.cells[1]!.status, cellText(r.cells[1]!)]).toEqual([r.id, 'pass', `pass ${r.cells[1]!.passed}/${r.cells[1]!.total - r.cells[1]!.skipped} · ${r.cells[1]!.skipped} skipped`]);
    for (const column of m.columns) expect(Object.values(column.counts).reduce((a, b) => a + b, 0)).toBe(m.rows.length);
  });

  it('as Markdown and as a self-contained HTML page', () => {
    const m = buildMatrix([{ report: samples.reference, label: 'reference' }, { report: samples.variant, label: 'variant' }, { report: samples.defect, label: 'defect' }]);
    const md = renderMatrixMarkdown(m);
    expect(md).toContain('| rule | level | reference | variant | defect |');
    // Every count is passed of ran; what else happened is named beside it.
    expect(md).toMatch(/\| LOOP-3 Calling done stops the loop ≠ \| MUST \| ✅ pass (\d+)\/\1(?: · \d+ skipped)? \| ✅ pass (\d+)\/\2(?: · \d+ skipped)? \| ❌ fail \d+\/\d+ · [1-9]\d* fail(?: · \d+ skipped)? \|/);
    expect(md).toContain('| **profile** | | full (');
    const only = renderMatrixMarkdown(m, { onlyDifferences: true });
    expect(only.split('\n').filter((l) => /^\| [A-Z]+-\d+ /.test(l)).length).toBe(m.rows.filter((r) => r.differs).length);
    const page = renderMatrixHtml(m);
    expect(checkHtml(page).problems).toEqual([]);
    expect(page).toContain('<td class="s-fail"');
  });

  it('marks ≠ only where one implementation passes a rule and another breaks it, never for skips alone', () => {
    // Two conformant implementations, one declaring fewer features: their skip counts differ on many rules, their verdicts on none.
    const conformant = buildMatrix([samples.reference, samples.variant]);
    expect(conformant.rows.filter((r) => r.cells[0]!.skipped !== r.cells[1]!.skipped).length).toBeGreaterThan(0);
    expect(conformant.rows.filter((r) => r.differs).map((r) => r.id)).toEqual([]);
    const withDefect = buildMatrix([samples.variant, samples.defect]);
    expect(withDefect.rows.find((r) => r.id === 'LOOP-3')!.differs).toBe(true);
    for (const r of withDefect.rows.filter((x) => x.differs)) expect(r.cells.map((c) => c.status).sort()).toEqual(['fail', 'pass']);
  });

  it('tells two reports of one implementation apart by their folder, else by when each run started', () => {
    const monday = structuredClone(samples.variant);
    monday.environment.started_at = '2026-02-02T09:00:00.125Z';
    const tuesday = structuredClone(samples.variant);
    tuesday.environment.started_at = '2026-02-03T17:30:05.000Z';
    expect(buildMatrix([monday, tuesday]).columns.map((c) => c.label)).toEqual(['miniature 0.1.0 (2026-02-02 09:00:00 UTC)', 'miniature 0.1.0 (2026-02-03 17:30:05 UTC)']);
    const bySource = buildMatrix([{ report: monday, source: 'runs/before/report.json' }, { report: tuesday, source: 'runs/after/report.json' }]);
    expect(bySource.columns.map((c) => c.label)).toEqual(['miniature 0.1.0 (runs/before)', 'miniature 0.1.0 (runs/after)']);
  });

  it('numbers columns of the same implementation only when nothing else tells them apart', () => {
    const m = buildMatrix([samples.variant, samples.variant]);
    expect(m.columns.map((c) => c.label)).toEqual(['miniature 0.1.0 (#1)', 'miniature 0.1.0 (#2)']);
    expect(m.rows.every((r) => !r.differs)).toBe(true);
  });
});

describe('writeReportOutputs', () => {
  it('writes junit.xml, report.html, summary.md and badge.json next to each other', () => {
    for (const name of NAMES) {
      for (const file of ['junit.xml', 'report.html', 'summary.md', 'badge.json']) expect(readFileSync(join(dir, name, file), 'utf8').length).toBeGreaterThan(50);
    }
    expect(readFileSync(join(dir, 'defect', 'report.html'), 'utf8')).toBe(renderHtml(samples.defect));
  });
});

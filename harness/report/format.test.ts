/**
 * The report outputs on a hand-made report with every case and property status and text full of
 * characters that break naive XML, HTML and Markdown (harness/testing/report-samples.ts); the escaping
 * helpers; reading report files back; and the checkers the output tests rely on, shown to catch what
 * they are meant to catch.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { anchor, html, mdCode, mdText, readReport, visibleControls, xmlAttr, xmlText } from './format.ts';
import { diffReports } from './diff.ts';
import { renderHtml } from './html.ts';
import { renderJUnit } from './junit.ts';
import { buildMatrix, renderMatrixHtml } from './matrix.ts';
import { renderBadge, renderJobSummary } from './summary.ts';
import { checkHtml, elements, findXmllint, junitSchemaProblems, parseXml, textOf, validateWithXmllint, type XmlElement } from '../testing/markup-check.ts';
import { NASTY, syntheticReport } from '../testing/report-samples.ts';

const XMLLINT = findXmllint();
const NO_XMLLINT = 'SKIPPED: xmllint not found; install the Debian package libxml2-utils';
const made: string[] = [];
const tmp = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'cantrip-report-format-'));
  made.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

const report = syntheticReport();
const testcase = (root: XmlElement, name: string): XmlElement => elements(root).flatMap(elements).find((t) => t.name === 'testcase' && t.attrs.name === name)!;

describe('escaping', () => {
  it('makes characters XML forbids visible instead of dropping them or emitting invalid references', () => {
    expect(visibleControls('a\u0000b\u001bc\uffffd\ud800e😀\tf\ng')).toBe('a\\u0000b\\u001Bc\\uFFFFd\\uD800e😀\tf\ng');
    expect(xmlText('<a> & ]]>')).toBe('&lt;a&gt; &amp; ]]&gt;');
    expect(xmlAttr('"x"\n\ty')).toBe('&quot;x&quot;&#10;&#9;y');
    expect(html(`<b title='x'>"&"</b>`)).toBe('&lt;b title=&#39;x&#39;&gt;&quot;&amp;&quot;&lt;/b&gt;');
  });

  it('round-trips through an XML parser: what was escaped reads back as the visible text', () => {
    const root = parseXml(`<?xml version="1.0" encoding="UTF-8"?>\n<t a="${xmlAttr(NASTY)}">${xmlText(NASTY)}</t>`);
    expect(root.attrs.a).toBe(visibleControls(NASTY));
    expect(textOf(root)).toBe(visibleControls(NASTY));
  });

  it('keeps Markdown inline code and text inert', () => {
    expect(mdCode('a `b` c')).toBe('`` a `b` c ``');
    expect(mdCode('x\ny')).toBe('`x y`');
    expect(mdText('<script>*x*|[y](z)&')).toBe('\\<script\\>\\*x\\*\\|\\[y\\](z)&amp;');
  });

  it('gives distinct, link-safe ids for distinct names', () => {
    expect(anchor('case', 'a-b_c')).toBe('case-a-b_c');
    expect(anchor('case', 'a b')).not.toBe(anchor('case', 'a.b'));
    expect(anchor('case', '<x>"&')).toMatch(/^case-[A-Za-z0-9_.-]+$/);
  });
});

describe('junit.xml of every status', () => {
  const xml = renderJUnit(report);
  const root = parseXml(xml);

  it('is well-formed and follows the schema rules despite the text', () => {
    expect(junitSchemaProblems(root)).toEqual([]);
    expect(xml).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
  });

  it.skipIf(!XMLLINT)(XMLLINT ? 'xmllint validates it against fixtures/junit/junit-10.xsd' : NO_XMLLINT, () => {
    const file = join(tmp(), 'junit.xml');
    writeFileSync(file, xml);
    const result = validateWithXmllint(XMLLINT!, file);
    expect(result.output).toContain('validates');
    expect(result.status).toBe(0);
  });

  it('maps each status: fail → failure, errored → error (timeout), skipped → skipped with the reason, xfail → skipped xfail, stale → failure', () => {
    const only = (name: string): XmlElement => {
      const children = elements(testcase(root, name));
      expect(children, name).toHaveLength(1);
      return children[0]!;
    };
    expect(elements(testcase(root, 'plain-pass'))).toEqual([]);
    const fail = only('nasty-fail');
    expect(fail).toMatchObject({ name: 'failure', attrs: { type: 'expectation' } });
    expect(textOf(fail)).toContain(`expected: ${visibleControls(JSON.stringify({ equals: NASTY }))}`);
    // An ambient invariant seen in the case is not part of its failure: it is a test of its own.
    expect(textOf(fail)).not.toContain('ids-and-parents');
    const ambient = only('ambient ids-and-parents');
    expect(ambient).toMatchObject({ name: 'failure', attrs: { type: 'ambient' } });
    expect(textOf(ambient)).toContain('nasty-fail');
    expect(textOf(fail)).toContain('Problems found while driving the case:');
    expect(only('slow-errored')).toMatchObject({ name: 'error', attrs: { type: 'timeout' } });
    expect(only('needs-folding')).toMatchObject({ name: 'skipped', attrs: { message: 'feature not declared: folding' } });
    expect(only('known-broken')).toMatchObject({ name: 'skipped', attrs: { type: 'xfail' } });
    expect(only('now-passes')).toMatchObject({ name: 'failure', attrs: { type: 'stale' } });
    expect(elements(testcase(root, 'property holds'))).toEqual([]);
    const broken = only('property breaks');
    expect(broken).toMatchObject({ name: 'failure', attrs: { type: 'property' } });
    expect(textOf(broken)).toContain('- id: property-breaks');
    expect(only('property throws').name).toBe('error');
    expect(only('property not-applicable').name).toBe('skipped');
    expect(root.attrs).toMatchObject({ tests: '11', failures: '4', errors: '2' });
  });
});

describe('report.html of every status', () => {
  const page = renderHtml(report);
  const check = checkHtml(page);

  it('is well-formed, with unique ids and resolving links', () => {
    expect(check.problems).toEqual([]);
  });

  it('escapes every piece of text: the markup in it stays text', () => {
    expect(check.tags.get('script')).toBeUndefined();
    expect(check.tags.get('b')).toBeUndefined();
    expect(check.text).toContain('<script>alert(1)</script>');
    expect(check.text).toContain('nasty <impl> & "co"');
    expect(page).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/);
  });

  it('shows the stale entry, the expected failure and the timeout', () => {
    expect(page).toContain(`id="${anchor('failure', 'now-passes')}"`);
    expect(page).toContain('remove it from the expected-failures list');
    expect(page).toContain(`id="${anchor('failure', 'known-broken')}"`);
    expect(page).toContain('(time limit)');
  });
});

describe('summary.md, badge.json, diff and matrix of every status', () => {
  it('the summary lists the stale entry and keeps the text inert', () => {
    const md = renderJobSummary(report);
    expect(md).toContain('**Stale expected failures**');
    expect(md).toContain('`now-passes`');
    expect(md).not.toContain('<script>');
    expect(md).toMatch(/^## Cantrip conformance: nasty \\<impl\\> &amp; "co" 0\.0\.1 ❌/);
  });

  it('a stale entry makes the badge red; failed and errored MUST cases and properties are counted apart', () => {
    // One case and one property fail; one case and one property errored (incomplete is not fail).
    // The label names the draft judged; a label of the caller's own is kept, and the message names it instead.
    expect(renderBadge(report)).toEqual({ schemaVersion: 1, label: 'cantrip 0.1.0', message: 'MUST failing (2) · 2 errored · 1 stale', color: 'red' });
    expect(renderBadge(report, { label: 'spec 0.1' })).toMatchObject({ label: 'spec 0.1', message: 'MUST failing (2) · 2 errored · 1 stale · draft 0.1.0' });
  });

  it('diff reads a stale entry as a failure that is fixed once taken off the list', () => {
    const after = structuredClone(report);
    delete after.cases.find((c) => c.id === 'now-passes')!.stale;
    const d = diffReports(report, after);
    expect(d.fixed.map((c) => [c.id, c.from, c.to])).toEqual([['now-passes', 'stale', 'pass']]);
  });

  it('matrix cells carry xfail and errored', () => {
    const m = buildMatrix([report]);
    const cell = (id: string): string => m.rows.find((r) => r.id === id)!.cells[0]!.status;
    expect(cell('CIRCLE-5')).toBe('xfail');
    expect(cell('LOOP-4')).toBe('errored');
    expect(cell('LOOP-3')).toBe('fail');
    expect(cell('LOOM-5')).toBe('skip');
    expect(cell('LOOP-1')).toBe('pass');
    expect(cell('PROD-1')).toBe('untested');
    expect(checkHtml(renderMatrixHtml(m)).problems).toEqual([]);
  });
});

describe('an interrupted run', () => {
  it('is said to be partial in the HTML, the summary and the JUnit properties', () => {
    const cut = { ...structuredClone(report), interrupted: 'SIGINT' };
    expect(renderHtml(cut)).toContain('The run was interrupted (SIGINT)');
    expect(renderJobSummary(cut)).toContain('**Interrupted** (SIGINT)');
    expect(renderJUnit(cut)).toContain('<property name="interrupted" value="SIGINT"/>');
    expect(renderHtml(report)).not.toContain('was interrupted');
  });
});

describe('readReport', () => {
  it('reads a report back, and fills in root causes for a report written before they existed', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'r.json'), JSON.stringify(report));
    expect(readReport(join(dir, 'r.json'))).toEqual(JSON.parse(JSON.stringify(report)));
    const { root_causes: _dropped, ...older } = JSON.parse(JSON.stringify(report)) as typeof report;
    writeFileSync(join(dir, 'old.json'), JSON.stringify(older));
    expect(readReport(join(dir, 'old.json')).root_causes).toEqual(JSON.parse(JSON.stringify(report.root_causes)));
  });

  it('names the file when it is not JSON or not a report', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'bad.json'), '{');
    expect(() => readReport(join(dir, 'bad.json'))).toThrow(/bad\.json: cannot read a report/);
    writeFileSync(join(dir, 'other.json'), '{"hello": 1}');
    expect(() => readReport(join(dir, 'other.json'))).toThrow(/other\.json: not a conformance report/);
  });
});

describe('the checkers catch what they are for', () => {
  it('the XML parser refuses malformed documents', () => {
    expect(() => parseXml('<a>&bogus;</a>')).toThrow(/unknown entity/);
    expect(() => parseXml('<a>\u0001</a>')).toThrow(/not allowed in XML/);
    expect(() => parseXml('<a>&#1;</a>')).toThrow(/not an XML character/);
    expect(() => parseXml('<a><b></a></b>')).toThrow(/closes/);
    expect(() => parseXml('<a x="1" x="2"/>')).toThrow(/twice/);
    expect(() => parseXml('<a>x & y</a>')).toThrow(/starts no reference/);
  });

  it('the JUnit rules flag missing and unknown attributes, wrong nesting and bad times', () => {
    const problems = junitSchemaProblems(parseXml('<testsuites><testsuite name="s" tests="1" failures="0" time="1.5s"><testcase classname="c" status="x"><failure/><property name="a" value="b"/></testcase>text</testsuite></testsuites>'));
    expect(problems.join('\n')).toMatch(/missing required attribute errors/);
    expect(problems.join('\n')).toMatch(/time="1\.5s" does not match SUREFIRE_TIME/);
    expect(problems.join('\n')).toMatch(/testcase: missing required attribute name/);
    expect(problems.join('\n')).toMatch(/attribute status not allowed/);
    expect(problems.join('\n')).toMatch(/<property> not allowed here/);
    expect(problems.join('\n')).toMatch(/text not allowed/);
  });

  it('the HTML check flags what a browser would rearrange, load or fail to find', () => {
    const page = (body: string): string[] => checkHtml(`<!DOCTYPE html><html lang="en"><head><title>t</title></head><body>${body}</body></html>`).problems;
    expect(page('<p><div>x</div></p>').join()).toMatch(/<div> inside <p>/);
    expect(page('<ul>text<li>x</li></ul>').join()).toMatch(/text directly inside <ul>/);
    expect(page('<td>x</td>').join()).toMatch(/<td> inside <body>/);
    expect(page('<div><span></div>').join()).toMatch(/closes <span>/);
    expect(page('<a id="x"></a><a id="x"></a>').join()).toMatch(/used twice/);
    expect(page('<a href="#nowhere">x</a>').join()).toMatch(/points at no id/);
    expect(page('<a href="https://example.org/">x</a>').join()).toMatch(/a link out of the page/);
    expect(page('<img src="x.png" alt="">').join()).toMatch(/loads/);
    expect(page('<div style="background: url(x.png)"></div>').join()).toMatch(/url\(\)/);
    expect(page('<div onclick="x()"></div>').join()).toMatch(/runs a script/);
    expect(page('a & b').join()).toMatch(/not a reference/);
    expect(page('<div>')).toEqual(expect.arrayContaining([expect.stringMatching(/unclosed at the end/)]));
    expect(page('<p>fine <code>&lt;x&gt;</code></p>')).toEqual([]);
  });
});

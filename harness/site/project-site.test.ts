/**
 * The project's own results site, built as `npm run site` builds it (scripts/project-site.ts: every
 * implementation of this repository run through the command line, then `site --manifest`), on the quick
 * slice of the suite so the check stays cheap, and opened in headless Chromium: every page loads with
 * no request, no console message and no error, the links between pages all resolve, and a broken
 * implementation's failing case is on its page under its rule with its reason.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProjectSite, PROJECT_RUNS } from '../../scripts/project-site.ts';
import { causeText, readReport, type Report } from '../report/index.ts';
import { CHROMIUM_PACKAGE, findChromium, renderInChromium, type PageReport } from '../testing/chromium.ts';
import { hangBound } from '../testing/hang-bound.ts';
import { paths } from './page.ts';
import { slugOf } from './model.ts';

const CHROMIUM = findChromium();
const NO_CHROMIUM = `SKIPPED: Chromium not found; install the Debian package ${CHROMIUM_PACKAGE} (or set CHROMIUM_BIN) to open the site in a headless browser`;

let dir: string;
let out: string;
let runs: string;

function filesUnder(root: string): string[] {
  return readdirSync(root).flatMap((name) => {
    const path = join(root, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cantrip-project-site-'));
  out = join(dir, 'site');
  runs = join(dir, 'runs');
  buildProjectSite({ out, runs, quick: true, properties: false, log: () => {} });
}, hangBound(600_000));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the project site', () => {
  it('has a page for every implementation the project holds, and a badge per implementation and draft', () => {
    const names = [...new Set(PROJECT_RUNS.map((r) => r.implementation))];
    for (const name of names) expect(statSync(join(out, paths.implementation(slugOf(name)))).isFile()).toBe(true);
    for (const r of PROJECT_RUNS.filter((x) => !PROJECT_RUNS.some((y) => y.implementation === x.implementation && y.draft === x.draft && y.date > x.date))) {
      expect(statSync(join(out, paths.badge(slugOf(r.implementation), r.draft))).isFile()).toBe(true);
    }
  });

  describe.skipIf(!CHROMIUM)(CHROMIUM ? 'in headless Chromium' : `in headless Chromium: ${NO_CHROMIUM}`, () => {
    let pages: PageReport[];
    let files: string[];

    beforeAll(async () => {
      files = filesUnder(out).filter((f) => f.endsWith('.html'));
      pages = await renderInChromium(files, { timeoutMs: hangBound(240_000), count: ['a[href]', 'table', 'tr'] });
    }, hangBound(300_000));

    it('opens every page with no request, no console message, no error and no blocked resource', () => {
      expect(pages).toHaveLength(files.length);
      for (const p of pages) {
        expect({ page: relative(out, p.file), console: p.console, exceptions: p.exceptions, log: p.log, requests: p.requests }).toEqual({ page: relative(out, p.file), console: [], exceptions: [], log: [], requests: [] });
        expect(p.dom.duplicateIds).toEqual([]);
        expect(p.dom.brokenLinks).toEqual([]);
        // Links between pages are relative; none leaves the site (no scheme, no host).
        expect(p.dom.externalLinks.filter((h) => /^[a-z][a-z0-9+.-]*:|^\/\//i.test(h))).toEqual([]);
        expect(p.dom.bodyHeight).toBeGreaterThan(200);
      }
    });

    it('follows every link: each points at a page of the site that Chromium opened', () => {
      const opened = new Set(pages.map((p) => p.file));
      const missing: string[] = [];
      for (const file of files) {
        for (const m of readFileSync(file, 'utf8').matchAll(/ href="([^"#]+)(#[^"]*)?"/g)) {
          const target = join(file, '..', m[1]!);
          if (target.endsWith('.html') ? !opened.has(target) : !filesUnder(out).includes(target)) missing.push(`${relative(out, file)} → ${m[1]}`);
        }
      }
      expect(missing).toEqual([]);
    });

    it('the front page sorts and filters with its script, and reads without it', () => {
      const front = pages.find((p) => p.file === join(out, 'index.html'))!;
      // The sort buttons exist only when the script ran; the table's rows are there either way.
      expect(front.dom.text).toContain('Implementations by draft');
      for (const name of new Set(PROJECT_RUNS.map((r) => r.implementation))) expect(front.dom.text).toContain(name);
      expect(front.dom.counts['tr']).toBeGreaterThan(PROJECT_RUNS.length);
    });

    it("a broken implementation's failing case is on its page, under its rule, with its reason", () => {
      const broken = PROJECT_RUNS.find((r) => r.implementation.startsWith('broken'))!;
      const report: Report = readReport(join(runs, broken.id, 'report.json'));
      expect(report.root_causes.length).toBeGreaterThan(0);
      const page = pages.find((p) => p.file === join(out, paths.implementation(slugOf(broken.implementation))))!;
      for (const cause of report.root_causes) {
        const at = page.dom.text.indexOf(causeText(cause));
        expect(at, causeText(cause)).toBeGreaterThan(0);
        const before = page.dom.text.slice(Math.max(0, at - 300), at);
        for (const rule of cause.rules) expect(before).toContain(rule);
        expect(page.dom.text).toContain(cause.cases[0]!);
      }
    });
  });
});

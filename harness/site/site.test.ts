/**
 * The results site from real reports (the reference, the conformant variant and a defect miniature,
 * each run once through the adapter interface: harness/testing/report-samples.ts) and a hand-made one
 * full of awkward text: inputs are checked and refused with the file named, the pages say what the
 * reports say (verdicts, each root cause under its rules with its own text, history between versions,
 * rule results), every link between pages resolves, and the markup is sound.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { causeText, diffReports, html, renderBadge, type Report } from '../report/index.ts';
import { checkHtml } from '../testing/markup-check.ts';
import { hangBound } from '../testing/hang-bound.ts';
import { sampleReports, syntheticReport, type Samples } from '../testing/report-samples.ts';
import { buildSite, readSiteInputs, SiteInputError, SiteOutputError, writeSite, type Site } from './index.ts';
import { fileSafe, paths } from './page.ts';
import { runSite } from '../cli/site-command.ts';

let dir: string;
let samples: Samples;

const put = (path: string, report: unknown): string => {
  mkdirSync(join(dir, path, '..'), { recursive: true });
  writeFileSync(join(dir, path), JSON.stringify(report));
  return path;
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cantrip-site-'));
  samples = await sampleReports();
  put('runs/reference/report.json', samples.reference);
  put('runs/variant/report.json', samples.variant);
  put('runs/defect/report.json', samples.defect);
  put('runs/nasty/report.json', syntheticReport());
}, hangBound(180_000));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('site inputs', () => {
  it('a report that does not validate is refused, naming its file', () => {
    put('bad/report.json', { report_version: 1 });
    const error = (() => {
      try {
        readSiteInputs(['bad/report.json'], { cwd: dir });
      } catch (e) {
        return e as Error;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(SiteInputError);
    expect(error!.message.startsWith('bad/report.json:')).toBe(true);
  });

  it('two reports claiming one implementation, version and draft are refused, naming both files', () => {
    put('twice/a/report.json', samples.variant);
    put('twice/b/report.json', samples.variant);
    expect(() => readSiteInputs(['twice'], { cwd: dir })).toThrow(SiteInputError);
    try {
      readSiteInputs(['twice'], { cwd: dir });
    } catch (e) {
      expect((e as Error).message).toContain('twice/b/report.json');
      expect((e as Error).message).toContain('twice/a/report.json');
    }
    // The same report twice under versions of its own is two entries, not a clash.
    writeFileSync(join(dir, 'twice/site.yaml'), 'reports:\n  - { report: a, version: "1" }\n  - { report: b/report.json, version: "2" }\n');
    expect(readSiteInputs([], { cwd: dir, manifest: 'twice/site.yaml' }).entries.map((e) => e.version)).toEqual(['1', '2']);
  });

  it('a folder is searched for report.json files, and one with none is refused', () => {
    const found = readSiteInputs(['runs'], { cwd: dir }).entries;
    expect(found.map((e) => e.file).sort()).toEqual(['runs/defect/report.json', 'runs/nasty/report.json', 'runs/reference/report.json', 'runs/variant/report.json']);
    expect(found.find((e) => e.file === 'runs/reference/report.json')!.implementation).toBe(samples.reference.implementation.name);
    mkdirSync(join(dir, 'empty'), { recursive: true });
    expect(() => readSiteInputs(['empty'], { cwd: dir })).toThrow(SiteInputError);
    expect(() => readSiteInputs([], { cwd: dir })).toThrow(SiteInputError);
  });

  it('a manifest names implementation, version and date, with paths relative to itself; a bad one is refused with the pointer', () => {
    writeFileSync(join(dir, 'runs/site.json'), JSON.stringify({ title: 'T', reports: [{ report: 'defect', implementation: 'mine', version: '2', date: '2026-01-02' }] }));
    const inputs = readSiteInputs([], { cwd: dir, manifest: 'runs/site.json' });
    expect(inputs.settings).toEqual({ title: 'T' });
    expect(inputs.entries.map((e) => [e.implementation, e.version, e.date, e.draft])).toEqual([['mine', '2', '2026-01-02', '0.1.0']]);
    writeFileSync(join(dir, 'runs/bad-site.json'), JSON.stringify({ reports: [{ report: 'defect', name: 'mine' }] }));
    try {
      readSiteInputs([], { cwd: dir, manifest: 'runs/bad-site.json' });
      expect.unreachable('a manifest with an unknown key must be refused');
    } catch (e) {
      expect(e).toBeInstanceOf(SiteInputError);
      expect((e as Error).message.startsWith('runs/bad-site.json:')).toBe(true);
      expect((e as Error).message).toContain('/reports/0/name');
    }
  });
});

describe('site pages', () => {
  let site: Site;
  const file = (path: string): string => site.files.find((f) => f.path === path)?.content ?? '';

  beforeAll(() => {
    // The defect stands as its own implementation, and as the earlier version of the variant, so the variant's page has history.
    writeFileSync(
      join(dir, 'runs/pages.yaml'),
      [
        'title: Test site',
        'reports:',
        '  - { report: reference }',
        '  - { report: defect, implementation: broken }',
        '  - { report: defect, implementation: variant, version: "1.0", date: 2026-01-01 }',
        '  - { report: variant, implementation: variant, version: "1.1", date: 2026-02-01 }',
        '  - { report: nasty }',
      ].join('\n'),
    );
    site = buildSite(readSiteInputs([], { cwd: dir, manifest: 'runs/pages.yaml' }));
  });

  it('writes a front page, a page per implementation and per rule, and a badge per implementation and draft', () => {
    const names = site.model.implementations.map((i) => i.name).sort();
    expect(names).toEqual([samples.reference.implementation.name, 'broken', syntheticReport().implementation.name, 'variant'].sort());
    for (const impl of site.model.implementations) expect(file(paths.implementation(impl.slug))).toContain(`<h1>${html(impl.name)}</h1>`);
    const rulePages = site.files.filter((f) => f.path.startsWith('rules/'));
    expect(rulePages).toHaveLength(site.model.matrix.rows.length);
    expect(rulePages.length).toBeGreaterThanOrEqual(samples.reference.rules.length);
    const variant = site.model.implementations.find((i) => i.name === 'variant')!;
    expect(JSON.parse(file(paths.badge(variant.slug, '0.1.0')))).toEqual(renderBadge(samples.variant));
  });

  it('the front page shows each verdict per level, and the rules the implementations split on', () => {
    const front = file('index.html');
    const v = samples.defect.verdict.MUST;
    expect(v.status).toBe('fail');
    const broken = site.model.implementations.find((i) => i.name === 'broken')!;
    const row = front.split('\n').find((l) => l.includes(`href="${paths.implementation(broken.slug)}"`))!;
    expect(row).toContain(`MUST <span class="badge s-fail">fail</span> ${v.pass + v.xfail}/${v.applicable} · ${v.fail} fail`);
    // ignores-done breaks LOOP-3, which the reference passes: a split.
    const split = front.slice(front.indexOf('id="split"'), front.indexOf('id="nobody"'));
    expect(split).toContain(`href="${paths.rule('LOOP-3')}"`);
    expect(site.model.split.map((r) => r.id)).toContain('LOOP-3');
  });

  it('an implementation page lists every root cause under its rules, in its own words, with its cases', () => {
    const broken = site.model.implementations.find((i) => i.name === 'broken')!;
    const page = file(paths.implementation(broken.slug));
    expect(samples.defect.root_causes.length).toBeGreaterThan(0);
    for (const cause of samples.defect.root_causes) {
      expect(page).toContain(html(causeText(cause)));
      for (const rule of cause.rules) expect(page).toContain(`<a href="../${paths.rule(rule)}">${rule}</a>`);
      expect(page).toContain(`<code>${html(cause.cases[0]!)}</code>`);
    }
    for (const reason of new Set(samples.defect.cases.filter((c) => c.status === 'skipped').map((c) => c.reason!))) expect(page).toContain(html(reason));
  });

  it('history: the variant page lists what changed between its versions, as diff computes it', () => {
    const variant = site.model.implementations.find((i) => i.name === 'variant')!;
    const page = file(paths.implementation(variant.slug));
    const diff = diffReports(samples.defect, samples.variant);
    expect(diff.fixed.length).toBeGreaterThan(0);
    const fixed = page.slice(page.indexOf('>fixed ('));
    expect(fixed.startsWith(`>fixed (${diff.fixed.length})`)).toBe(true);
    for (const c of diff.fixed) expect(fixed).toContain(`<code>${html(c.id)}</code>`);
    expect(page).toContain('<svg class="trend"');
    // One version only: no history.
    const broken = site.model.implementations.find((i) => i.name === 'broken')!;
    expect(file(paths.implementation(broken.slug))).not.toContain('<svg class="trend"');
  });

  it('a rule page gives each implementation its result, and the cases that broke the rule', () => {
    const page = file(paths.rule('LOOP-3'));
    const loop3 = samples.defect.rules.find((r) => r.id === 'LOOP-3')!;
    expect(loop3.failed_by.length).toBeGreaterThan(0);
    const brokenRow = page.split('<tr').find((r) => r.includes('>broken</a>'))!;
    expect(brokenRow).toContain('class="badge s-fail"');
    for (const c of loop3.failed_by) expect(brokenRow).toContain(`<code>${html(c)}</code>`);
    expect(page).toContain('reference/');
  });

  it('escapes what reports say: no markup of the report gets into a page', () => {
    const nasty = syntheticReport();
    for (const f of site.files.filter((x) => x.path.endsWith('.html'))) {
      expect(f.content).not.toContain('<impl>');
      expect(f.content).not.toContain('<script>alert(1)');
    }
    expect(file('index.html')).toContain(html(nasty.implementation.name));
  });

  it('every link between pages resolves to a page of the site, and every fragment to an id there', () => {
    const ids = new Map(site.files.filter((f) => f.path.endsWith('.html')).map((f) => [f.path, new Set([...f.content.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]!.replace(/&quot;/g, '"')))]));
    const problems: string[] = [];
    let links = 0;
    for (const f of site.files.filter((x) => x.path.endsWith('.html'))) {
      for (const m of f.content.matchAll(/ href="([^"]+)"/g)) {
        const href = m[1]!.replace(/&amp;/g, '&');
        links++;
        const [target, fragment] = href.split('#') as [string, string | undefined];
        const base = f.path.split('/').slice(0, -1);
        const path = target === '' ? f.path : [...base, ...target.split('/')].reduce<string[]>((acc, part) => (part === '..' ? acc.slice(0, -1) : [...acc, part]), []).join('/');
        if (!site.files.some((x) => x.path === path)) problems.push(`${f.path}: ${href} (no such file)`);
        else if (fragment !== undefined && path.endsWith('.html') && !ids.get(path)!.has(decodeURIComponent(fragment))) problems.push(`${f.path}: ${href} (no such id)`);
      }
    }
    expect(problems).toEqual([]);
    expect(links).toBeGreaterThan(site.files.length);
  });

  it('the markup is sound: nesting, unique ids, references (the scripts, inputs and charts the site adds are its own)', () => {
    for (const f of site.files.filter((x) => x.path.endsWith('.html'))) {
      const problems = checkHtml(f.content).problems.filter((p) => !/<(script|input|svg)\b|a link out of the page/.test(p));
      expect({ page: f.path, problems }).toEqual({ page: f.path, problems: [] });
    }
  });
});

describe('writing the site', () => {
  it('refuses a folder holding other files, and replaces a site written before', () => {
    const site = buildSite(readSiteInputs(['runs/reference'], { cwd: dir }));
    const out = join(dir, 'out');
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'notes.txt'), 'mine');
    expect(() => writeSite(out, site)).toThrow(SiteOutputError);
    expect(readFileSync(join(out, 'notes.txt'), 'utf8')).toBe('mine');
    const fresh = join(dir, 'fresh');
    writeSite(fresh, site);
    const stale = join(fresh, 'implementations', 'gone.html');
    writeFileSync(stale, 'an implementation no longer on the site');
    writeSite(fresh, site);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(join(fresh, 'index.html'))).toBe(true);
  });

  it('file names keep names apart and inside their folder', () => {
    expect(fileSafe('../x')).toBe('~2e.~2fx');
    expect(fileSafe('a/b')).not.toBe(fileSafe('a~2fb'));
    expect(fileSafe('0.3.1')).toBe('0.3.1');
  });
});

describe('cantrip-conformance site', () => {
  it('exit 0 and the site written; exit 2 naming the file for a report that does not validate, with nothing written', () => {
    const lines: string[] = [];
    const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l), cwd: dir };
    expect(runSite(['runs/reference', 'runs/defect', '--out', 'cli-site', '--title', 'Mine'], io)).toBe(0);
    expect(readFileSync(join(dir, 'cli-site', 'index.html'), 'utf8')).toContain('<h1>Mine</h1>');
    lines.length = 0;
    put('cli-bad/report.json', { report_version: 1 });
    expect(runSite(['runs/reference', 'cli-bad', '--out', 'cli-site-2'], io)).toBe(2);
    expect(lines.join('\n').startsWith('cli-bad/report.json:')).toBe(true);
    expect(existsSync(join(dir, 'cli-site-2'))).toBe(false);
    expect(runSite(['--nope'], io)).toBe(2);
  });
});

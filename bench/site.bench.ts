/**
 * Results-site benchmark (prints figures, asserts nothing). Run: `npx tsx bench/site.bench.ts [--implementations 50] [--repeat 3]`.
 *
 * Makes the reports of N implementations x 3 drafts x the full suite: the reference is run once per
 * draft (every case, no properties), and each implementation's report is that run with a different,
 * seeded handful of cases turned into failures (so root causes, splits and rule results vary), rebuilt
 * by `buildReport` and written as report.json. Then times reading and checking the reports and building
 * and writing the site (median of `--repeat` builds), and prints the pages' sizes: the front page, the
 * largest implementation and rule pages, and the whole site.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir, loadavg, cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { adapterFactory, PACKAGE_ROOT } from '../harness/cli/main.ts';
import { loadCaseFile } from '../harness/case-file/load.ts';
import { runSuite, type SuiteResult } from '../harness/run/run.ts';
import { buildReport } from '../harness/report/report.ts';
import { buildSite, readSiteInputs, writeSite } from '../harness/site/index.ts';

const { values } = parseArgs({ options: { implementations: { type: 'string', default: '50' }, repeat: { type: 'string', default: '3' } } });
const N = Number(values.implementations);
const REPEAT = Number(values.repeat);
const DRAFTS = ['0.1.0', '0.2.0', '0.3.1'];

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;

/** A small seeded generator, so every run of the bench makes the same reports. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** The reference's run at `draft` with a seeded handful of its passing cases turned into failures. */
function variantOf(base: SuiteResult, i: number): SuiteResult {
  const random = seeded(i * 7919 + base.draft.length);
  const broken = i % 5 === 0 ? 0 : 1 + Math.floor(random() * 12);
  const cases = base.cases.map((c) => ({ ...c }));
  const passing = cases.filter((c) => c.status === 'pass');
  for (let k = 0; k < broken && passing.length > 0; k++) {
    const c = passing.splice(Math.floor(random() * passing.length), 1)[0]!;
    const rule = c.rules[Math.floor(random() * c.rules.length)]!;
    c.status = 'fail';
    c.failed_rules = [rule];
    c.failures = [{ path: `outcomes.first.status`, matcher: 'equals', ok: false, expected: { equals: 'terminated' }, actual: k % 2 ? 'truncated' : 'failed', why: 'values differ', rule }];
  }
  return { ...base, description: { ...base.description, name: `implementation-${String(i).padStart(2, '0')}`, version: `1.${i % 4}` }, cases };
}

const dir = mkdtempSync(join(tmpdir(), 'cantrip-site-bench-'));
try {
  const file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
  const factory = await adapterFactory('reference', PACKAGE_ROOT);
  let t = performance.now();
  const runs = [];
  for (const draft of DRAFTS) runs.push(await runSuite(file, factory, { draft, jobs: 12 }));
  console.log(`reference runs at ${DRAFTS.join(', ')}: ${((performance.now() - t) / 1000).toFixed(1)} s; ${runs.map((r) => r.cases.length).join(' / ')} cases`);
  t = performance.now();
  let bytes = 0;
  for (let i = 0; i < N; i++) {
    for (const run of runs) {
      const report = buildReport(variantOf(run, i));
      const text = JSON.stringify(report);
      bytes += text.length;
      mkdirSync(join(dir, 'reports', `${i}-${run.draft}`), { recursive: true });
      writeFileSync(join(dir, 'reports', `${i}-${run.draft}`, 'report.json'), text);
    }
  }
  console.log(`${N * DRAFTS.length} reports written (${(bytes / 1024 / 1024).toFixed(1)} MiB of report.json) in ${((performance.now() - t) / 1000).toFixed(1)} s`);

  const read: number[] = [];
  const build: number[] = [];
  const write: number[] = [];
  let pages = 0;
  for (let r = 0; r < REPEAT; r++) {
    let t0 = performance.now();
    const inputs = readSiteInputs([join(dir, 'reports')], { cwd: dir });
    read.push(performance.now() - t0);
    t0 = performance.now();
    const site = buildSite(inputs);
    build.push(performance.now() - t0);
    t0 = performance.now();
    pages = writeSite(join(dir, 'site'), site).length;
    write.push(performance.now() - t0);
  }
  const sizes = (sub: string): number[] => readdirSync(join(dir, 'site', sub)).map((f) => statSync(join(dir, 'site', sub, f)).size);
  const front = statSync(join(dir, 'site', 'index.html')).size;
  const impl = sizes('implementations');
  const rules = sizes('rules');
  const total = (d: string): number => readdirSync(d).reduce((n, f) => n + (statSync(join(d, f)).isDirectory() ? total(join(d, f)) : statSync(join(d, f)).size), 0);
  console.log(`site of ${N} implementations x ${DRAFTS.length} drafts, ${pages} files; medians of ${REPEAT} (min-max):`);
  console.log(`  read and validate the reports: ${(median(read) / 1000).toFixed(2)} s (${(Math.min(...read) / 1000).toFixed(2)}-${(Math.max(...read) / 1000).toFixed(2)})`);
  console.log(`  build the pages:               ${(median(build) / 1000).toFixed(2)} s (${(Math.min(...build) / 1000).toFixed(2)}-${(Math.max(...build) / 1000).toFixed(2)})`);
  console.log(`  write them:                    ${(median(write) / 1000).toFixed(2)} s (${(Math.min(...write) / 1000).toFixed(2)}-${(Math.max(...write) / 1000).toFixed(2)})`);
  console.log(`  front page ${kb(front)} (${kb(gzipSync(readFileSync(join(dir, 'site', 'index.html'))).length)} gzipped, as a static host serves it); implementation pages median ${kb(median(impl))}, largest ${kb(Math.max(...impl))}; rule pages median ${kb(median(rules))}, largest ${kb(Math.max(...rules))}; whole site ${kb(total(join(dir, 'site')))}`);
  console.log(`load average at the end ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * The project's own results site: runs the suite against every implementation this repository holds
 * (the reference at each draft, the conformant variant, the Python skeleton, the independent
 * implementations of fixtures/independent/, and deliberately broken variants, one of them in two versions so the site shows
 * history), each through the command line exactly as a user runs it, then builds the site from the
 * reports with a manifest. `npm run site` writes it to `site/`; docs/ci.md publishes it.
 *
 *   tsx scripts/project-site.ts [--out site] [--runs <dir>] [--quick] [--properties]
 *
 * `--quick` judges only the loop's rules and the turn cap (LOOP, CIRCLE-6) and is what the kit's
 * own test of the site uses; without it every case runs. Properties are left out unless `--properties`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'bin', 'cantrip-conformance.mjs');

export interface ProjectRun {
  /** Folder name of the run under the runs folder. */
  id: string;
  adapter: string;
  draft: string;
  implementation: string;
  version: string;
  date: string;
}

/** Every implementation of this repository the site shows. Dates order versions; they are the dates the versions stand for, not run times. */
export const PROJECT_RUNS: ProjectRun[] = [
  ...['0.1.0', '0.2.0', '0.3.1'].map((draft) => ({ id: `reference-${draft}`, adapter: 'reference', draft, implementation: 'cantrip reference', version: '0.1.0', date: '2026-11-28' })),
  ...['0.1.0', '0.3.1'].map((draft) => ({ id: `variant-${draft}`, adapter: 'fixtures/miniatures/miniature.ts', draft, implementation: 'conformant variant', version: '1.1', date: '2026-11-28' })),
  // The variant's earlier version: one turn past the cap. Its page shows the fix as history. (A
  // defect copy of the variant declares no draft, so it is judged at 0.1.0 only.)
  { id: 'variant-off-by-one-0.1.0', adapter: 'fixtures/miniatures/off-by-one-max-turns.ts', draft: '0.1.0', implementation: 'conformant variant', version: '1.0', date: '2026-10-01' },
  { id: 'ignores-done-0.1.0', adapter: 'fixtures/miniatures/ignores-done.ts', draft: '0.1.0', implementation: 'broken: ignores done', version: '1.0', date: '2026-11-28' },
  { id: 'python-skeleton-0.3.1', adapter: 'cmd:python3 fixtures/adapters/python/cantrip_adapter_skeleton.py', draft: '0.3.1', implementation: 'python skeleton', version: '1.0', date: '2026-11-28' },
  // Written from one draft's text by people who had not read the kit's code (fixtures/independent/).
  { id: 'independent-python-0.3.1', adapter: 'cmd:python3 fixtures/independent/python-0.3.1/adapter.py', draft: '0.3.1', implementation: 'spellbook (independent, Python)', version: '1.0', date: '2026-11-28' },
  { id: 'independent-js-0.2.0', adapter: 'fixtures/independent/js-0.2.0/adapter.mjs', draft: '0.2.0', implementation: 'independent JavaScript', version: '1.0', date: '2026-11-28' },
];

/** The families `--quick` judges. */
export const QUICK_FILTER = 'LOOP,CIRCLE-6';

export interface ProjectSiteOptions {
  out: string;
  runs: string;
  quick: boolean;
  properties: boolean;
  /** Lines of progress; default stderr. */
  log?: (line: string) => void;
  /** Longest one run may take before it is stopped and the build fails; default 10 minutes (a whole run on a busy machine takes a few). */
  runTimeoutMs?: number;
}

/** Runs every implementation, writes the manifest, builds the site. Throws when a run could not be judged (exit 2) or the site fails to build. */
export function buildProjectSite(options: ProjectSiteOptions): void {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  rmSync(options.runs, { recursive: true, force: true });
  mkdirSync(options.runs, { recursive: true });
  for (const run of PROJECT_RUNS) {
    const out = join(options.runs, run.id);
    const args = [CLI, 'run', '--adapter', run.adapter, '--spec', run.draft, '--out', out, '--quiet', ...(options.properties ? [] : ['--no-properties']), ...(options.quick ? ['--filter', QUICK_FILTER] : [])];
    const started = Date.now();
    const result = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: options.runTimeoutMs ?? 600_000, killSignal: 'SIGTERM' });
    if (result.error) throw new Error(`${run.id}: the run did not finish: ${result.error.message}`);
    // Exit 1 (a failing MUST) is the point of the broken implementations; 3 (incomplete) is reported as it is. 2 means nothing was judged.
    if (result.status === 2 || result.status === null || !existsSync(join(out, 'report.json'))) {
      throw new Error(`${run.id}: the run did not produce a report (exit ${result.status ?? result.signal}):\n${result.stderr.slice(-2000)}`);
    }
    log(`${run.id}: exit ${result.status}, ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  const manifest = {
    title: 'Cantrip implementations in cantrip-conformance',
    reports: PROJECT_RUNS.map((r) => ({ report: `${r.id}/report.json`, implementation: r.implementation, version: r.version, date: r.date })),
  };
  writeFileSync(join(options.runs, 'site.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const site = spawnSync(process.execPath, [CLI, 'site', '--manifest', join(options.runs, 'site.json'), '--out', options.out], { cwd: ROOT, encoding: 'utf8', timeout: options.runTimeoutMs ?? 600_000 });
  if (site.status !== 0) throw new Error(`site: exit ${site.status}:\n${site.stderr}`);
  log(site.stdout.trim());
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { out: { type: 'string', default: 'site' }, runs: { type: 'string', default: 'site-runs' }, quick: { type: 'boolean', default: false }, properties: { type: 'boolean', default: false } } });
  buildProjectSite({ out: resolve(values.out), runs: resolve(values.runs), quick: values.quick, properties: values.properties });
}

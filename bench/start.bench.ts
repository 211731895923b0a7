/**
 * How long `npm start` takes (the cases and the properties against the reference), with its start-up
 * measured apart (issue 15). Prints figures; asserts nothing; does not change the CLI.
 *
 * Each figure is a fresh `node` process, `rounds` of each (default 3), interleaved:
 * - start-up: from process start to the point the run could begin: tsx registered, the CLI module
 *   (which imports the whole harness) and the reference adapter imported, tests.yaml loaded and checked;
 * - cases only: `run --no-properties` (cases that script a wait overlapping the others, the default);
 * - cases one at a time: `run --no-properties --jobs 1`, to show what the overlap saves;
 * - full run: `run`, what `npm start` does; the properties take about its time less the cases'.
 * Runs write their reports to a scratch directory, not `reports/`. Each line gives wall time and the
 * CPU time of the process (user + system), which shows how much of the wall time was the machine
 * being busy with something else.
 *
 *   npx tsx bench/start.bench.ts [rounds] [--profile <dir>]
 *
 * `--profile <dir>` also writes one CPU profile of a full run there (`node --cpu-prof`); summarize it
 * with `npx tsx bench/profile-top.ts <file>`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const profileAt = args.indexOf('--profile');
const profileDir = profileAt >= 0 ? args.splice(profileAt, 2)[1] : undefined;
const rounds = Number(args[0] ?? 3);
const scratch = mkdtempSync(join(tmpdir(), 'cantrip-start-'));

/** Runs `bench/start-phases.mjs` with `phaseArgs` in a fresh process; returns the timings it printed. */
function timedNode(phaseArgs: string[]): Record<string, number> {
  const child = spawnSync(process.execPath, [join(ROOT, 'bench', 'start-phases.mjs'), ...phaseArgs], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 });
  const last = child.stdout.trim().split('\n').at(-1) ?? '';
  if (!last.startsWith('{')) throw new Error(`start-phases.mjs ${phaseArgs.join(' ')} printed no timings:\n${child.stderr}`);
  return JSON.parse(last) as Record<string, number>;
}

const kinds = {
  'start-up': () => timedNode(['startup']),
  'cases only': () => timedNode(['run', 'run', '--no-properties', '--out', join(scratch, 'cases')]),
  'cases one at a time': () => timedNode(['run', 'run', '--no-properties', '--jobs', '1', '--out', join(scratch, 'sequential')]),
  'full run (npm start)': () => timedNode(['run', 'run', '--out', join(scratch, 'full')]),
} as const;
const results = new Map<string, Record<string, number>[]>();
try {
  for (let round = 0; round < rounds; round++) {
    for (const [name, measure] of Object.entries(kinds)) results.set(name, [...(results.get(name) ?? []), measure()]);
  }
  if (profileDir) {
    execFileSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', profileDir, join(ROOT, 'bin', 'cantrip-conformance.mjs'), 'run', '--out', join(scratch, 'profiled')], { cwd: ROOT, stdio: 'ignore' });
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const span = (values: number[]): string => `${median(values).toFixed(0)} ms (min ${Math.min(...values).toFixed(0)}, max ${Math.max(...values).toFixed(0)})`;
console.log(`npm start, ${rounds} rounds, one fresh process each, node ${process.version}`);
for (const [name, runs] of results) {
  console.log(`${name.padEnd(22)} wall ${span(runs.map((run) => run.wallMs!))}; cpu ${span(runs.map((run) => run.cpuMs!))}`);
  if (name === 'start-up') {
    for (const step of ['tsxMs', 'cliMs', 'adapterMs', 'casesMs']) {
      console.log(`${''.padEnd(24)}${step.replace('Ms', '').padEnd(8)} +${median(runs.map((run) => run[step]!)).toFixed(0)} ms`);
    }
  }
}
const wall = (name: string): number => median(results.get(name)!.map((run) => run.wallMs!));
console.log(`${'properties (derived)'.padEnd(22)} wall ${(wall('full run (npm start)') - wall('cases only')).toFixed(0)} ms (full run less cases only, medians)`);
if (profileDir) console.log(`CPU profile of a full run written to ${profileDir}`);

/**
 * Harness benchmark (prints figures, asserts nothing). Run: `npx tsx bench/harness.bench.ts`.
 * 1. The full tests.yaml against the reference adapter in-process: median wall time of 5 runs.
 * 2. Harness overhead per case: median case duration against the miniature (a tiny in-memory
 *    implementation), i.e. an upper bound of what the harness itself costs per case.
 */
import { join } from 'node:path';
import { adapterFactory, PACKAGE_ROOT } from '../harness/cli-main.ts';
import { loadCaseFile } from '../harness/load.ts';
import { runSuite, type AdapterFactory } from '../harness/run.ts';
import { Miniature } from '../fixtures/miniatures/miniature.ts';

const RUNS = 5;
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const ms = (x: number): string => `${x.toFixed(2)} ms`;

const file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));

async function suiteTimes(factory: AdapterFactory): Promise<{ wall: number[]; perCase: number[]; ran: number; statuses: Record<string, number> }> {
  const wall: number[] = [];
  let perCase: number[] = [];
  let ran = 0;
  let statuses: Record<string, number> = {};
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const suite = await runSuite(file, factory);
    wall.push(performance.now() - t0);
    const executed = suite.cases.filter((c) => c.status !== 'skipped');
    ran = executed.length;
    perCase = perCase.concat(executed.map((c) => c.duration_ms));
    statuses = {};
    for (const c of suite.cases) statuses[c.status] = (statuses[c.status] ?? 0) + 1;
  }
  return { wall, perCase, ran, statuses };
}

console.log(`cases in tests.yaml: ${file.cases.length}; runs per figure: ${RUNS}`);

const mini = await suiteTimes(() => new Miniature());
console.log(`miniature:  full run median ${ms(median(mini.wall))}; ${mini.ran} cases run; median per case ${ms(median(mini.perCase))} (harness overhead upper bound; target <= 5 ms)`);

try {
  const ref = await suiteTimes(await adapterFactory('reference', PACKAGE_ROOT));
  console.log(`reference:  full run median ${ms(median(ref.wall))} (target <= 5000 ms); ${ref.ran} cases run; median per case ${ms(median(ref.perCase))}; statuses ${JSON.stringify(ref.statuses)}`);
} catch (error) {
  console.log(`reference:  not measured (${(error as Error).message})`);
}

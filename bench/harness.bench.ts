/**
 * Harness benchmark (prints figures, asserts nothing). Run: `npx tsx bench/harness.bench.ts`.
 * 1. The full tests.yaml against the reference adapter in-process: median wall time of 5 runs.
 * 2. Harness overhead per case: median case duration against the miniature (a tiny in-memory
 *    implementation), i.e. an upper bound of what the harness itself costs per case.
 * 3. The generated properties (harness/properties), default runs, fixed seeds: median wall time, alone
 *    and added to the case run, for the miniature and the reference (target: the whole run in a few seconds).
 */
import { join } from 'node:path';
import { adapterFactory, PACKAGE_ROOT } from '../harness/cli/main.ts';
import { loadCaseFile } from '../harness/case-file/load.ts';
import { runSuite, type AdapterFactory } from '../harness/run/run.ts';
import { Miniature } from '../fixtures/miniatures/miniature.ts';
import { DEFAULT_PROPERTY_RUNS, runProperties } from '../harness/properties/run-properties.ts';
import { describeAdapter } from '../harness/run/run.ts';

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

async function propertyTimes(factory: AdapterFactory): Promise<{ wall: number[]; statuses: Record<string, number> }> {
  const description = await describeAdapter(factory);
  const wall: number[] = [];
  let statuses: Record<string, number> = {};
  for (let seed = 1; seed <= RUNS; seed++) {
    const t0 = performance.now();
    const results = await runProperties(factory, description, { seed });
    wall.push(performance.now() - t0);
    statuses = {};
    for (const r of results) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
  }
  return { wall, statuses };
}

const miniProps = await propertyTimes(() => new Miniature());
console.log(`properties, miniature: median ${ms(median(miniProps.wall))} for ${DEFAULT_PROPERTY_RUNS} runs each (seeds 1-${RUNS}); statuses ${JSON.stringify(miniProps.statuses)}`);
try {
  const factory = await adapterFactory('reference', PACKAGE_ROOT);
  const refProps = await propertyTimes(factory);
  const cases = median((await suiteTimes(factory)).wall);
  console.log(`properties, reference: median ${ms(median(refProps.wall))}; statuses ${JSON.stringify(refProps.statuses)}; cases + properties ~ ${ms(cases + median(refProps.wall))} (target <= 5000 ms)`);
} catch (error) {
  console.log(`properties, reference: not measured (${(error as Error).message})`);
}

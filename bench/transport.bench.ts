/**
 * Crystal transport benchmark (prints figures, asserts nothing). Run: `npx tsx bench/transport.bench.ts [runs]`.
 * The whole tests.yaml against the reference, in-process, through the callback and through each wire
 * transport (issue 13: the crystal server, the reference's own HTTP providers). Runs are paired: each
 * round runs the callback, every wire transport, then the callback again, and each wire run is compared
 * with the mean of its round's two callback runs, so a machine whose load drifts during the bench slows
 * both sides of a pair alike. Per transport: the median wall time, the median of the paired differences
 * (the time the transport adds to the suite), and the median of the paired ratios.
 * Only the cases both transports run are timed (the wire-only cases have no callback counterpart),
 * and the load average is printed, since the figures mean little on a busy machine.
 */
import { join } from 'node:path';
import { loadavg } from 'node:os';
import type { CrystalTransport } from '../schemas/adapter.ts';
import { adapterFactory, PACKAGE_ROOT } from '../harness/cli/main.ts';
import { loadCaseFile } from '../harness/case-file/load.ts';
import { runSuite, type AdapterFactory } from '../harness/run/run.ts';
import { planCases } from '../harness/plan/plan.ts';
import { describeAdapter } from '../harness/run/run.ts';

const RUNS = Math.max(1, Number(process.argv[2] ?? 3) || 3);
const WIRE: CrystalTransport[] = ['openai', 'openai-stream', 'anthropic', 'anthropic-stream', 'gemini', 'gemini-stream'];

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const ms = (x: number): string => `${x.toFixed(0)} ms`;

const file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
const factory: AdapterFactory = await adapterFactory('reference', PACKAGE_ROOT);
const description = await describeAdapter(factory);

/** The ids of the cases that run both through the callback and through every wire transport. */
const ran = (transport: CrystalTransport): Set<string> => new Set(planCases(file.cases, description, [], transport).filter((p) => !p.skip).map((p) => p.case.id));
const common = [...ran('callback')].filter((id) => WIRE.every((t) => ran(t).has(id)));

async function timed(transport: CrystalTransport): Promise<{ wall: number; bad: number }> {
  const t0 = performance.now();
  const suite = await runSuite(file, factory, { crystalTransport: transport, filter: common });
  return { wall: performance.now() - t0, bad: suite.cases.filter((c) => c.status === 'fail' || c.status === 'errored').length };
}

console.log(`tests.yaml: ${file.cases.length} cases, ${common.length} run through every transport; ${RUNS} paired rounds; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} on this machine`);
// One untimed warm-up run of each, so module loading and JIT do not land in the first pair.
for (const t of ['callback' as const, ...WIRE]) await timed(t);

const callback: number[] = [];
let callbackBad = 0;
const wire = new Map<CrystalTransport, { wall: number[]; added: number[]; ratio: number[]; bad: number }>(WIRE.map((t) => [t, { wall: [], added: [], ratio: [], bad: 0 }]));
for (let round = 0; round < RUNS; round++) {
  const before = await timed('callback');
  const runs = new Map<CrystalTransport, { wall: number; bad: number }>();
  for (const t of WIRE) runs.set(t, await timed(t));
  const after = await timed('callback');
  callback.push(before.wall, after.wall);
  callbackBad += before.bad + after.bad;
  const base = (before.wall + after.wall) / 2;
  for (const [t, run] of runs) {
    const entry = wire.get(t)!;
    entry.wall.push(run.wall);
    entry.added.push(run.wall - base);
    entry.ratio.push(run.wall / base);
    entry.bad += run.bad;
  }
}

console.log(`callback          median ${ms(median(callback))} (${callback.length} runs)${callbackBad > 0 ? `; ${callbackBad} failing or errored case runs` : ''}`);
for (const [t, entry] of wire) {
  console.log(`${t.padEnd(17)} median ${ms(median(entry.wall))}; adds ${ms(median(entry.added))} (median of ${entry.added.length} paired differences); ratio ${median(entry.ratio).toFixed(2)}${entry.bad > 0 ? `; ${entry.bad} failing or errored case runs` : ''}`);
}
console.log(`load average after: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);

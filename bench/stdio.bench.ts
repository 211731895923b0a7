/**
 * The reference over stdio against in-process (prints figures, asserts nothing; issue 11's target is a
 * stdio run at most 1.5 times the in-process one). Run: `npx tsx bench/stdio.bench.ts [--runs 3]`.
 *
 * 1. Paired runs of tests.yaml, no properties: in-process, then over stdio (the stdio server started with
 *    `node --import tsx`, as `--adapter cmd:...` would); the median wall time of each and their ratio.
 * 2. Where the stdio run's extra time goes, from its last run: how many sessions and process starts,
 *    what a process start and handshake costs, the harness's own time reading lines (JSON parse, envelope
 *    and schema checks) and writing them (JSON.stringify); the rest is the server's side of the same work,
 *    the pipes and waiting on the other process.
 *
 * The harness-side figures come from wrapping `Connection`'s methods in this process only.
 */
import { join } from 'node:path';
import { adapterFactory, PACKAGE_ROOT } from '../harness/cli/main.ts';
import { loadCaseFile } from '../harness/case-file/load.ts';
import { runSuite, type AdapterFactory } from '../harness/run/run.ts';
import { commandAdapterFactory, JsonRpcAdapter } from '../harness/adapters/jsonrpc-adapter.ts';
import { stopAllImplementations } from '../harness/adapters/child-process.ts';
import { Connection } from '../schemas/protocol/connection.ts';

const runsFlag = process.argv.indexOf('--runs');
const RUNS = runsFlag === -1 ? 3 : Number(process.argv[runsFlag + 1]);
const SERVER = join(PACKAGE_ROOT, 'reference', 'adapter', 'stdio-server.ts');
const stdioCommand = { command: process.execPath, args: ['--import', 'tsx', SERVER] };
const file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));

/** What the harness side of the protocol did during one run. */
const counts = { receivedLines: 0, receiveMs: 0, sentLines: 0, sendMs: 0, sessions: 0, starts: 0, startMs: 0 };
/** Why sessions ended without their process being kept for the next one, and how often. */
let notReused: Record<string, number> = {};
type Wrapped = {
  receive: (line: string) => void;
  send: (message: unknown) => void;
  request: (method: string, params: unknown) => Promise<unknown>;
  break: (error: Error) => void;
};
const proto = Connection.prototype as unknown as Wrapped;
const { receive, send, request } = proto;
const breakConnection = proto.break;
/** Why connections broke (a broken connection's process is replaced), first words of the reason. */
let breaks: Record<string, number> = {};
proto.break = function (this: Wrapped & { brokenBy?: Error }, error: Error) {
  if (!this.brokenBy) {
    const why = error.message.replace(/\(.*?\)/g, '').slice(0, 70);
    breaks[why] = (breaks[why] ?? 0) + 1;
  }
  breakConnection.call(this, error);
};
proto.receive = function (this: Wrapped, line: string) {
  const t = performance.now();
  receive.call(this, line);
  counts.receiveMs += performance.now() - t;
  counts.receivedLines++;
};
proto.send = function (this: Wrapped, message: unknown) {
  const t = performance.now();
  send.call(this, message);
  counts.sendMs += performance.now() - t;
  counts.sentLines++;
};
proto.request = function (this: Wrapped & { nextId: number }, method: string, params: unknown) {
  if (method !== 'describe') return request.call(this, method, params);
  counts.sessions++;
  // A connection's first request is the handshake of a process just started: time it until answered.
  if (this.nextId !== 1) return request.call(this, method, params);
  counts.starts++;
  const t = performance.now();
  return request.call(this, method, params).finally(() => (counts.startMs += performance.now() - t));
};
type Session = { channel: { connection: { idle: boolean; broken?: Error }; reusable: boolean; process: { running: boolean } }; dispose: () => Promise<void> };
const adapterProto = JsonRpcAdapter.prototype as unknown as Session;
const { dispose } = adapterProto;
adapterProto.dispose = async function (this: Session) {
  const { connection } = this.channel;
  const before = connection.broken ? 'connection broken' : connection.idle ? 'idle' : 'requests in flight';
  const t = performance.now();
  await dispose.call(this);
  if (this.channel.process.running && this.channel.reusable) return;
  const why = before !== 'idle' ? before : performance.now() - t > 600 ? 'dispose not answered in time' : 'other';
  notReused[why] = (notReused[why] ?? 0) + 1;
};

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const s = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

async function timedRun(factory: AdapterFactory): Promise<{ ms: number; statuses: string }> {
  const t = performance.now();
  const suite = await runSuite(file, factory);
  const ms = performance.now() - t;
  const tally: Record<string, number> = {};
  for (const c of suite.cases) tally[c.status] = (tally[c.status] ?? 0) + 1;
  return { ms, statuses: JSON.stringify(tally) };
}

/** Start and handshake of a fresh stdio server, median of 5 (process start, tsx, module loading). */
async function startCost(): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const adapter = await commandAdapterFactory(stdioCommand, { cwd: PACKAGE_ROOT, reuse: false })();
    times.push(performance.now() - t);
    await adapter.dispose();
  }
  return median(times);
}

const inProcess = await adapterFactory('reference', PACKAGE_ROOT);
const walls = { inProcess: [] as number[], stdio: [] as number[] };
for (let run = 1; run <= RUNS; run++) {
  const a = await timedRun(inProcess);
  for (const key of Object.keys(counts) as (keyof typeof counts)[]) counts[key] = 0;
  notReused = {};
  breaks = {};
  const b = await timedRun(commandAdapterFactory(stdioCommand, { cwd: PACKAGE_ROOT }));
  await stopAllImplementations(600);
  walls.inProcess.push(a.ms);
  walls.stdio.push(b.ms);
  console.log(`run ${run}: in-process ${s(a.ms)} ${a.statuses}; stdio ${s(b.ms)} ${b.statuses}`);
}
const [x, y] = [median(walls.inProcess), median(walls.stdio)];
console.log(`\nmedian of ${RUNS}: in-process ${s(x)}, stdio ${s(y)}, ratio ${(y / x).toFixed(2)} (target <= 1.5)`);

// Figures of the last stdio run, before the start-cost measurement adds its own.
const last = { ...counts, notReused: JSON.stringify(notReused), breaks: JSON.stringify(breaks) };
const start = await startCost();
const extra = walls.stdio.at(-1)! - walls.inProcess.at(-1)!;
console.log(`\nthe last pair of runs: stdio took ${s(extra)} more; where it goes:`);
console.log(`  sessions ${last.sessions}, process starts ${last.starts} (a fresh start + handshake alone: ${start.toFixed(0)} ms), waited on in the run: ${s(last.startMs)}`);
console.log(`  sessions whose process was not kept for the next: ${last.notReused}; connections that broke: ${last.breaks}`);
console.log(`  harness reading ${last.receivedLines} lines (parse + checks + dispatch): ${s(last.receiveMs)}`);
console.log(`  harness writing ${last.sentLines} lines (JSON.stringify + pipe write): ${s(last.sendMs)}`);
console.log(`  the rest (the server's side of the same work, pipes, scheduling, noise): ${s(extra - last.startMs - last.receiveMs - last.sendMs)}`);
await stopAllImplementations(600);

/**
 * Runs a command (by default the whole test suite) while busy processes compete for the CPU, as on a
 * loaded CI runner, and prints each run's wall time and exit code with the load average (asserts nothing).
 *
 *   npx tsx bench/busy-machine.ts [--busy 8] [--runs 3] [-- command args...]
 *
 * Defaults: 8 busy processes, 3 runs of `npm test`. Each busy process is a Node spin loop; they are
 * started before the first run and ended (by pid) after the last, on an error and on Ctrl-C.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));

interface Options {
  busy: number;
  runs: number;
  command: string[];
}

const USAGE = `usage: npx tsx bench/busy-machine.ts [--busy <n>] [--runs <n>] [-- command args...]

Runs a command (default: npm test) while <n> busy processes (default 8) compete for the CPU,
<runs> times (default 3), and prints each run's exit code, wall time and load average.`;

/** A mistake on the command line: printed with the usage, exit 2. */
class UsageError extends Error {}

/** A count option: a whole number of at least zero, or a usage error naming the option. */
function count(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} takes a whole number of at least 0, not '${text}'`);
  return n;
}


/** The options, or null when --help asked for the usage. Anything after `--` is the command to run. */
function readOptions(argv: string[]): Options | null {
  const split = argv.indexOf('--');
  const own = split === -1 ? argv : argv.slice(0, split);
  const command = split === -1 || split === argv.length - 1 ? ['npm', 'test'] : argv.slice(split + 1);
  let values: { busy?: string; runs?: string; help?: boolean };
  try {
    ({ values } = parseArgs({ args: own, options: { busy: { type: 'string' }, runs: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (values.help) return null;
  return { busy: count('busy', values.busy, 8), runs: count('runs', values.runs, 3), command };
}

/** One process that keeps one core busy until it is killed. */
function spinner(): ChildProcess {
  return spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
}

/** Runs `command` to completion, its output passed through; resolves with its exit code and wall time. */
function timed(command: string[]): Promise<{ code: number | null; seconds: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(command[0]!, command.slice(1), { cwd: PACKAGE_ROOT, stdio: 'inherit' });
    child.on('close', (code) => resolve({ code, seconds: (performance.now() - started) / 1000 }));
  });
}

let parsed: Options | null;
try {
  parsed = readOptions(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  console.error(`busy-machine: ${error.message}\n\n${USAGE}`);
  process.exit(2);
}
if (parsed === null) {
  console.log(USAGE);
  process.exit(0);
}
const options: Options = parsed;
const spinners = Array.from({ length: options.busy }, spinner);
const stopSpinners = (): void => {
  for (const s of spinners) if (s.exitCode === null && s.signalCode === null) s.kill('SIGKILL');
};
process.on('exit', stopSpinners);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

const results: { code: number | null; seconds: number; load: number }[] = [];
for (let run = 1; run <= options.runs; run++) {
  console.error(`\n=== run ${run}/${options.runs}: ${options.command.join(' ')} with ${options.busy} busy processes on ${cpus().length} cores ===`);
  const result = await timed(options.command);
  results.push({ ...result, load: loadavg()[0]! });
}
stopSpinners();

console.log(`\n${options.busy} busy processes, ${cpus().length} cores, command: ${options.command.join(' ')}`);
for (const [i, r] of results.entries()) console.log(`run ${i + 1}: exit ${r.code}, ${r.seconds.toFixed(1)} s, 1-min load average at the end ${r.load.toFixed(1)}`);
const passed = results.filter((r) => r.code === 0).length;
console.log(`${passed} of ${results.length} runs passed`);
process.exitCode = passed === results.length ? 0 : 1;

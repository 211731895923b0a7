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

const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));

interface Options {
  busy: number;
  runs: number;
  command: string[];
}

function parseArgs(argv: string[]): Options {
  const options: Options = { busy: 8, runs: 3, command: ['npm', 'test'] };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    if (flag === '--') {
      if (argv.length > i + 1) options.command = argv.slice(i + 1);
      break;
    }
    const n = Number(argv[i + 1]);
    if ((flag !== '--busy' && flag !== '--runs') || !Number.isInteger(n) || n < 0) throw new Error(`usage: busy-machine.ts [--busy <n>] [--runs <n>] [-- command...]; bad '${flag}'`);
    if (flag === '--busy') options.busy = n;
    else options.runs = n;
    i++;
  }
  return options;
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

const options = parseArgs(process.argv.slice(2));
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

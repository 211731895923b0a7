/** Entry point of the `cantrip-conformance` command (see cli-main.ts for the options). */
import { killAllImplementationsNow } from '../adapters/index.ts';
import { stretchedForLoad } from '../values/index.ts';
import { main } from './main.ts';

/** From the end of the run (its report written) to the process's exit, at most (idle machine; stretched with the load). */
const EXIT_AFTER_RUN_MS = 3_000;

// A first Ctrl-C (or SIGTERM) interrupts the run: main ends the implementations, writes the partial
// report and returns. A second one exits at once. On any exit, whatever is left is killed.
const interrupt = new AbortController();
const onSignal = (signal: NodeJS.Signals): void => {
  if (interrupt.signal.aborted) process.exit(signal === 'SIGTERM' ? 143 : 130);
  process.stderr.write(`\n${signal}: stopping the run (again to quit at once)\n`);
  interrupt.abort(signal);
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);
process.on('exit', killAllImplementationsNow);

// A reader that goes away (`| head`) must not crash the run with EPIPE: the rest of the summary is
// dropped, and the run still finishes and writes its reports.
let stdoutClosed = false;
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  stdoutClosed = true;
});

const tty = process.stderr.isTTY;
const code = await main(process.argv.slice(2), {
  out: (line) => {
    if (!stdoutClosed) console.log(line);
  },
  err: (line) => console.error(line),
  // On a terminal one progress line is rewritten in place; in a log (CI) each finished case or property gets a line.
  ...(tty ? { progress: (text: string) => process.stderr.write(`\r\x1b[2K${text}`) } : { progressLine: (line: string) => process.stderr.write(`${line}\n`) }),
  cwd: process.cwd(),
  interrupt: interrupt.signal,
});
// An interrupted in-process implementation may still hold the event loop with work nobody waits for.
if (interrupt.signal.aborted) process.exit(code);
process.exitCode = code;
// The run's work is over: whatever an implementation left behind (a process in a session of its own,
// a handle nobody closed) must not keep the command alive. If the event loop has not drained within
// this bound, exit anyway. Unreferenced, so a command that ends normally does not wait for it.
setTimeout(() => process.exit(code), stretchedForLoad(EXIT_AFTER_RUN_MS)).unref();

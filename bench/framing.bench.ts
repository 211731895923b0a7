/**
 * Line framing benchmark (prints figures, asserts nothing). Run: `npx tsx bench/framing.bench.ts`.
 * One line of 5, 10, 20 and 50 MB, fed to `readLines` (schemas/protocol/lines.ts) in 64 KiB chunks as a
 * pipe delivers them; the wall time from the first chunk to the line, median of 3, and the heap used.
 * Then the same through a real pipe: a child process writes the line to its stdout.
 * Linear framing keeps the time proportional to the size (the old framing searched the whole
 * accumulated buffer on every chunk: 0.25 / 0.87 / 3.3 / 12.5 s for 5 / 10 / 20 / 40 MB).
 */
import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { readLines } from '../schemas/protocol/lines.ts';

const CHUNK = 64 * 1024;
const RUNS = 3;

/** Feeds `size` characters and a newline in pipe-sized chunks; resolves with the ms until the line arrived. */
function frameOnce(size: number): Promise<number> {
  const stream = new PassThrough();
  const piece = 'x'.repeat(CHUNK);
  return new Promise((resolve, reject) => {
    let started = 0;
    readLines(
      stream,
      (line) => (line.length === size ? resolve(performance.now() - started) : reject(new Error(`got ${line.length} chars`))),
      (chars) => reject(new Error(`overflow at ${chars}`)),
    );
    started = performance.now();
    for (let sent = 0; sent < size; sent += CHUNK) stream.write(sent + CHUNK <= size ? piece : piece.slice(0, size - sent));
    stream.end('\n');
  });
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

for (const mb of [5, 10, 20, 50]) {
  const size = mb * 1_000_000;
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push(await frameOnce(size));
  const heap = Math.round(process.memoryUsage().heapUsed / 1e6);
  console.log(`${String(mb).padStart(2)} MB line: ${median(times).toFixed(0).padStart(5)} ms (median of ${RUNS}), heap used after: ${heap} MB`);
}

/** A child writes `size` characters and a newline on its stdout; resolves with the ms until the line arrived here. */
function frameFromChild(size: number): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, ['-e', `process.stdout.write('x'.repeat(${size}) + '\\n')`], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    readLines(
      child.stdout,
      (line) => (line.length === size ? resolve(performance.now() - started) : reject(new Error(`got ${line.length} chars`))),
      (chars) => reject(new Error(`overflow at ${chars}`)),
    );
  });
}

for (const mb of [5, 10, 20, 50]) {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push(await frameFromChild(mb * 1_000_000));
  console.log(`${String(mb).padStart(2)} MB line from a child process (its start included): ${median(times).toFixed(0).padStart(5)} ms (median of ${RUNS})`);
}

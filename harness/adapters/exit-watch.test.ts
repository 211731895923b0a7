/**
 * A run ends when its work ends (issue 32, item 1): an implementation that dies after starting something
 * in a session of its own, which keeps its stdout and stderr open, is seen to have exited when it exits
 * (its code and last stderr in the reason), not when the stray closes the pipes or a silence bound
 * passes; and the command line exits soon after its report, whatever the stray still holds.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCaseFile } from '../case-file/load.ts';
import { PACKAGE_ROOT } from '../cli/main.ts';
import { INCOMPLETE_EXIT } from '../report/report.ts';
import { runSuite } from '../run/run.ts';
import { hangBound } from '../testing/hang-bound.ts';
import { commandAdapterFactory } from './jsonrpc-adapter.ts';
import { peerCaseFile } from './peer-cases.ts';

const BROKEN = join(PACKAGE_ROOT, 'fixtures', 'adapters', 'broken-peer.mjs');
/** Far above what the fixed kit needs to see the exit, so a kit that waits for the silence bound is told apart. */
const SILENCE_MS = 60_000;
const logs: string[] = [];

function strayLog(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'cantrip-stray-')), 'peer.log');
  logs.push(file);
  return file;
}

afterAll(() => {
  // The strays live 60 s on their own; end them here rather than leave them to the machine.
  for (const file of logs) {
    if (!existsSync(file)) continue;
    for (const m of readFileSync(file, 'utf8').matchAll(/^stray (\d+)$/gm)) {
      try {
        process.kill(Number(m[1]), 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
});

describe('an implementation that exits while a stray of its own holds its stdio', () => {
  it('the case errors at the exit with its code and last stderr, long before the silence bound', async () => {
    const log = strayLog();
    const factory = commandAdapterFactory({ command: process.execPath, args: [BROKEN, '--stray-session', '--log', log] }, { silenceMs: SILENCE_MS, handshakeMs: SILENCE_MS });
    const started = performance.now();
    const suite = await runSuite(loadCaseFile(peerCaseFile(['exit', 'ok'])), factory);
    const [crash, after] = suite.cases;
    expect(readFileSync(log, 'utf8')).toMatch(/^stray \d+$/m);
    expect(crash?.status).toBe('errored');
    expect(crash?.timed_out).toBeUndefined();
    expect(crash?.reason).toMatch(/\b3\b/);
    expect(crash?.reason).toContain('broken-peer: simulated crash in cast');
    // The next case starts a new process and is judged as usual.
    expect(after?.status).toBe('pass');
    expect(performance.now() - started).toBeLessThan(SILENCE_MS / 2);
  }, hangBound(120_000));

  it('the command line exits soon after its report, though the stray keeps the pipes open', async () => {
    const log = strayLog();
    // The crash comes last, so no well-behaved process is parked (unreferenced) at the end: the one that
    // crashed is what the kit last held.
    const cases = peerCaseFile(['ok', 'exit']);
    const adapter = `cmd:${process.execPath} '${BROKEN}' --stray-session --log '${log}'`;
    const started = performance.now();
    const code = await new Promise<number | null>((resolve) => {
      const cli = spawn(process.execPath, ['--import', 'tsx', join(PACKAGE_ROOT, 'harness', 'cli', 'cli.ts'), 'run', '-q', '--no-out', '--no-properties', '--adapter', adapter, '--cases', cases], {
        cwd: PACKAGE_ROOT,
        stdio: 'ignore',
      });
      cli.on('exit', (status) => resolve(status));
    });
    expect(code).toBe(INCOMPLETE_EXIT);
    // The stray lives 60 s: a kit that waits for it exits after that.
    expect(performance.now() - started).toBeLessThan(45_000);
    expect(readFileSync(log, 'utf8')).toMatch(/^stray \d+$/m);
  }, hangBound(120_000));
});

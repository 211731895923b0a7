/**
 * Ctrl-C (and SIGTERM) in the middle of a run, on the real command in its own process: the exit code
 * says so, a partial report.json is written that validates and marks the unfinished cases, and no
 * implementation process (nor a child one left behind) outlives the command.
 */
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validate } from '../../schemas/loader.ts';
import { main, PACKAGE_ROOT } from './main.ts';
import { peerCaseFile } from '../adapters/peer-cases.ts';
import { peerLog, processGone, tempLog, until } from '../adapters/peer-log.ts';
import { hangBound } from '../testing/hang-bound.ts';

const BIN = join(PACKAGE_ROOT, 'bin', 'cantrip-conformance.mjs');
const BROKEN = join(PACKAGE_ROOT, 'fixtures', 'adapters', 'broken-peer.mjs');

interface Report {
  interrupted?: string;
  cases: { id: string; status: string; reason?: string }[];
}

describe('an interrupted run', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('PROD-1: %s mid-case: exit %i, a partial report that validates, no process left behind', async (signal, exitCode) => {
    const log = tempLog();
    const out = mkdtempSync(join(tmpdir(), 'cantrip-interrupt-'));
    const adapter = `cmd:${process.execPath} ${BROKEN} --log ${log} --orphan`;
    const cases = peerCaseFile(['ok', 'silent', 'ok', 'ok']);
    const command = spawn(process.execPath, [BIN, 'run', '--adapter', adapter, '--cases', cases, '--out', out, '--no-properties'], { cwd: PACKAGE_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    command.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => command.on('close', (code) => resolve(code)));

    // The peer logs each cast it gets: once it is in the silent one, the run is mid-case.
    await until(() => peerLog(log).casts.includes('silent'), 'the silent cast');
    command.kill(signal);
    expect(await exited, stderr).toBe(exitCode);

    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;
    expect(validate('report', report)).toEqual({ ok: true });
    expect(report.interrupted).toBe(signal);
    expect(report.cases.map((c) => [c.id, c.status])).toEqual([
      ['ok-0', 'pass'],
      ['silent-1', 'errored'],
      ['ok-2', 'errored'],
      ['ok-3', 'errored'],
    ]);
    expect(report.cases[1]?.reason).toBe(`the run was interrupted (${signal}) while this case ran`);
    for (const c of report.cases.slice(2)) expect(c.reason).toBe(`not run: the run was interrupted (${signal})`);

    const { peers, children } = peerLog(log);
    expect(children.length).toBeGreaterThan(0);
    for (const pid of [...peers, ...children]) expect(await processGone(pid), `process ${pid}`).toBe(true);
  }, hangBound(120_000));
});

describe('a run interrupted during the properties', () => {
  it('PROD-1: exit 130, the verdict is incomplete, no property has a counterexample or a reproducer', async () => {
    const out = mkdtempSync(join(tmpdir(), 'cantrip-interrupt-props-'));
    const interrupt = new AbortController();
    const lines: string[] = [];
    const io = {
      out: (line: string) => lines.push(line),
      err: (line: string) => lines.push(line),
      // The signal comes as soon as the first property is reported: the properties are under way.
      progressLine: (line: string) => {
        if (line.startsWith('property ') && !interrupt.signal.aborted) interrupt.abort('SIGINT');
      },
      cwd: PACKAGE_ROOT,
      interrupt: interrupt.signal,
    };
    const miniature = join(PACKAGE_ROOT, 'fixtures', 'miniatures', 'miniature.ts');
    const argv = ['run', '--adapter', miniature, '--filter', 'LOOP-3', '--filter', 'text-reply-ends-unless-done-required', '--filter', 'max-turns-cuts-the-cast-off', '--seed', '3', '--property-runs', '5', '--out', out];
    const code = await main(argv, io);
    expect(code, lines.join('\n')).toBe(130);

    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report & { verdict: Record<string, { status: string }>; properties: { id: string; status: string; interrupted?: boolean; counterexample?: unknown }[] };
    expect(validate('report', report)).toEqual({ ok: true });
    expect(report.interrupted).toBe('SIGINT');
    // Every case finished before the signal (passed, or skipped for a feature the miniature lacks); the properties after the first were cut off.
    expect(report.cases.filter((c) => c.status !== 'pass' && c.status !== 'skipped')).toEqual([]);
    expect(report.cases.some((c) => c.status === 'pass')).toBe(true);
    const cut = report.properties.filter((p) => p.interrupted);
    expect(cut.length).toBeGreaterThan(0);
    for (const p of report.properties) expect([p.id, p.counterexample]).toEqual([p.id, undefined]);
    for (const p of cut) expect(p.status).toBe('errored');
    expect(report.verdict.MUST?.status).toBe('incomplete');
    expect(lines.filter((l) => /^MUST {3}INCOMPLETE {2}\(/.test(l))).toHaveLength(1);
    expect(lines.some((l) => l.includes('shrunk'))).toBe(false);
    expect(readFileSync(join(out, 'report.md'), 'utf8')).not.toContain('```yaml');
  }, hangBound(120_000));
});

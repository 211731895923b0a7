/**
 * Writes that cannot be turned against the user (issue 32, item 5): report files replace a symlink in the
 * output folder instead of writing through it, leave no temporary file, an output path that cannot hold
 * files is refused at once (exit 2), and a run whose adapter never starts leaves no folder behind.
 */
import { describe, it, expect } from 'vitest';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hangBound } from '../testing/hang-bound.ts';
import { main, PACKAGE_ROOT } from './main.ts';

async function run(args: string[]): Promise<number> {
  return main(['run', ...args], { out: () => undefined, err: () => undefined, cwd: PACKAGE_ROOT });
}

describe('report files in the output folder', () => {
  it('a symlink planted under an output name is replaced, the file it points at outside --out untouched; no temporary file left', async () => {
    const base = mkdtempSync(join(tmpdir(), 'cantrip-out-'));
    const outside = join(base, 'precious.txt');
    writeFileSync(outside, 'keep me');
    const out = join(base, 'out');
    mkdirSync(out);
    for (const name of ['summary.md', 'report.json', 'junit.xml']) symlinkSync(outside, join(out, name));
    const code = await run(['--adapter', 'reference', '--filter', 'LOOP-3', '--no-properties', '--out', out]);
    expect(code).toBe(0);
    expect(readFileSync(outside, 'utf8')).toBe('keep me');
    for (const name of ['summary.md', 'report.json', 'junit.xml']) expect(lstatSync(join(out, name)).isSymbolicLink()).toBe(false);
    expect(JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')).verdict.MUST.status).toBe('pass');
    expect(readdirSync(out).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  }, hangBound(120_000));
});

describe('an output path that cannot hold files', () => {
  it.each([
    ['under /proc', () => '/proc/cantrip-no-such-folder'],
    ['under a regular file', () => {
      const file = join(mkdtempSync(join(tmpdir(), 'cantrip-out-')), 'a-file');
      writeFileSync(file, '');
      return join(file, 'out');
    }],
  ])('%s: exit 2 before any case, at once', async (_what, path) => {
    const started = performance.now();
    const code = await run(['--adapter', 'reference', '--filter', 'LOOP-3', '--no-properties', '--out', path()]);
    expect(code).toBe(2);
    expect(performance.now() - started).toBeLessThan(hangBound(20_000));
  }, hangBound(60_000));
});

describe('a run that never starts', () => {
  it('an adapter that cannot be started leaves no output folder behind (exit 2)', async () => {
    const base = mkdtempSync(join(tmpdir(), 'cantrip-out-'));
    const code = await run(['--adapter', 'cmd:./no-such-implementation', '--out', join(base, 'new', 'deeper')]);
    expect(code).toBe(2);
    expect(existsSync(join(base, 'new'))).toBe(false);
    expect(readdirSync(base)).toEqual([]);
  }, hangBound(60_000));
});

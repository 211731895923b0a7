/**
 * What the command checks before the first case: an adapter module whose createAdapter() throws or gives
 * something that is not an adapter, and a report directory that cannot be written, each end in exit 2
 * with a message that says what is wrong, and no case runs.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main, PACKAGE_ROOT } from './main.ts';

const MINIATURE = join(PACKAGE_ROOT, 'fixtures', 'miniatures', 'miniature.ts');

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l), cwd: PACKAGE_ROOT });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** Writes an adapter module with the given body to a fresh directory; returns its path. */
function adapterModule(body: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'cantrip-module-')), 'adapter.mjs');
  writeFileSync(file, body);
  return file;
}

describe('checks before the run', () => {
  it('PROD-1: a createAdapter() that throws: exit 2, naming the module and the error', async () => {
    const module = adapterModule("export function createAdapter() { throw new Error('no API key configured'); }\n");
    const { code, err, out } = await cli(['run', '--adapter', module]);
    expect(code).toBe(2);
    expect(err).toBe(`${module}: createAdapter() threw Error: no API key configured`);
    expect(out).toBe('');
  });

  it('PROD-1: a createAdapter() that rejects: the same', async () => {
    const module = adapterModule("export async function createAdapter() { throw new TypeError('bad config'); }\n");
    const { code, err } = await cli(['run', '--adapter', module]);
    expect(code).toBe(2);
    expect(err).toBe(`${module}: createAdapter() threw TypeError: bad config`);
  });

  it('PROD-1: a createAdapter() that returns something else: exit 2, saying what it returned and what is missing', async () => {
    const module = adapterModule("export function createAdapter() { return { name: 'mine', describe() {} }; }\n");
    const { code, err } = await cli(['run', '--adapter', module]);
    expect(code).toBe(2);
    expect(err).toBe(`${module}: createAdapter() returned an object with keys [name, describe], not an adapter (no construct(), cast(), dispose(); see schemas/adapter.ts)`);
    const nothing = adapterModule('export function createAdapter() {}\n');
    expect((await cli(['run', '--adapter', nothing])).err).toContain('createAdapter() returned undefined, not an adapter');
  });

  it('PROD-1: an --out that cannot be written: exit 2 before the adapter is even started', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'cantrip-out-')), 'a-file');
    writeFileSync(file, 'not a directory');
    // The adapter command does not exist either: the message being about --out shows it was checked first.
    const { code, err } = await cli(['run', '--adapter', 'cmd:./no-such-implementation', '--out', join(file, 'reports')]);
    expect(code).toBe(2);
    expect(err).toMatch(new RegExp(`^cannot write the report to ${join(file, 'reports')}: ENOTDIR`));
  });

  it('PROD-1: a writable --out that does not exist yet is made and the run goes on', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'cantrip-out-')), 'new', 'reports');
    const { code } = await cli(['run', '--adapter', MINIATURE, '--filter', 'LOOP-3', '--no-properties', '--out', out]);
    expect(code).toBe(0);
  });
});

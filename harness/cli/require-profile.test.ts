/**
 * `--require <profile>` (issue 31.3): a CI that wants a profile says so, and a run whose profile is
 * narrower exits 4 with the reason even when every case passes; without it the exit code is as before.
 * The conformant miniature declares some features but not code-medium, so a run that reaches a
 * code-medium case is partial.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../case-file/index.ts';
import { PROFILE_BELOW_EXIT } from '../report/index.ts';
import { cli } from '../testing/run-cli.ts';
import { hangBound } from '../testing/hang-bound.ts';

const MINIATURE = join(PACKAGE_ROOT, 'fixtures/miniatures/miniature.ts');
const run = (...more: string[]) => cli(['run', '-q', '--no-out', '--no-properties', '--adapter', MINIATURE, '--filter', 'done-ends-cast-with-answer,code-done-stops-the-cast', ...more]);

describe('--require', () => {
  it('a partial run exits 0 by default and with --require partial, and 4 with --require full, saying why', async () => {
    const plain = await run();
    expect(plain.code).toBe(0);
    expect(plain.out).toMatch(/profile: partial/);
    expect((await run('--require', 'partial')).code).toBe(0);
    expect((await run('--require', 'core')).code).toBe(0);
    const full = await run('--require', 'full');
    expect(full.code).toBe(PROFILE_BELOW_EXIT);
    expect(full.err).toContain('--require full');
    expect(full.err).toContain('partial');
  }, hangBound(120_000));

  it('a profile the kit does not know is bad usage', async () => {
    expect((await run('--require', 'everything')).code).toBe(2);
  }, hangBound(60_000));
});

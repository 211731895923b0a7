/**
 * Small frictions a new implementer met (issue 31.4), each answered with what to do: a script given to
 * `--adapter` as a path gets the `cmd:` line that runs it, a mistyped command gets the nearest one, a
 * negative number reaches the option's own check, and `crystal-server --help` documents every option.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../testing/run-cli.ts';
import { UsageError } from './arguments.ts';
import { CRYSTAL_SERVER_OPTIONS } from './crystal-server-command.ts';
import { parseRunOptions } from './run-options.ts';
import { hangBound } from '../testing/hang-bound.ts';

const work = mkdtempSync(join(tmpdir(), 'cantrip-frictions-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const SKELETON = 'fixtures/adapters/python/cantrip_adapter_skeleton.py';

describe('frictions', () => {
  it("a .py path given to --adapter without cmd: exits 2 with the cmd: line that runs it", async () => {
    const { code, err } = await cli(['run', '-q', '--no-out', '--adapter', SKELETON]);
    expect(code).toBe(2);
    expect(err).toContain(`'cmd:python3 ${SKELETON}'`);
  }, hangBound(60_000));

  it('a .js module without createAdapter() is told how to run it as a stdio program', async () => {
    const script = join(work, 'server.mjs');
    writeFileSync(script, 'export const notAnAdapter = 1;\n');
    const { code, err } = await cli(['run', '-q', '--no-out', '--adapter', script]);
    expect(code).toBe(2);
    expect(err).toContain(`'cmd:node ${script}'`);
  }, hangBound(60_000));

  it('an unknown command names the nearest one, a swap of two letters included', async () => {
    for (const [typed, meant] of [['rnu', 'run'], ['dif', 'diff'], ['crystl-server', 'crystal-server']] as const) {
      const { code, err } = await cli([typed]);
      expect(code).toBe(2);
      expect(err).toContain(`'${meant}'?`);
    }
  }, hangBound(60_000));

  it('--seed -1 reaches the seed check, which echoes the value, instead of reading -1 as an option', () => {
    let thrown: unknown;
    try {
      parseRunOptions(['--seed', '-1'], work);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UsageError);
    expect((thrown as Error).message).toContain("'-1'");
    expect(parseRunOptions(['--timeout', '5'], work).timeoutMs).toBe(5);
  });

  it('crystal-server --help documents every option it takes', async () => {
    const { code, out } = await cli(['crystal-server', '--help']);
    expect(code).toBe(0);
    for (const name of Object.keys(CRYSTAL_SERVER_OPTIONS)) expect(out).toMatch(new RegExp(`^\\s+--${name} `, 'm'));
  }, hangBound(60_000));
});

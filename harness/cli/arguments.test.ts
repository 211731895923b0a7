import { describe, it, expect } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_ROOT } from './main.ts';
import { nearestOption, parseCommandLine, UsageError } from './arguments.ts';
import { DEFAULT_SEED } from '../properties/index.ts';
import { parseRunOptions } from './run-options.ts';
import { hangBound } from '../testing/hang-bound.ts';
import { cli } from '../testing/run-cli.ts';

const MINIATURE = join(PACKAGE_ROOT, 'fixtures', 'miniatures', 'miniature.ts');
const BROKEN = join(PACKAGE_ROOT, 'fixtures', 'miniatures', 'ignores-done.ts');


interface ShortReport {
  environment: { filter: string[] };
  cases: { id: string; rules: string[]; status: string }[];
  properties?: { id: string; status: string; seed: number; stale?: boolean }[];
  stale: string[];
}

/** A run of the miniature into a fresh directory; its report. */
async function reportOf(argv: string[]): Promise<{ code: number; report: ShortReport; out: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'cantrip-args-'));
  const { code, out } = await cli(['run', '--adapter', MINIATURE, '--quiet', '--out', dir, ...argv]);
  return { code, out, report: JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as ShortReport };
}

describe('the option table parser (util.parseArgs, strict)', () => {
  const table = { filter: { type: 'string', multiple: true }, 'no-properties': { type: 'boolean' }, quiet: { type: 'boolean', short: 'q' } } as const;

  it('takes --name=value as --name value, and repeats', () => {
    expect(parseCommandLine(['--filter=LOOP-3', '--filter', 'LOOP-4', '-q'], table).values).toEqual({ filter: ['LOOP-3', 'LOOP-4'], quiet: true });
  });

  it('refuses an unknown option, a missing value, a value on a flag and a stray operand, each as a UsageError naming what it refused', () => {
    for (const [args, named] of [
      [['--no-propertes'], '--no-propertes'],
      [['--filter'], '--filter'],
      [['--filter', '--quiet'], '--filter'],
      [['--quiet=yes'], '--quiet'],
      [['LOOP-3'], 'LOOP-3'],
    ] as const) {
      let error: unknown;
      try {
        parseCommandLine(args, table);
      } catch (e) {
        error = e;
      }
      expect(error, args.join(' ')).toBeInstanceOf(UsageError);
      expect((error as Error).message).toContain(named);
    }
  });

  it('suggests the nearest known option for a slip of the keyboard, and none for something else entirely', () => {
    expect(nearestOption('--no-propertes', ['filter', 'no-properties', 'quiet'])).toBe('no-properties');
    expect(nearestOption('--fitler', ['filter', 'no-properties', 'quiet'])).toBe('filter');
    expect(nearestOption('--colour', ['filter', 'no-properties', 'quiet'])).toBeUndefined();
  });

  it('keeps every run option and its default; the seed is fixed unless random is asked for', () => {
    const defaults = parseRunOptions([], PACKAGE_ROOT);
    expect(defaults).toMatchObject({ adapter: 'reference', filter: [], out: 'cantrip-report', properties: true, quiet: false, seed: DEFAULT_SEED, cases: join(PACKAGE_ROOT, 'tests.yaml') });
    expect(defaults.timeoutMs).toBeUndefined();
    expect(defaults.jobs).toBeUndefined();
    const all = parseRunOptions(
      ['--adapter=x.ts', '--filter', 'a,b', '--filter=c', '--no-out', '--expected-failures', 'xf.txt', '--cases', 'c.yaml', '--timeout', '50', '--jobs', '3', '--no-properties', '--property-runs', '7', '--seed', 'random', '--crystal-transport', 'gemini', '-q'],
      PACKAGE_ROOT,
    );
    expect(all).toMatchObject({ adapter: 'x.ts', filter: ['a', 'b', 'c'], expectedFailures: 'xf.txt', cases: 'c.yaml', timeoutMs: 50, jobs: 3, properties: false, propertyRuns: 7, seed: 'random', crystalTransport: 'gemini', quiet: true });
    expect(all.out).toBeUndefined();
    expect(parseRunOptions(['--seed', '42'], PACKAGE_ROOT).seed).toBe(42);
    for (const bad of [['--seed', 'x'], ['--seed', '-1'], ['--timeout', '0'], ['--jobs', '65'], ['--crystal-transport', 'carrier-pigeon']]) expect(() => parseRunOptions(bad, PACKAGE_ROOT), bad.join(' ')).toThrow(UsageError);
  });
});

describe('cantrip-conformance: the command line as a person types it', () => {
  it('--no-propertes is an unknown option (exit 2) named with the option meant', async () => {
    const { code, err } = await cli(['run', '--no-propertes']);
    expect(code).toBe(2);
    expect(err).toContain('--no-propertes');
    expect(err).toContain('--no-properties');
  });

  it('--filter=LOOP-3 and --filter loop-3 both select the cases of LOOP-3', async () => {
    const upper = await reportOf(['--filter=LOOP-3', '--no-properties']);
    const lower = await reportOf(['--filter', 'loop-3', '--no-properties']);
    expect(upper.code).toBe(0);
    expect(lower.code).toBe(0);
    expect(upper.report.environment.filter).toEqual(['LOOP-3']);
    expect(lower.report.environment.filter).toEqual(['LOOP-3']);
    expect(upper.report.cases.length).toBeGreaterThan(0);
    expect(upper.report.cases.every((c) => c.rules.includes('LOOP-3'))).toBe(true);
    expect(lower.report.cases.map((c) => c.id)).toEqual(upper.report.cases.map((c) => c.id));
  }, hangBound(120_000));

  it('a filter term that names nothing known is an error (exit 2) naming it, not silently dropped', async () => {
    const { code, err } = await cli(['run', '--adapter', MINIATURE, '--filter', 'LOOP-3,CIRCL-8', '--no-out']);
    expect(code).toBe(2);
    expect(err).toContain('CIRCL-8');
    expect(err).not.toContain("'LOOP-3'");
  });

  it('matrix --help, diff --help, crystal-server --help and run --help exit 0 with their own usage', async () => {
    for (const [command, option] of [['matrix', '--only-differences'], ['diff', '--format'], ['crystal-server', '--transport'], ['run', '--expected-failures']] as const) {
      const { code, out } = await cli([command, '--help']);
      expect(code, command).toBe(0);
      expect(out, command).toContain(`cantrip-conformance ${command}`);
      expect(out, command).toContain(option);
    }
  });

  it('diff and matrix refuse an unknown option (exit 2) naming it', async () => {
    for (const command of ['diff', 'matrix']) {
      const { code, err } = await cli([command, 'a.json', 'b.json', '--colour']);
      expect(code, command).toBe(2);
      expect(err, command).toContain('--colour');
    }
  });
});

describe('cantrip-conformance: CI baselines', () => {
  it('the properties run on a fixed default seed, so two runs draw the same scenarios', async () => {
    const first = await reportOf(['--filter', 'done-ends-the-cast', '--property-runs', '3']);
    const second = await reportOf(['--filter', 'done-ends-the-cast', '--property-runs', '3']);
    expect(first.report.properties?.map((p) => p.seed)).toEqual([DEFAULT_SEED]);
    expect(second.report.properties?.map((p) => p.seed)).toEqual([DEFAULT_SEED]);
    expect(first.out).toContain(`seed ${DEFAULT_SEED}`);
  }, hangBound(120_000));

  it('a property id in --expected-failures: a failing listed property is xfail (exit 0), a passing one is stale (exit 1)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cantrip-xf-prop-'));
    const list = join(dir, 'xfail.txt');
    writeFileSync(list, '# a known property failure\ndone-ends-the-cast\n');
    const out = join(dir, 'broken');
    const broken = await cli(['run', '--adapter', BROKEN, '--filter', 'done-ends-the-cast', '--property-runs', '5', '--quiet', '--expected-failures', list, '--out', out]);
    const brokenReport = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as ShortReport;
    expect(brokenReport.properties?.map((p) => [p.id, p.status])).toEqual([['done-ends-the-cast', 'xfail']]);
    expect(broken.code).toBe(0);
    const stale = await reportOf(['--filter', 'done-ends-the-cast', '--property-runs', '3', '--expected-failures', list]);
    expect(stale.code).toBe(1);
    expect(stale.report.stale).toEqual(['done-ends-the-cast']);
    expect(stale.report.properties?.[0]?.stale).toBe(true);
  }, hangBound(180_000));

  it('an id in --expected-failures that is neither a case nor a property is an error (exit 2) at file:line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cantrip-xf-unknown-'));
    const list = join(dir, 'xfail.txt');
    writeFileSync(list, 'done-ends-the-cast\n\ndone-ends-cast-with-answer\nno-such-thing\n');
    const { code, err } = await cli(['run', '--adapter', MINIATURE, '--expected-failures', list, '--no-out']);
    expect(code).toBe(2);
    expect(err).toContain(`${list}:4:1`);
    expect(err).toContain('no-such-thing');
    expect(err).not.toContain(`${list}:1:`);
  });
});

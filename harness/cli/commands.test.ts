import { describe, it, expect, beforeAll } from 'vitest';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main, PACKAGE_ROOT } from './main.ts';
import { hangBound } from '../testing/hang-bound.ts';

const MINIATURE = join(PACKAGE_ROOT, 'fixtures', 'miniatures', 'miniature.ts');
const BROKEN = join(PACKAGE_ROOT, 'fixtures', 'miniatures', 'ignores-done.ts');

async function cli(argv: string[], cwd = PACKAGE_ROOT) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l), cwd });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('cantrip-conformance: help, version, filters, diff and matrix', () => {
  it('--help lists every command and every run option with its default; --version prints the package version', async () => {
    for (const argv of [['--help'], ['run', '--help']]) {
      const { code, out } = await cli(argv);
      expect(code).toBe(0);
      for (const word of ['run', 'diff', 'matrix', '--adapter', '--filter', '--out', '--expected-failures', '--cases', '--timeout', '--no-properties', '--property-runs', '--seed', '--crystal-transport']) expect(out).toContain(word);
    }
    const version = await cli(['--version']);
    expect(version.code).toBe(0);
    expect(version.out).toBe((JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version);
  });

  it('a filter that selects no case is an error (exit 2) naming the term, not a green run that checked nothing', async () => {
    const { code, err } = await cli(['run', '--filter', 'LOOP3', '--no-properties']);
    expect(code).toBe(2);
    expect(err).toContain('LOOP3');
  });

  describe('diff and matrix over real reports', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cantrip-compare-'));
    const good = join(dir, 'good');
    const bad = join(dir, 'bad');
    beforeAll(async () => {
      expect((await cli(['run', '--adapter', MINIATURE, '--filter', 'LOOP-3', '--no-properties', '--out', good])).code).toBe(0);
      expect((await cli(['run', '--adapter', BROKEN, '--filter', 'LOOP-3', '--no-properties', '--out', bad])).code).toBe(1);
    }, hangBound(120_000));

    it('diff names the new failures and exits 1 on a regression, 0 on a fix', async () => {
      const worse = await cli(['diff', join(good, 'report.json'), join(bad, 'report.json')]);
      expect(worse.code).toBe(1);
      expect(worse.out).toContain('done-ends-cast-with-answer');
      const better = await cli(['diff', join(bad, 'report.json'), join(good, 'report.json'), '--format', 'json']);
      expect(better.code).toBe(0);
      expect((JSON.parse(better.out) as { fixed: unknown[] }).fixed.length).toBeGreaterThan(0);
      expect((await cli(['diff', join(good, 'report.json')])).code).toBe(2);
    });

    it('matrix prints a rule-by-implementation table and writes a self-contained HTML file', async () => {
      const html = join(dir, 'matrix.html');
      const { code, out } = await cli(['matrix', join(good, 'report.json'), join(bad, 'report.json'), '--html', html]);
      expect(code).toBe(0);
      expect(out).toContain('LOOP-3');
      expect(existsSync(html)).toBe(true);
      expect(readFileSync(html, 'utf8')).not.toMatch(/<script[^>]+src=|<link[^>]+href="http/);
    });

    it('matrix names two reports of one implementation and version by the folders that hold them', async () => {
      const again = join(dir, 'second-look');
      expect((await cli(['run', '--adapter', MINIATURE, '--filter', 'LOOP-3', '--no-properties', '--out', again])).code).toBe(0);
      const { code, out } = await cli(['matrix', join(good, 'report.json'), join(again, 'report.json')]);
      expect(code).toBe(0);
      expect(out).toContain('good');
      expect(out).toContain('second-look');
    }, hangBound(120_000));
  });
});

describe('cantrip-conformance: a reader that goes away', () => {
  it('stdout closed early (`| head -1`): no EPIPE crash, the run finishes with its exit code and writes its reports', async () => {
    const { spawn } = await import('node:child_process');
    const dir = mkdtempSync(join(tmpdir(), 'cantrip-epipe-'));
    const child = spawn(process.execPath, [join(PACKAGE_ROOT, 'bin', 'cantrip-conformance.mjs'), 'run', '--adapter', MINIATURE, '--filter', 'LOOP-3', '--no-properties', '--quiet', '--out', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // Read the first line, then close the pipe as `head -1` does.
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).not.toContain('EPIPE');
    expect(code).toBe(0);
    expect(existsSync(join(dir, 'report.json'))).toBe(true);
  }, hangBound(120_000));
});

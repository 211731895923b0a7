/**
 * What `cantrip-conformance run` prints while it runs, and in which order: one log line per case and
 * property when stderr is not a terminal (docs/ci.md gives the format), none with --quiet, the summary
 * in the order things ran, and a report whose duration covers the whole run with its phases.
 */
import { describe, it, expect } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main, PACKAGE_ROOT } from './main.ts';
import type { Report } from '../report/report.ts';
import { hangBound } from '../testing/hang-bound.ts';

const MINIATURE = join(PACKAGE_ROOT, 'fixtures', 'miniatures', 'miniature.ts');
const BROKEN = join(PACKAGE_ROOT, 'fixtures', 'miniatures', 'ignores-done.ts');

/** Runs the CLI as on a CI runner (no terminal): stdout and progress lines land in one log, in order. */
async function ci(argv: string[]) {
  const log: string[] = [];
  const progress: string[] = [];
  const code = await main(argv, {
    out: (l) => log.push(l),
    err: (l) => log.push(`ERR ${l}`),
    progressLine: (l) => {
      progress.push(l);
      log.push(l);
    },
    cwd: PACKAGE_ROOT,
  });
  return { code, log, progress };
}

const CASE_LINE = /^case (\d+)\/(\d+) (pass|fail|skipped|errored|xfail|stale) ([a-z0-9-]+) (\d+)ms$/;
const PROPERTY_LINE = /^property (\d+)\/(\d+) (pass|fail|skipped|errored) ([a-z0-9-]+) (\d+)ms$/;

describe('cantrip-conformance run: progress, order and duration', () => {
  it('without a terminal: one line per case and per property, in run order, then the summary in the order things ran', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cantrip-progress-'));
    const { code, log, progress } = await ci(['run', '--adapter', BROKEN, '--filter', 'LOOP-3', '--seed', '3', '--property-runs', '5', '--out', dir]);
    expect(code).toBe(1);
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as Report;
    const caseLines = progress.filter((l) => l.startsWith('case '));
    const propertyLines = progress.filter((l) => l.startsWith('property '));
    expect(caseLines.length + propertyLines.length).toBe(progress.length);
    // One line per case, numbered 1..n in the report's order, with the report's status.
    expect(caseLines.map((l) => CASE_LINE.exec(l)?.slice(1, 5))).toEqual(report.cases.map((c, i) => [String(i + 1), String(report.cases.length), c.status, c.id]));
    expect(propertyLines.map((l) => PROPERTY_LINE.exec(l)?.slice(1, 5))).toEqual((report.properties ?? []).map((p, i) => [String(i + 1), String(report.properties!.length), p.status, p.id]));
    expect(caseLines.some((l) => / fail done-ends-cast-with-answer /.test(l))).toBe(true);
    expect(propertyLines.length).toBeGreaterThan(0);
    // The order things ran: cases, their summary, the properties' seed, the properties, their summary, the duration, the verdict.
    const at = (test: (l: string) => boolean): number => {
      const i = log.findIndex(test);
      expect(i, 'line present').toBeGreaterThanOrEqual(0);
      return i;
    };
    const order = [
      at((l) => l.startsWith('case ')),
      log.findLastIndex((l) => l.startsWith('case ')),
      at((l) => /^ {2}1\. The loop/.test(l)),
      at((l) => l.startsWith('  FAIL done-ends-cast-with-answer')),
      at((l) => l.startsWith('properties: seed 3')),
      at((l) => l.startsWith('property ')),
      at((l) => /^properties: \d+ pass/.test(l)),
      at((l) => l.startsWith('took ')),
      at((l) => l.startsWith('MUST ')),
      at((l) => l.startsWith('wrote ')),
    ];
    expect(order).toEqual([...order].sort((a, b) => a - b));
  }, hangBound(120_000));

  it('report.json: the duration covers start-up, cases and properties, each given in phases; report.md and summary.md show them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cantrip-phases-'));
    expect((await ci(['run', '--adapter', MINIATURE, '--filter', 'LOOP-3', '--seed', '3', '--property-runs', '3', '--out', dir])).code).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as Report;
    const { duration_ms: total, phases } = report.environment;
    expect(phases).toBeDefined();
    const { startup_ms, cases_ms, properties_ms } = phases!;
    expect(startup_ms).toBeGreaterThan(0);
    expect(cases_ms).toBeGreaterThan(0);
    expect(properties_ms).toBeGreaterThan(0);
    // The properties' own durations are inside their phase, and the phases inside the whole (2 ms of rounding allowed per figure).
    expect(properties_ms + 2).toBeGreaterThanOrEqual((report.properties ?? []).reduce((sum, p) => sum + p.duration_ms, 0));
    expect(total + 6).toBeGreaterThanOrEqual(startup_ms + cases_ms + properties_ms);
    for (const file of ['report.md', 'summary.md', 'report.html']) expect(readFileSync(join(dir, file), 'utf8'), file).toMatch(/start-up \d+ ms, cases \d+ ms, properties \d+ ms/);
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toContain('<property name="phases.properties_ms"');

    const none = mkdtempSync(join(tmpdir(), 'cantrip-phases-'));
    expect((await ci(['run', '--adapter', MINIATURE, '--filter', 'LOOP-3', '--no-properties', '--out', none])).code).toBe(0);
    expect((JSON.parse(readFileSync(join(none, 'report.json'), 'utf8')) as Report).environment.phases?.properties_ms).toBe(0);
  }, hangBound(120_000));

  it('a stale expected failure shows as stale in its progress line; --quiet prints no progress but the same summary', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cantrip-quiet-'));
    const list = join(dir, 'xfail.txt');
    writeFileSync(list, 'done-ends-cast-with-answer\n');
    const loud = await ci(['run', '--adapter', MINIATURE, '--filter', 'done-ends-cast-with-answer', '--no-properties', '--expected-failures', list]);
    expect(loud.code).toBe(1);
    expect(loud.progress).toEqual([expect.stringMatching(/^case 1\/1 stale done-ends-cast-with-answer \d+ms$/)]);
    const quiet = await ci(['run', '--adapter', MINIATURE, '--filter', 'done-ends-cast-with-answer', '--no-properties', '--expected-failures', list, '--quiet']);
    expect(quiet.code).toBe(1);
    expect(quiet.progress).toEqual([]);
    const summary = (log: string[]): string[] => log.filter((l) => !l.startsWith('case ') && !l.startsWith('took '));
    expect(summary(quiet.log)).toEqual(summary(loud.log));
    expect((await ci(['run', '--help'])).log.join('\n')).toContain('--quiet');
  }, hangBound(120_000));
});

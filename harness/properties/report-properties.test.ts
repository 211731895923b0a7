import { describe, it, expect, beforeAll } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validate } from '../../schemas/loader.ts';
import { Miniature } from '../../fixtures/miniatures/miniature.ts';
import { main, PACKAGE_ROOT } from '../cli/main.ts';
import { loadCaseFile } from '../case-file/load.ts';
import { describeAdapter, runSuite, type AdapterFactory, type SuiteResult } from '../run/run.ts';
import { buildReport, exitCode } from '../report/report.ts';
import { renderMarkdown, summaryLines } from '../report/markdown.ts';
import { runProperties, type PropertyResult } from './run-properties.ts';

const BROKEN = join(PACKAGE_ROOT, 'fixtures', 'miniatures', 'ignores-done.ts');
const MINIATURE = join(PACKAGE_ROOT, 'fixtures', 'miniatures', 'miniature.ts');

async function cli(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l), cwd: PACKAGE_ROOT });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('property results in report.json and report.md', () => {
  let suite: SuiteResult;
  let failing: PropertyResult[];
  beforeAll(async () => {
    const good: AdapterFactory = () => new Miniature();
    const bad: AdapterFactory = () => new Miniature('ignores-done');
    // The cases pass (the good miniature); only the property run sees the broken one.
    suite = await runSuite(loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml')), good, { filter: ['text-reply-ends-cast-when-done-not-required'] });
    failing = await runProperties(bad, await describeAdapter(bad), { seed: 3, runs: 20, filter: ['LOOP-3'] });
  });

  it('LOOP-3: a failing MUST property fails the MUST verdict and the exit code although every case passed', () => {
    const report = buildReport(suite, { properties: failing });
    expect(report.summary.fail).toBe(0);
    expect(report.verdict.MUST.status).toBe('fail');
    // The code-medium LOOP-3 property is skipped: the miniature has no code medium.
    expect(report.verdict.MUST.properties).toEqual({ pass: 0, fail: 1, errored: 0, skipped: 1, xfail: 0 });
    expect(exitCode(report)).toBe(1);
    expect(validate('report', JSON.parse(JSON.stringify(report)))).toEqual({ ok: true });
  });

  it('LOOP-3, CIRCLE-8: rule roll-ups include property results', () => {
    const report = buildReport(suite, { properties: failing });
    const loop3 = report.rules.find((r) => r.id === 'LOOP-3');
    expect(loop3).toMatchObject({ status: 'fail', properties: ['done-ends-the-cast', 'code-done-ends-the-cast'], failed_by_properties: ['done-ends-the-cast'] });
    const loop6 = report.rules.find((r) => r.id === 'LOOP-6');
    expect(loop6).toMatchObject({ status: 'pass', properties: [], failed_by_properties: [] });
  });

  it('report.md and the console show the seed, what differed and the reproducer as YAML', () => {
    const report = buildReport(suite, { properties: failing });
    const md = renderMarkdown(report);
    expect(md).toContain('## Properties');
    expect(md).toContain('### property done-ends-the-cast (fail)');
    expect(md).toContain('```yaml\n- id: property-done-ends-the-cast');
    const lines = summaryLines(report).join('\n');
    expect(lines).toContain('(seed 3; repeat with --seed 3)');
    expect(lines).toContain('FAIL property done-ends-the-cast [LOOP-3, CIRCLE-8]');
    expect(lines).toContain('outcomes.first.status: expected equals "terminated"');
  });

  it('without properties the report keeps its former shape', () => {
    const report = buildReport(suite);
    expect(Object.hasOwn(report, 'properties')).toBe(false);
    expect(report.verdict.MUST.properties).toBeUndefined();
    expect(report.verdict.MUST.status).toBe('pass');
    expect(renderMarkdown(report)).not.toContain('## Properties');
  });
});

describe('cantrip-conformance run with properties', () => {
  it('runs the properties after the cases, prints the seed, writes them to report.json and exits 1 on a failing MUST property', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cantrip-props-'));
    const { code, out } = await cli(['run', '--adapter', BROKEN, '--filter', 'LOOP-3', '--seed', '3', '--property-runs', '20', '--out', dir]);
    expect(code).toBe(1);
    expect(out).toContain('properties: seed 3, 20 runs each');
    expect(out).toContain('FAIL property done-ends-the-cast');
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as { properties: PropertyResult[] };
    expect(validate('report', report)).toEqual({ ok: true });
    expect(report.properties.map((p) => [p.id, p.status, p.seed])).toEqual([['done-ends-the-cast', 'fail', 3], ['code-done-ends-the-cast', 'skipped', 3]]);
  });

  it('the same seed gives the same counterexample', async () => {
    const a = await cli(['run', '--adapter', BROKEN, '--filter', 'done-ends-the-cast', '--seed', '77', '--property-runs', '20']);
    const b = await cli(['run', '--adapter', BROKEN, '--filter', 'done-ends-the-cast', '--seed', '77', '--property-runs', '20']);
    expect(a.code).toBe(1);
    expect(a.out.replace(/\d+ ms/g, '')).toBe(b.out.replace(/\d+ ms/g, ''));
  });

  it('--no-properties skips them; a filter naming only a passing property exits 0', async () => {
    const skipped = await cli(['run', '--adapter', BROKEN, '--filter', 'LOOP-3', '--no-properties']);
    expect(skipped.code).toBe(1);
    expect(skipped.out).not.toContain('properties:');
    const only = await cli(['run', '--adapter', MINIATURE, '--filter', 'one-record-per-gate-call', '--property-runs', '10']);
    expect(only.code).toBe(0);
    expect(only.out).toContain('properties: 1 pass, 0 fail');
  });

  it('exit 2 for a bad --seed or --property-runs', async () => {
    expect((await cli(['run', '--seed', 'soon'])).code).toBe(2);
    expect((await cli(['run', '--property-runs', '0'])).code).toBe(2);
    expect((await cli(['run', '--property-runs'])).code).toBe(2);
  });
});

describe('properties interrupted (Ctrl-C during the properties)', () => {
  /** The miniature, as the command line makes it: once the run is interrupted no new instance is made. */
  function interruptedAfter(instances: number): { factory: AdapterFactory; signal: AbortSignal } {
    const controller = new AbortController();
    let made = 0;
    const factory: AdapterFactory = () => {
      if (controller.signal.aborted) return Promise.reject(new Error('interrupted (SIGINT)'));
      // The interruption comes while a scenario of the first property is being driven.
      if (++made === instances) controller.abort('SIGINT');
      return new Miniature();
    };
    return { factory, signal: controller.signal };
  }

  it('the property running then is interrupted, never shrunk, with no counterexample; the later ones are not run; the verdict is incomplete, not fail', async () => {
    const { factory, signal } = interruptedAfter(4);
    const results = await runProperties(factory, await describeAdapter(() => new Miniature()), { seed: 3, runs: 20, filter: ['LOOP'], signal });
    const ran = results.filter((p) => p.status !== 'skipped');
    expect(ran.length).toBeGreaterThan(1);
    for (const p of results) expect(p.counterexample, p.id).toBeUndefined();
    expect(results.filter((p) => p.status === 'fail')).toEqual([]);
    // The first property had driven scenarios before the signal; every later one that would run did not start.
    expect(ran[0]).toMatchObject({ status: 'errored', interrupted: true, failed_rules: [] });
    expect(ran[0]!.runs).toBeGreaterThan(0);
    for (const p of ran.slice(1)) expect([p.id, p.status, p.interrupted, p.runs]).toEqual([p.id, 'errored', true, 0]);
    // A property skipped for a missing feature stays skipped: the interruption does not hide why.
    for (const p of results.filter((x) => x.status === 'skipped')) expect(p.interrupted).toBeUndefined();

    const cases = await runSuite(loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml')), () => new Miniature(), { filter: ['text-reply-ends-cast-when-done-not-required'] });
    const report = buildReport(cases, { properties: results, interrupted: 'SIGINT' });
    expect(validate('report', JSON.parse(JSON.stringify(report)))).toEqual({ ok: true });
    expect(report.verdict.MUST.status).toBe('incomplete');
    expect(exitCode(report)).toBe(3);
    expect(renderMarkdown(report)).not.toContain('```yaml');
    expect(summaryLines(report).join('\n')).not.toContain('shrunk');
  });
});

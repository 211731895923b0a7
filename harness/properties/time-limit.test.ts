/**
 * A property whose generated scenario runs out of its time limit (issue 23, "incomplete is not fail"):
 * errored with `timed_out`, never a counterexample or a reproducer, and a run with one is incomplete,
 * not failed, in report.json and in every output. The implementations here never answer a step at
 * all, so the limit is outlasted whatever the machine's speed: no verdict below depends on timing.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Adapter, CrystalReply } from '../../schemas/adapter.ts';
import { validate } from '../../schemas/loader.ts';
import { Miniature } from '../../fixtures/miniatures/miniature.ts';
import { PACKAGE_ROOT } from '../case-file/index.ts';
import { loadCaseFile } from '../case-file/load.ts';
import { describeAdapter, runSuite, type AdapterFactory, type SuiteResult } from '../run/run.ts';
import { buildReport, exitCode } from '../report/report.ts';
import { propertyLines, renderMarkdown } from '../report/markdown.ts';
import { renderHtml } from '../report/html.ts';
import { renderJUnit } from '../report/junit.ts';
import { renderJobSummary } from '../report/summary.ts';
import { anchor } from '../report/format.ts';
import { hangBound } from '../testing/hang-bound.ts';
import { cli } from '../testing/run-cli.ts';
import { bridged, override } from './test-adapters.ts';
import { runProperties, type PropertyResult } from './run-properties.ts';

/** Tiny on purpose: a construct() that never settles outlasts any limit. */
const TINY_LIMIT_MS = 50;

/** The conformant variant, except that construct() never answers. */
const hung: AdapterFactory = () => {
  const inner = new Miniature();
  return override(inner, { construct: () => new Promise<never>(() => undefined) });
};

describe('a property whose scenario outlasts its time limit', () => {
  let suite: SuiteResult;
  let results: PropertyResult[];
  beforeAll(async () => {
    // The cases pass (the variant as it is); only the property run meets the hung one.
    suite = await runSuite(loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml')), () => new Miniature(), { filter: ['text-reply-ends-cast-when-done-not-required'] });
    results = await runProperties(hung, await describeAdapter(hung), { seed: 3, runs: 10, filter: ['done-ends-the-cast'], caseTimeoutMs: TINY_LIMIT_MS });
  }, hangBound(60_000));

  it('LOOP-3: is errored with timed_out, no counterexample and no broken rule (a hang is never shrunk)', () => {
    expect(results.map((p) => p.id)).toEqual(['done-ends-the-cast']);
    const [p] = results;
    expect(p).toMatchObject({ status: 'errored', timed_out: true, failed_rules: [] });
    expect(p!.counterexample).toBeUndefined();
    expect(p!.interrupted).toBeUndefined();
    // The limit is the one set: the reason names it, for people; the flag is what programs read.
    expect(p!.reason).toContain(`${TINY_LIMIT_MS} ms`);
  });

  it('LOOP-3: makes the MUST verdict incomplete (exit 3), not fail, in a report.json the schema takes', () => {
    const report = buildReport(suite, { properties: results });
    expect(validate('report', JSON.parse(JSON.stringify(report)))).toEqual({ ok: true });
    expect(report.verdict.MUST.status).toBe('incomplete');
    expect(exitCode(report)).toBe(3);
  });

  it('LOOP-3: no output presents it as a counterexample; junit marks it a timeout, as for a case', () => {
    const report = buildReport(suite, { properties: results });
    expect(renderMarkdown(report)).not.toContain('```yaml');
    const console = propertyLines(report).join('\n');
    expect(console).not.toContain('- id: property-');
    expect(console).toMatch(/^ {2}TIME LIMIT property done-ends-the-cast /m);
    const html = renderHtml(report);
    expect(html).toContain(`id="${anchor('property', 'done-ends-the-cast')}"`);
    expect(html).not.toContain(anchor('property-failure', 'done-ends-the-cast'));
    expect(renderJUnit(report)).toMatch(/<error type="timeout"[^>]*>/);
    expect(renderJobSummary(report)).not.toContain('reproducer');
  });

  it('report.json refuses a timed-out or interrupted property that carries a counterexample', () => {
    const report = JSON.parse(JSON.stringify(buildReport(suite, { properties: results }))) as { properties: Record<string, unknown>[] };
    const counterexample = { case_yaml: '- id: x\n', steps: 1, shrinks: 0, failures: [], invariants: [] };
    const withCounterexample = (flag: 'timed_out' | 'interrupted') => ({ ...report, properties: [{ ...report.properties[0], timed_out: undefined, [flag]: true, counterexample }].map((p) => JSON.parse(JSON.stringify(p)) as unknown) });
    expect(validate('report', withCounterexample('timed_out')).ok).toBe(false);
    expect(validate('report', withCounterexample('interrupted')).ok).toBe(false);
  });
});

describe('the command line, with a property whose scenario outlasts --timeout', () => {
  it('LOOP-3: exits 3 (incomplete), prints no reproducer, and report.json carries timed_out and no counterexample', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cantrip-time-limit-'));
    const module = join(dir, 'hung-adapter.ts');
    // An implementer's adapter module, as --adapter takes one: the conformant variant whose construct() never answers.
    writeFileSync(module, [
      `import { Miniature } from ${JSON.stringify(join(PACKAGE_ROOT, 'fixtures', 'miniatures', 'miniature.ts'))};`,
      'export function createAdapter() {',
      '  const inner = new Miniature();',
      '  return Object.assign(Object.create(inner), { construct: () => new Promise(() => undefined) });',
      '}',
      '',
    ].join('\n'));
    const { code, out } = await cli(['run', '--adapter', module, '--filter', 'done-ends-the-cast', '--timeout', String(TINY_LIMIT_MS), '--property-runs', '10', '-q', '--out', join(dir, 'out')]);
    expect(code).toBe(3);
    expect(out).not.toContain('- id: property-');
    const report = JSON.parse(readFileSync(join(dir, 'out', 'report.json'), 'utf8')) as { properties: PropertyResult[] };
    expect(validate('report', report)).toEqual({ ok: true });
    const ran = report.properties.filter((p) => p.status !== 'skipped');
    expect(ran.map((p) => [p.id, p.status, p.timed_out, p.counterexample])).toEqual([['done-ends-the-cast', 'errored', true, undefined]]);
  }, hangBound(60_000));
});

describe('a scenario that runs out of time while a failure is being shrunk', () => {
  it('LOOP-3: is discarded: the failure found stays the counterexample, and the property fails, not times out', async () => {
    // The broken variant (it ignores done) answers until a crystal has scripted a done call; every
    // instance made after that never answers construct(), so each shrinking attempt hits the limit.
    let sawDone = false;
    const watching = bridged(() => ({
      reply: (_crystal: string, reply: CrystalReply) => {
        if (reply.ok && reply.response.tool_calls?.some((call) => call.gate === 'done')) sawDone = true;
        return reply;
      },
    }))(() => new Miniature('ignores-done'));
    const factory: AdapterFactory = async () => {
      if (sawDone) return override(new Miniature('ignores-done'), { construct: () => new Promise<never>(() => undefined) });
      return (await watching()) as Adapter;
    };
    // Wide enough for a scenario that answers (milliseconds on an idle machine) on a loaded one; only the hung ones reach it.
    const [p] = await runProperties(factory, await describeAdapter(factory), { seed: 3, runs: 20, filter: ['done-ends-the-cast'], caseTimeoutMs: hangBound(2_000) });
    expect(sawDone).toBe(true);
    expect(p).toMatchObject({ id: 'done-ends-the-cast', status: 'fail', failed_rules: expect.arrayContaining(['LOOP-3']) });
    expect(p!.timed_out).toBeUndefined();
    expect(p!.counterexample?.failures.length).toBeGreaterThan(0);
  }, hangBound(120_000));
});

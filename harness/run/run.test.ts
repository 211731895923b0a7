import { describe, it, expect, vi } from 'vitest';
import type { Adapter } from '../../schemas/adapter.ts';
import { Miniature } from '../../fixtures/miniatures/miniature.ts';
import { loadCaseText } from '../case-file/load.ts';
import { runCase, runSuite } from './run.ts';
import { applyExpectedPropertyFailures, type PropertyResult } from '../properties/index.ts';
import { buildReport, exitCode, assertReportValid } from '../report/report.ts';

const FILE = `format_version: 1
spec_version: 0.1.0-draft
cases:
  - id: answers
    rules: [LOOP-3]
    level: MUST
    description: done ends the cast
    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done, echo], wards: { max_turns: 3 } } }
    crystals:
      parent: { script: [{ tool_calls: [{ gate: done, args: { answer: 1 } }] }] }
    act: [{ cast: { intent: go, as: first } }]
    expect: [{ path: outcomes.first.result, equals: 1 }]
  - id: runs-out-of-script
    rules: [LOOP-2]
    level: MUST
    drafts: [0.1.0]
    description: the crystal is asked more often than scripted
    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done, echo], wards: { max_turns: 3 } } }
    crystals:
      parent: { script: [{ tool_calls: [{ gate: echo, args: { text: a } }] }] }
    act: [{ cast: { intent: go, as: first } }]
    expect: [{ path: outcomes.first.status, one_of: [terminated, truncated] }]
  - id: needs-folding
    rules: [COMP-2]
    level: MUST
    requires: [folding]
    description: skipped without the feature
    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done, call_entity], wards: { max_turns: 3 } } }
    crystals: { parent: { script: [] } }
    act: [{ cast: { intent: go } }]
    expect: [{ path: outcomes.cast1.status, equals: terminated }]
  - id: bad-step
    rules: [CRYSTAL-3]
    level: SHOULD
    description: a scripted response that is not valid and not marked raw breaks the case itself
    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done], wards: { max_turns: 3 } } }
    crystals: { parent: { script: [{ content: null }] } }
    act: [{ cast: { intent: go, as: first } }]
    expect: [{ path: outcomes.first.status, equals: terminated }]
`;
const file = loadCaseText(FILE, 'run-test.yaml');
const byId = (id: string) => file.cases.find((c) => c.id === id)!;

/** A miniature whose cast throws or never settles, and which counts dispose() calls. */
class Faulty extends Miniature {
  static disposed = 0;
  constructor(private readonly mode: 'throw' | 'hang') {
    super();
  }
  override async cast(): Promise<never> {
    if (this.mode === 'throw') throw new TypeError('boom');
    return new Promise<never>(() => undefined);
  }
  override async dispose(): Promise<void> {
    Faulty.disposed++;
  }
}

describe('running cases in isolation', () => {
  it('LOOP-3: a passing case passes and counts its expectations', async () => {
    const description = await new Miniature().describe();
    const result = await runCase(byId('answers'), () => new Miniature(), description);
    expect(result).toMatchObject({ status: 'pass', expectations: 1, failures: [] });
  });

  it('a failing case reports only the rules of the expectations that failed, not every rule of the case', async () => {
    const twoRules = loadCaseText(FILE.replace(
      "    rules: [LOOP-3]\n    level: MUST\n    description: done ends the cast",
      "    rules: [LOOP-3, CIRCLE-8]\n    level: MUST\n    description: done ends the cast",
    ).replace(
      '    expect: [{ path: outcomes.first.result, equals: 1 }]',
      '    expect: [{ path: outcomes.first.result, equals: 2, rule: CIRCLE-8 }, { path: outcomes.first.status, equals: terminated, rule: LOOP-3 }]',
    ), 'attribution.yaml').cases[0]!;
    const result = await runCase(twoRules, () => new Miniature(), await new Miniature().describe());
    expect(result.status).toBe('fail');
    expect(result.rules).toEqual(['LOOP-3', 'CIRCLE-8']);
    expect(result.failed_rules).toEqual(['CIRCLE-8']);
    expect(result.failures.map((f) => [f.path, f.rule])).toEqual([['outcomes.first.result', 'CIRCLE-8']]);
    const report = buildReport({ ...(await runSuite(loadCaseText(FILE, 'x.yaml'), () => new Miniature(), { filter: ['answers'] })), cases: [result] });
    expect(report.root_causes.map((c) => c.rules)).toEqual([['CIRCLE-8']]);
    expect(report.rules.find((r) => r.id === 'LOOP-3')).toMatchObject({ status: 'pass', failed_by: [] });
    expect(report.rules.find((r) => r.id === 'CIRCLE-8')).toMatchObject({ status: 'fail', failed_by: ['answers'] });
  });

  it('an exhausted script fails the case with a message naming the crystal and the request index', async () => {
    const description = await new Miniature().describe();
    const result = await runCase(byId('runs-out-of-script'), () => new Miniature(), description);
    expect(result.status).toBe('fail');
    expect(result.problems.join('\n')).toContain("crystal 'parent'");
    expect(result.problems.join('\n')).toContain('request #1');
  });

  it('an invalid scripted step that is not marked raw makes the case errored, not failed', async () => {
    const description = await new Miniature().describe();
    const result = await runCase(byId('bad-step'), () => new Miniature(), description);
    expect(result.status).toBe('errored');
  });

  it('an adapter exception makes the case errored with the reason, and dispose() still runs', async () => {
    const before = Faulty.disposed;
    const description = await new Miniature().describe();
    const result = await runCase(byId('answers'), () => new Faulty('throw'), description);
    expect(result.status).toBe('errored');
    expect(result.reason).toContain('TypeError');
    expect(Faulty.disposed).toBe(before + 1);
  });

  it('an adapter that never answers is cut off by the case time limit and disposed', async () => {
    const before = Faulty.disposed;
    const description = await new Miniature().describe();
    const result = await runCase(byId('answers'), () => new Faulty('hang'), description, 30);
    expect(result.status).toBe('errored');
    expect(result.reason).toContain('30 ms');
    expect(Faulty.disposed).toBe(before + 1);
  });

  it('the run goes on after an errored case; feature-gated cases are skipped with the reason', async () => {
    let n = 0;
    const factory = (): Adapter => (n++ === 1 ? new Faulty('throw') : new Miniature());
    const suite = await runSuite(file, factory);
    expect(suite.cases.map((c) => c.status)).toEqual(['errored', 'fail', 'skipped', 'errored']);
    expect(suite.cases[2]?.reason).toBe('feature not declared: folding');
  });

  it('expected failures become xfail; a listed case that passes is stale and fails the run', async () => {
    const suite = await runSuite(file, () => new Miniature(), { expectedFailures: new Set(['runs-out-of-script', 'answers']), filter: ['answers', 'runs-out-of-script'] });
    expect(suite.cases.map((c) => [c.id, c.status, c.stale ?? false])).toEqual([
      ['answers', 'pass', true],
      ['runs-out-of-script', 'xfail', false],
    ]);
    const report = buildReport(suite);
    assertReportValid(report);
    expect(report.stale).toEqual(['answers']);
    // An expected failure is not grouped as a problem.
    expect(report.root_causes).toEqual([]);
    expect(exitCode(report)).toBe(1);
  });

  it('a listed case cut off by its time limit confirms nothing: it stays errored and the run is incomplete', async () => {
    const suite = await runSuite(file, () => new Faulty('hang'), { expectedFailures: new Set(['answers']), filter: ['answers'], timeoutMs: 50 });
    expect(suite.cases.map((c) => [c.id, c.status, c.timed_out ?? false])).toEqual([['answers', 'errored', true]]);
    const report = buildReport(suite);
    expect(report.verdict.MUST).toMatchObject({ status: 'incomplete' });
    expect(exitCode(report)).toBe(3);
  });

  it('a listed property cut off by a time limit or an interruption stays errored; one that errored otherwise is xfail', () => {
    const property = (id: string, extra: Partial<PropertyResult>): PropertyResult => ({ id, rules: ['LOOP-3'], level: 'MUST', title: id, status: 'errored', runs: 1, seed: 1, duration_ms: 1, failed_rules: [], ...extra });
    const listed = new Set(['slow', 'stopped', 'threw']);
    const results = applyExpectedPropertyFailures([property('slow', { timed_out: true }), property('stopped', { interrupted: true }), property('threw', { reason: 'boom' })], listed);
    expect(results.map((r) => [r.id, r.status])).toEqual([['slow', 'errored'], ['stopped', 'errored'], ['threw', 'xfail']]);
  });

  it('filters select by case id, rule id, rule family and feature', async () => {
    const ids = async (filter: string[]) => (await runSuite(file, () => new Miniature(), { filter })).cases.map((c) => c.id);
    expect(await ids(['answers'])).toEqual(['answers']);
    expect(await ids(['LOOP-2'])).toEqual(['runs-out-of-script']);
    expect(await ids(['CRYSTAL'])).toEqual(['bad-step']);
    expect(await ids(['folding'])).toEqual(['needs-folding']);
  });

  it('the report rolls rules up and gives a verdict per level', async () => {
    const suite = await runSuite(file, () => new Miniature(), { filter: ['answers', 'needs-folding'] });
    const report = buildReport(suite);
    assertReportValid(report);
    expect(report.verdict.MUST).toMatchObject({ status: 'pass', applicable: 1, pass: 1, skipped: 1 });
    expect(report.rules.find((r) => r.id === 'LOOP-3')?.status).toBe('pass');
    expect(report.rules.find((r) => r.id === 'COMP-2')?.status).toBe('skipped');
    expect(report.rules.find((r) => r.id === 'COMP-5')?.status).toBe('untested');
    expect(report.rules).toHaveLength(67);
    expect(report.root_causes).toEqual([]);
    expect(exitCode(report)).toBe(0);
  });
});

/** Two cases that script a wait (a delayed reply, a delay gate), then two that do not (marked by their echo gate). */
const MIXED = loadCaseText(
  `format_version: 1
spec_version: 0.1.0-draft
cases:
${['waits-on-crystal', 'waits-on-gate', 'computes-1', 'computes-2']
  .map(
    (id) => `  - id: ${id}
    rules: [LOOP-3]
    level: MUST
    description: done ends the cast
    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done, ${id === 'waits-on-gate' ? 'delay' : id.startsWith('computes') ? 'echo' : 'counter'}], wards: { max_turns: 3 } } }
    crystals:
      parent: { script: [{ tool_calls: [{ gate: done, args: { answer: 1 } }]${id === 'waits-on-crystal' ? ', delay_ms: 50' : ''} }] }
    act: [{ cast: { intent: go, as: first } }]
    expect: [{ path: outcomes.first.result, equals: 1 }]`,
  )
  .join('\n')}
`,
  'mixed.yaml',
);

/** Counts the adapter instances in use at once: all of them, and those of cases that script no wait. */
class Gauge {
  live = 0;
  most = 0;
  computing = 0;
  mostComputing = 0;
  /** The cases' gates, in the order their cantrips were constructed: which kind of case started when. */
  readonly constructed: string[] = [];

  factory(make: () => Adapter = () => new Miniature()): () => Adapter {
    return () => {
      const adapter = make();
      let constructed = false;
      let computes = false;
      const construct = adapter.construct.bind(adapter);
      adapter.construct = (setup, host) => {
        constructed = true;
        this.most = Math.max(this.most, ++this.live);
        computes = JSON.stringify(setup).includes('"echo"');
        this.constructed.push(['echo', 'delay', 'counter'].find((gate) => JSON.stringify(setup).includes(`"${gate}"`)) ?? '?');
        if (computes) this.mostComputing = Math.max(this.mostComputing, ++this.computing);
        return construct(setup, host);
      };
      const dispose = adapter.dispose.bind(adapter);
      adapter.dispose = async () => {
        if (constructed) this.live--;
        if (computes) this.computing--;
        return dispose();
      };
      return adapter;
    };
  }
}

describe('running cases at once (jobs)', () => {
  it('by default one case runs at a time', async () => {
    const gauge = new Gauge();
    const suite = await runSuite(MIXED, gauge.factory());
    expect(suite.cases.map((c) => c.status)).toEqual(['pass', 'pass', 'pass', 'pass']);
    expect(gauge.most).toBe(1);
  });

  it('cases that script a wait overlap others, those that do not never overlap each other; results and progress keep plan order', async () => {
    const gauge = new Gauge();
    const progress: string[] = [];
    const suite = await runSuite(MIXED, gauge.factory(), { jobs: 4, onCase: (result, done, total) => progress.push(`${done}/${total} ${result.id}`) });
    expect(suite.cases.map((c) => [c.id, c.status])).toEqual([
      ['waits-on-crystal', 'pass'],
      ['waits-on-gate', 'pass'],
      ['computes-1', 'pass'],
      ['computes-2', 'pass'],
    ]);
    expect(progress).toEqual(['1/4 waits-on-crystal', '2/4 waits-on-gate', '3/4 computes-1', '4/4 computes-2']);
    // Room for four, but computes-2 waits for computes-1; the three others start together (the run awaits nothing in between).
    expect(gauge.most).toBe(3);
    expect(gauge.mostComputing).toBe(1);
  });

  it('cases that script a wait start ahead of their turn, leaving a place to the cases that compute', async () => {
    const gauge = new Gauge();
    const reversed = { ...MIXED, cases: [...MIXED.cases].reverse() };
    const suite = await runSuite(reversed, gauge.factory(), { jobs: 3 });
    expect(suite.cases.map((c) => c.id)).toEqual(['computes-2', 'computes-1', 'waits-on-gate', 'waits-on-crystal']);
    expect(suite.cases.every((c) => c.status === 'pass')).toBe(true);
    // Both waiting cases start while computes-2 runs, before computes-1.
    expect(gauge.constructed[0]).toBe('echo');
    expect(gauge.constructed.slice(1, 3).sort()).toEqual(['counter', 'delay']);
    expect(gauge.constructed[3]).toBe('echo');
    expect(gauge.mostComputing).toBe(1);
  });

  it('many cases at once under an interruptible run: no listener-leak warning for the listeners they share', async () => {
    const waiting = MIXED.cases.find((c) => c.id === 'waits-on-crystal')!;
    const many = { ...MIXED, cases: Array.from({ length: 12 }, (_, i) => ({ ...waiting, id: `waits-${i}` })) };
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const suite = await runSuite(many, new Gauge().factory(), { jobs: 12, signal: new AbortController().signal });
      expect(suite.cases.every((c) => c.status === 'pass')).toBe(true);
      await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on a later tick
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });

  it('an interruption errors every running case and runs none after it', async () => {
    const controller = new AbortController();
    const gauge = new Gauge();
    let made = 0;
    // Interrupts once the three first cases are under way (the first instance only describes).
    const factory = gauge.factory(() => {
      if (++made === 4) setImmediate(() => controller.abort('SIGINT'));
      return new Faulty('hang');
    });
    const suite = await runSuite(MIXED, factory, { jobs: 3, signal: controller.signal });
    expect(suite.cases.map((c) => c.status)).toEqual(['errored', 'errored', 'errored', 'errored']);
    expect(suite.cases.slice(0, 3).map((c) => c.reason)).toEqual(Array(3).fill('the run was interrupted (SIGINT) while this case ran'));
    expect(suite.cases[3]?.reason).toBe('not run: the run was interrupted (SIGINT)');
    expect(suite.stopped).toBe('the run was interrupted (SIGINT)');
  });
});

describe('a case leaves no scripted wait behind', () => {
  it('LOOP-4: a hold the timeout ward cut short is cleared when the case ends, so no timer outlives it', async () => {
    const file = loadCaseText(
      `format_version: 1
spec_version: 0.1.0-draft
cases:
  - id: held-past-the-ward
    rules: [LOOP-4]
    level: MUST
    description: the second query is held far longer than the ward
    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done, echo], wards: { max_turns: 5, timeout_ms: 300 } } }
    crystals:
      parent: { script: [{ tool_calls: [{ gate: echo, args: { text: a } }] }, { tool_calls: [{ gate: done, args: { answer: late } }], delay_ms: 20000 }] }
    act: [{ cast: { intent: go, as: first } }]
    expect: [{ path: outcomes.first.status, equals: truncated }]
`,
      'held.yaml',
    );
    const setSpy = vi.spyOn(globalThis, 'setTimeout');
    const clearSpy = vi.spyOn(globalThis, 'clearTimeout');
    try {
      const result = await runCase(file.cases[0]!, () => new Miniature(), await new Miniature().describe());
      expect(result.status).toBe('pass');
      // The hold's timer (about 20 s) was cleared when the case ended; left pending, a CLI run would wait for it before exiting.
      const holds = setSpy.mock.calls.map((call, i) => ({ ms: Number(call[1]), timer: setSpy.mock.results[i]?.value as unknown })).filter((t) => t.ms > 15_000);
      // On a loaded machine the case's own time limit stretches past 15 s too (harness/values/machine-load.ts); it is cleared as well.
      expect(holds.length).toBeGreaterThanOrEqual(1);
      expect(holds.filter((h) => !clearSpy.mock.calls.some((call) => call[0] === h.timer))).toEqual([]);
    } finally {
      setSpy.mockRestore();
      clearSpy.mockRestore();
    }
  });
});

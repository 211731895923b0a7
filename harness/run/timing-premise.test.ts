import { describe, expect, it } from 'vitest';
import type { Adapter, Host } from '../../schemas/adapter.ts';
import { createReferenceAdapter } from '../../reference/adapter/index.ts';
import { CaseFileError, loadCaseText } from '../case-file/load.ts';
import { describeAdapter, runCase, runSuite } from './run.ts';
import { assertReportValid, buildReport } from '../report/report.ts';
import { PREMISE_ATTEMPTS, withTimesScaled } from './timing-premise.ts';
import { incompleteCase } from '../vitest/conformance.ts';

/** LOOM-1 / LOOP-4 in miniature: the ward must fire while the second query is held. Times are small on purpose. */
const caseText = (ward: number, hold: number, premise = '{ path: requests.parent, length: 2 }'): string => `format_version: 1
spec_version: 0.1.0-draft
cases:
  - id: held-second-query
    rules: [LOOM-1, LOOP-4]
    level: MUST
    description: the first turn is stored when the ward cuts off the held second query
    timeout_ms: 5000
    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done, echo], wards: { max_turns: 5, timeout_ms: ${ward} } } }
    crystals:
      parent:
        script:
          - tool_calls: [{ gate: echo, args: { text: made-it } }]
          - { tool_calls: [{ gate: done, args: { answer: too-slow } }], delay_ms: ${hold} }
    act: [{ cast: { intent: go, as: first } }]
${premise ? `    premise: [${premise}]\n` : ''}    expect:
      - { path: "loom.cast(first)[0].gate_calls[0].result", equals: made-it, rule: LOOM-1 }
      - { path: outcomes.first.status, equals: truncated, rule: LOOP-4 }
`;

/**
 * The reference on a machine that is slow at first: the first crystal reply of each of the first
 * `slowRuns` adapters comes `slowMs` late, as when a busy machine takes that long for the first turn.
 */
function slowAtFirst(slowMs: number, slowRuns: number): () => Adapter {
  let made = 0;
  return () => {
    const inner = createReferenceAdapter();
    const slow = made++ < slowRuns;
    return new Proxy(inner, {
      get(target, key) {
        if (key === 'construct') {
          return (setup: Parameters<Adapter['construct']>[0], host: Host) => {
            let first = slow;
            const late: Host = Object.create(host) as Host;
            late.queryCrystal = async (crystal, request) => {
              if (first) {
                first = false;
                await new Promise((resolve) => setTimeout(resolve, slowMs));
              }
              return host.queryCrystal(crystal, request);
            };
            return target.construct(setup, late);
          };
        }
        const value = Reflect.get(target, key) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  };
}

describe('timing premises (harness/run/timing-premise.ts)', () => {
  it('scales every scripted time of a case and nothing else', () => {
    const [c] = loadCaseText(caseText(200, 800), 'premise.yaml').cases;
    const scaled = withTimesScaled(c!, 4, 10_000);
    expect(scaled.setup.circle?.wards).toEqual({ max_turns: 5, timeout_ms: 800 });
    expect(scaled.crystals?.parent?.script?.map((step) => step.delay_ms)).toEqual([undefined, 3200]);
    expect(scaled.timeout_ms).toBe(20_000);
    expect(scaled.expect).toBe(c!.expect);
    expect(c!.setup.circle?.wards?.timeout_ms).toBe(200); // the loaded case is left as it was
  });

  it('LOOM-1, LOOP-4: a run slower than the ward misses the premise, and the case runs again with longer times and passes', async () => {
    const [c] = loadCaseText(caseText(200, 800), 'premise.yaml').cases;
    // The first turn of the first run takes 300 ms against a 200 ms ward: the held query is never asked.
    const factory = slowAtFirst(300, 1);
    const result = await runCase(c!, factory, await describeAdapter(createReferenceAdapter));
    expect(result.status).toBe('pass');
    expect(result.attempts).toBeGreaterThanOrEqual(2);
  });

  it('the report carries the runs a case took, and stays valid against its schema', async () => {
    const file = loadCaseText(caseText(200, 800), 'premise.yaml');
    // describe() takes the first adapter; the case's first run gets the slow second one.
    const suite = await runSuite(file, slowAtFirst(300, 2));
    const report = buildReport(suite, { filter: [] });
    assertReportValid(report);
    expect(report.cases[0]).toMatchObject({ status: 'pass', attempts: expect.any(Number) });
  });

  it('without a premise the same slow run is judged as it went: the case fails on its rules', async () => {
    const [c] = loadCaseText(caseText(200, 800, ''), 'premise.yaml').cases;
    const factory = slowAtFirst(300, 1);
    const result = await runCase(c!, factory, await describeAdapter(createReferenceAdapter));
    expect(result.status).toBe('fail');
    expect(result.attempts).toBeUndefined();
  });

  it('a case whose premise no run meets is errored, not failed, after the last run', async () => {
    const [c] = loadCaseText(caseText(50, 200), 'premise.yaml').cases;
    // 1000 ms late in every run, against wards of 50, 200 and 800 ms.
    const factory = slowAtFirst(1000, PREMISE_ATTEMPTS);
    const result = await runCase(c!, factory, await describeAdapter(createReferenceAdapter));
    expect(result.status).toBe('errored');
    expect(result.attempts).toBe(PREMISE_ATTEMPTS);
    expect(result.failed_rules).toEqual([]);
    // Flagged, so the vitest helper skips it as incomplete and the report says why without parsing words.
    expect(result.premise_missed).toBe(true);
    expect(incompleteCase(result, false)).toMatch(/^incomplete:/);
  });

  it('a premise met at once costs nothing: one run, no attempts recorded', async () => {
    // A premise no run can miss (the first query is always asked), so this holds on a machine of any speed.
    const [c] = loadCaseText(caseText(200, 800, '{ path: requests.parent, length: { at_least: 1 } }'), 'premise.yaml').cases;
    const factory = () => createReferenceAdapter();
    const result = await runCase(c!, factory, await describeAdapter(createReferenceAdapter));
    expect(result.status).toBe('pass');
    expect(result.attempts).toBeUndefined();
  });

  it('a premise on a case that scripts no time is a load error at its place', () => {
    const text = caseText(200, 800).replace(', timeout_ms: 200 ', ' ').replace(', delay_ms: 800 ', ' ');
    expect(() => loadCaseText(text, 'premise.yaml')).toThrow(CaseFileError);
    try {
      loadCaseText(text, 'premise.yaml');
    } catch (error) {
      // It points at the premise's own line.
      const line = text.split('\n').findIndex((row) => row.trimStart().startsWith('premise:')) + 1;
      expect((error as CaseFileError).message).toMatch(new RegExp(`premise\\.yaml:${line}:\\d+`));
    }
  });
});

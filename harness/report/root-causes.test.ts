import { describe, it, expect, beforeAll } from 'vitest';
import type { Result } from '../../schemas/adapter.ts';
import { formatProblems, validate } from '../../schemas/loader.ts';
import type { Turn } from '../../schemas/records.ts';
import { Miniature } from '../../fixtures/miniatures/miniature.ts';
import { loadCaseText } from '../case-file/load.ts';
import { buildReport, assertReportValid } from './report.ts';
import { renderMarkdown, summaryLines } from './markdown.ts';
import { normaliseText } from '../values/cause-text.ts';
import { expectationShape, invariantCauses, rootCauses, type CaseFailures } from './root-causes.ts';
import { ambientChecks } from './ambient-checks.ts';
import { runSuite, type SuiteResult } from '../run/run.ts';
import { schemaCause } from '../judge/schema-rules.ts';

// ---------------------------------------------------------------------------------------------------------
// The grouping on hand-made case results.

const TURN: Turn = {
  id: 't2', parent_id: 't1', cantrip_id: 'c', entity_id: 'e', role: 'crystal', sequence: 1, utterance: '',
  observation: '', gate_calls: [{ tool_call_id: 'tc_1', gate: 'done', ok: true }], reward: null, terminated: true, truncated: false,
  metadata: { tokens_prompt: 3, tokens_completion: 2, tokens_cached: 0, duration_ms: 1, timestamp: '2025-01-01T00:00:00Z' },
};

function failing(id: string, parts: Partial<CaseFailures>): CaseFailures {
  return { id, status: 'fail', rules: ['LOOP-3'], failures: [], invariants: [], problems: [], ...parts };
}

/** A turn-schema failure as the invariant writes it today: a header naming the turn, then the problem lines. */
function turnSchemaFailure(turn: Turn, index: number, withCause: boolean): CaseFailures['invariants'][number] {
  const result = validate('turn', turn);
  if (result.ok) throw new Error('expected an invalid turn');
  return {
    id: 'turn-schema',
    rules: ['LOOM-2', 'LOOM-9'],
    status: 'fail',
    detail: `loom turn [${index}] (${turn.id}):\n${formatProblems(result.problems)}`,
    ...(withCause && { cause: schemaCause('turn', result.problems) }),
  };
}

describe('rootCauses', () => {
  it('a cause the invariant gives and the cause read from its detail are the same key', () => {
    const turn = structuredClone(TURN);
    // LOOM-9 asks each turn for its duration.
    delete (turn.metadata as Partial<Turn['metadata']>).duration_ms;
    const structured = turnSchemaFailure(turn, 3, true);
    const fromDetail = turnSchemaFailure({ ...turn, id: 'other' }, 7, false);
    expect(invariantCauses(structured)).toEqual(invariantCauses(fromDetail));
    const checks = ambientChecks([{ ...failing('a', {}), invariants: [structured] }, { ...failing('b', {}), invariants: [fromDetail] }]);
    expect(checks[0]!.findings).toHaveLength(1);
    expect(checks[0]!.findings[0]).toMatchObject({ count: 2, cases: ['a', 'b'], rules: ['LOOM-9'] });
  });

  it('a failed ambient invariant is not a cause of the case it was seen in (it is judged once, in ambient_checks)', () => {
    const inv = { id: 'ids-and-parents', rules: ['LOOM-2'], status: 'fail', detail: 'turn id t-4 appears twice' };
    expect(rootCauses([failing('a', { invariants: [inv] })])).toEqual([]);
  });

  it('expectations group by path, matcher and the difference: the same wrong state in many cases is one problem', () => {
    const status = (actual: string) => ({ path: 'outcomes.first.status', matcher: 'equals', expected: { equals: 'terminated' }, actual, why: 'values differ' });
    const causes = rootCauses([
      failing('a', { failures: [status('truncated')] }),
      failing('b', { failures: [status('truncated')], rules: ['LOOP-6'] }),
      failing('c', { failures: [status('errored')] }),
      failing('d', { failures: [{ path: 'loom.turns', matcher: 'length', expected: { length: 3 }, actual: [1, 2], why: 'length is 2' }] }),
    ]);
    expect(causes.map((c) => [c.key, c.cases, c.rules])).toEqual([
      ['expectation outcomes.first.status equals: "terminated" → "truncated"', ['a', 'b'], ['LOOP-3', 'LOOP-6']],
      ['expectation loom.turns length 3: length is #', ['d'], ['LOOP-3']],
      ['expectation outcomes.first.status equals: "terminated" → "errored"', ['c'], ['LOOP-3']],
    ]);
    expect(causes[0]!.example).toEqual({ case: 'a', path: 'outcomes.first.status', matcher: 'equals', expected: { equals: 'terminated' }, actual: 'truncated', why: 'values differ' });
  });

  it('errored cases group by their normalised reason; passing and expected failures are left out', () => {
    const causes = rootCauses([
      { ...failing('a', {}), status: 'errored', reason: 'case slow-child did not finish within 10000 ms' },
      { ...failing('b', {}), status: 'errored', reason: 'case hangs-on-fork did not finish within 2000 ms' },
      { ...failing('c', { problems: ["crystal 'parent' has no scripted response left for request #2 (its script is exhausted)"] }), status: 'xfail' },
      { ...failing('d', {}), status: 'pass' },
    ]);
    expect(causes.map((c) => [c.key, c.kind, c.cases])).toEqual([['errored: case … did not finish within # ms', 'errored', ['a', 'b']]]);
  });

  it('driving problems group by their normalised text', () => {
    const exhausted = (crystal: string, n: number) => `crystal '${crystal}' has no scripted response left for request #${n} (its script is exhausted)`;
    const causes = rootCauses([failing('a', { problems: [exhausted('parent', 1)] }), failing('b', { problems: [exhausted('child', 4)] })]);
    expect(causes).toEqual([
      expect.objectContaining({ key: "problem: crystal '…' has no scripted response left for request # (its script is exhausted)", kind: 'problem', count: 2 }),
    ]);
  });

  it("a group's rules follow the judged draft's catalog, later-draft ids included", () => {
    const drop = (id: string, rules: string[]) => failing(id, { rules, failures: [{ path: 'outcomes.first.status', matcher: 'equals', expected: { equals: 'terminated' }, actual: 'errored', why: 'values differ' }] });
    const cases = [drop('a', ['COMP-11', 'LOOM-1']), drop('b', ['MEDIUM-2', 'LOOP-7', 'LLM-4'])];
    // At 0.3.1 the catalog runs LOOP, ..., LLM, ..., MEDIUM, ..., COMP, LOOM: ids new at 0.2.0+ are not pushed to the end.
    expect(rootCauses(cases, '0.3.1')[0]!.rules).toEqual(['LOOP-7', 'LLM-4', 'MEDIUM-2', 'COMP-11', 'LOOM-1']);
    // A seed-draft report keeps the seed catalog's order, and ids it does not know go last.
    expect(rootCauses(cases)[0]!.rules).toEqual(['LOOM-1', 'COMP-11', 'LLM-4', 'LOOP-7', 'MEDIUM-2']);
  });

  it('most cases first, then by key', () => {
    const causes = rootCauses([
      failing('a', { problems: ['zeta happened'] }),
      failing('b', { problems: ['alpha happened'] }),
      failing('c', { problems: ['zeta happened'] }),
    ]);
    expect(causes.map((c) => c.key)).toEqual(['problem: zeta happened', 'problem: alpha happened']);
  });

  it('a failed expectation is blamed on its own rule, not every rule of the case', () => {
    const status = { path: 'outcomes.first.status', matcher: 'equals', expected: { equals: 'terminated' }, actual: 'truncated', why: 'values differ', rule: 'LOOP-3' };
    const causes = rootCauses([failing('a', { rules: ['LOOP-3', 'CIRCLE-8', 'LOOM-7'], failures: [status] })]);
    expect(causes.map((c) => c.rules)).toEqual([['LOOP-3']]);
  });
});

describe('root causes by cause', () => {
  const nothing = (path: string, rule: string) => ({ path, matcher: 'equals', expected: { equals: 1 }, why: 'nothing at this path', rule });
  const refused = "act: cantrip 'main' was not constructed (unsupported)";

  it('a case whose construction was refused is one problem, not the "nothing at this path" symptoms of its expectations', () => {
    const causes = rootCauses([
      failing('a', { rules: ['COMP-1', 'COMP-2'], problems: [refused], failures: [nothing('outcomes.first.result', 'COMP-2'), nothing('requests.child', 'COMP-1'), nothing('loom.cast(first)', 'COMP-1')] }),
      failing('b', { rules: ['LOOP-3'], problems: [refused], failures: [nothing('outcomes.first.status', 'LOOP-3')] }),
    ]);
    expect(causes.map((c) => [c.key, c.kind, c.cases])).toEqual([["problem: act: cantrip '…' was not constructed (…)", 'problem', ['a', 'b']]]);
  });

  it('an errored case shows only its error, whatever it recorded', () => {
    const causes = rootCauses([{ ...failing('a', { failures: [nothing('outcomes.first.result', 'LOOP-3')] }), status: 'errored', reason: 'adapter threw: Boom' }]);
    expect(causes.map((c) => c.kind)).toEqual(['errored']);
  });

  it('two different values asked for under one path are two causes, each with its own example', () => {
    const wrong = (expected: unknown, actual: unknown) => ({ path: 'outcomes.first.result', matcher: 'equals', expected: { equals: expected }, actual, why: 'values differ', rule: 'CIRCLE-8' });
    const causes = rootCauses([failing('a', { failures: [wrong(42, '42')] }), failing('b', { failures: [wrong({ x: 1 }, { x: 2 })] }), failing('c', { failures: [wrong(42, '42')] })]);
    expect(causes.map((c) => [c.cases, c.example.case, c.example.expected])).toEqual([
      [['a', 'c'], 'a', { equals: 42 }],
      [['b'], 'b', { equals: { x: 1 } }],
    ]);
  });
});

describe('normalisation', () => {
  it.each([
    ['turn id t-abc3 appears twice', 'turn id … appears twice'],
    ['turn alpha has parent beta, which is not in the loom', 'turn … has parent …, which is not in the loom'],
    ['entity e1: sequence 3 is followed by 5', 'entity …: sequence # is followed by #'],
    ["request #2 to 'parent' has two assistant messages in a row at [3] and [4]", "request # to '…' has two assistant messages in a row at [#] and [#]"],
    ['request #0 (first): first user message is "hello", not the intent', 'request # (…): first user message is "…", not the intent'],
  ])('%s', (text, normal) => {
    expect(normaliseText(text)).toBe(normal);
  });

  it('a leading action label goes only when asked (invariant details start with one)', () => {
    expect(normaliseText('first: its last turn t9 is neither terminated nor truncated', { label: true })).toBe('…: its last turn … is neither terminated nor truncated');
    expect(normaliseText('act: the adapter refused cast')).toBe('act: the adapter refused cast');
  });

  it('different structure stays different', () => {
    expect(normaliseText('first: outcome says terminated but its last turn says truncated', { label: true })).not.toBe(
      normaliseText('first: outcome says truncated but its last turn says terminated', { label: true }),
    );
  });

  it('an expectation difference names both states only for named states', () => {
    expect(expectationShape({ path: 'p', matcher: 'equals', expected: { equals: true }, actual: false })).toBe('true → false');
    expect(expectationShape({ path: 'p', matcher: 'equals', expected: { equals: 3 }, actual: 4, why: 'values differ' })).toBe('values differ');
    expect(expectationShape({ path: 'p', matcher: 'equals', expected: { equals: 'terminated' }, why: 'nothing at this path' })).toBe('nothing at this path');
  });
});

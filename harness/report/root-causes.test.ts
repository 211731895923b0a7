import { describe, it, expect, beforeAll } from 'vitest';
import type { Result } from '../../schemas/adapter.ts';
import { formatProblems, validate } from '../../schemas/loader.ts';
import type { Turn } from '../../schemas/records.ts';
import { Miniature } from '../../fixtures/miniatures/miniature.ts';
import { loadCaseText } from '../case-file/load.ts';
import { buildReport, assertReportValid } from './report.ts';
import { renderMarkdown, summaryLines } from './markdown.ts';
import { normaliseText } from '../values/cause-text.ts';
import { casesWithCauses, expectationShape, invariantCauses, rootCauses, type CaseFailures } from './root-causes.ts';
import { runSuite, type SuiteResult } from '../run/run.ts';
import { schemaCause } from '../judge/schema-rules.ts';

// Five cases with different ids, action names, gates and turn counts; each passes on an untouched miniature.
const gated = (id: string, action: string, steps: string) => `  - id: ${id}
    rules: [LOOP-3]
    level: MUST
    description: ${id}
    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done, echo], wards: { max_turns: 5 } } }
    crystals:
      parent: { script: [${steps}] }
    act: [{ cast: { intent: go, as: ${action} } }]
    expect: [{ path: outcomes.${action}.status, equals: terminated }]
`;
const DONE = '{ tool_calls: [{ gate: done, args: { answer: 1 } }] }';
const ECHO = '{ tool_calls: [{ gate: echo, args: { text: a } }] }';
const FILE = loadCaseText(`format_version: 1
spec_version: 0.1.0-draft
cases:
${gated('one-turn', 'first', DONE)}${gated('two-turns', 'second', `${ECHO}, ${DONE}`)}${gated('three-turns', 'third', `${ECHO}, ${ECHO}, ${DONE}`)}${gated('echo-then-done', 'alpha', `${ECHO}, ${DONE}`)}${gated('done-at-once', 'beta', DONE)}`, 'root-causes-test.yaml');

type Flaw = (turn: Turn) => void;

/**
 * A miniature whose loom() answer carries structural flaws on every crystal turn, and whose turn ids carry
 * a prefix of their own, so no two cases name their turns alike.
 */
class Flawed extends Miniature {
  private static made = 0;
  private readonly prefix = `m${++Flawed.made}x`;
  constructor(private readonly flaws: Flaw[]) {
    super();
  }
  override async loom(): Promise<Result<{ turns: Turn[] }>> {
    const result = await super.loom();
    if (!result.ok) return result;
    const turns = structuredClone(result.value.turns);
    for (const t of turns) {
      t.id = `${this.prefix}${t.id}`;
      if (t.parent_id !== null) t.parent_id = `${this.prefix}${t.parent_id}`;
      if (t.role === 'crystal') for (const flaw of this.flaws) flaw(t);
    }
    return { ok: true, value: { turns } };
  }
}

const noToolCallId: Flaw = (t) => t.gate_calls.forEach((g) => delete (g as Partial<typeof g>).tool_call_id);
const noDuration: Flaw = (t) => delete (t.metadata as Partial<Turn['metadata']>).duration_ms;

async function run(flawsFor: (caseId: string) => Flaw[]): Promise<SuiteResult> {
  const ids = FILE.cases.map((c) => c.id);
  let made = 0;
  // describe() takes the first adapter; then one fresh adapter per case, in plan order.
  return runSuite(FILE, () => {
    const k = made++ - 1;
    return new Flawed(k < 0 ? [] : flawsFor(ids[k]!));
  });
}

describe('one structural difference across many cases is one problem', () => {
  let suite: SuiteResult;
  beforeAll(async () => {
    suite = await run(() => [noToolCallId]);
  });

  it('every case fails the turn-schema invariant, each with its own turn ids and indices in the detail', () => {
    expect(suite.cases.map((c) => c.status)).toEqual(['fail', 'fail', 'fail', 'fail', 'fail']);
    const details = suite.cases.map((c) => c.invariants.find((i) => i.id === 'turn-schema')?.detail);
    expect(details.every((d) => d?.includes('tool_call_id'))).toBe(true);
    expect(new Set(details).size).toBeGreaterThan(1);
  });

  it('CIRCLE-4, CIRCLE-7: the report groups them as one root cause, attributed to the gate record rules', () => {
    const report = buildReport(suite);
    assertReportValid(report);
    expect(report.root_causes).toHaveLength(1);
    const [cause] = report.root_causes;
    expect(cause).toMatchObject({
      key: 'invariant turn-schema: turn:/gate_calls/*/tool_call_id [required]',
      kind: 'invariant',
      rules: ['CIRCLE-4', 'CIRCLE-7'],
      section: '§4.3',
      count: 5,
      cases: FILE.cases.map((c) => c.id),
    });
    expect(cause!.example.case).toBe('one-turn');
    expect(cause!.example.detail).toMatch(/^loom turn \[\d+\] \(.+\): \/gate_calls\/0\/tool_call_id: is required$/);
  });

  it('report.md leads with the problem count, then the per-case detail as before', () => {
    const md = renderMarkdown(buildReport(suite));
    expect(md).toContain('## Problems\n\n1 problem behind 5 failing or errored cases.');
    // People see the first case's own words, not the grouping key (whose `*` stands for any index).
    const cause = buildReport(suite).root_causes[0]!;
    expect(md).toContain(`1. **Problem 1, seen in 5 cases** (CIRCLE-4, CIRCLE-7; §4.3): \`invariant turn-schema: ${cause.example.detail!.split('\n')[0]}\``);
    expect(md).not.toContain(cause.key);
    expect(md.indexOf('## Problems')).toBeLessThan(md.indexOf('## Failures'));
    expect(md).toContain('### one-turn (fail)');
  });

  it('the console summary prints the top root causes before the failing cases', () => {
    const lines = summaryLines(buildReport(suite));
    const head = lines.findIndex((l) => l.startsWith('1 problem behind 5 failing or errored cases'));
    expect(head).toBeGreaterThan(0);
    const cause = buildReport(suite).root_causes[0]!;
    expect(lines[head + 1]).toBe(`  5 × [CIRCLE-4, CIRCLE-7; §4.3] invariant turn-schema: ${cause.example.detail!.split('\n')[0]}`);
    expect(lines.findIndex((l) => l.startsWith('  FAIL one-turn'))).toBeGreaterThan(head);
  });
});

describe('different problems stay apart', () => {
  it('two flaws in different cases are two groups; a case with both is counted in each', async () => {
    const suite = await run((id) => (id === 'one-turn' ? [noToolCallId, noDuration] : id === 'two-turns' || id === 'three-turns' ? [noToolCallId] : [noDuration]));
    const report = buildReport(suite);
    assertReportValid(report);
    expect(report.root_causes.map((c) => [c.key, c.rules, c.cases])).toEqual([
      ['invariant turn-schema: turn:/gate_calls/*/tool_call_id [required]', ['CIRCLE-4', 'CIRCLE-7'], ['one-turn', 'two-turns', 'three-turns']],
      ['invariant turn-schema: turn:/metadata/duration_ms [required]', ['LOOM-9'], ['one-turn', 'echo-then-done', 'done-at-once']],
    ]);
    expect(casesWithCauses(report.root_causes)).toBe(5);
    expect(renderMarkdown(report)).toContain('2 problems behind 5 failing or errored cases');
  });
});

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
    delete (turn.gate_calls[0] as Partial<Turn['gate_calls'][number]>).tool_call_id;
    const structured = turnSchemaFailure(turn, 3, true);
    const fromDetail = turnSchemaFailure({ ...turn, id: 'other' }, 7, false);
    expect(invariantCauses(structured)).toEqual(invariantCauses(fromDetail));
    const causes = rootCauses([failing('a', { invariants: [structured] }), failing('b', { invariants: [fromDetail] })]);
    expect(causes).toHaveLength(1);
    expect(causes[0]).toMatchObject({ count: 2, cases: ['a', 'b'], rules: ['CIRCLE-4', 'CIRCLE-7'] });
  });

  it('an invariant cause that is not a schema key keeps the invariant rules', () => {
    const inv = (detail: string) => ({ id: 'ids-and-parents', rules: ['LOOM-2'], status: 'fail', detail });
    const causes = rootCauses([
      failing('a', { invariants: [inv('turn t-1 has parent t-0, which is not in the loom')] }),
      failing('b', { invariants: [inv('turn 9f3c has parent null, which is not in the loom')] }),
      failing('c', { invariants: [inv('turn id t-4 appears twice')] }),
    ]);
    expect(causes.map((c) => [c.key, c.count, c.rules])).toEqual([
      ['invariant ids-and-parents: turn … has parent …, which is not in the loom', 2, ['LOOM-2']],
      ['invariant ids-and-parents: turn id … appears twice', 1, ['LOOM-2']],
    ]);
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
      ['expectation loom.turns length: length is #', ['d'], ['LOOP-3']],
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

  it('most cases first, then by key', () => {
    const inv = (id: string) => ({ id, rules: ['LOOP-1'], status: 'fail', detail: 'something' });
    const causes = rootCauses([
      failing('a', { invariants: [inv('zeta')] }),
      failing('b', { invariants: [inv('alpha')] }),
      failing('c', { invariants: [inv('zeta')] }),
    ]);
    expect(causes.map((c) => c.key)).toEqual(['invariant zeta: something', 'invariant alpha: something']);
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

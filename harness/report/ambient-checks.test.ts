import { describe, it, expect, beforeAll } from 'vitest';
import type { Result } from '../../schemas/adapter.ts';
import type { Turn } from '../../schemas/records.ts';
import { Miniature } from '../../fixtures/miniatures/miniature.ts';
import { loadCaseText } from '../case-file/load.ts';
import { buildReport, assertReportValid, exitCode } from './report.ts';
import { renderMarkdown, summaryLines } from './markdown.ts';
import { renderJUnit } from './junit.ts';
import { casesWithCauses } from './root-causes.ts';
import { ambientChecks } from './ambient-checks.ts';
import { runSuite, type SuiteResult } from '../run/run.ts';

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

// A truncation cause on a turn that is not truncated: the turn records a terminal state it did not reach (LOOM-7).
// (A gate record's shape at 0.1.0 is no longer one: no rule asks for it, issue 29.)
const strayCause: Flaw = (t) => {
  if (!t.truncated) t.truncation_cause = 'stray';
};
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

describe('an invariant violated in every case is one ambient finding, and the cases pass on their expectations', () => {
  let suite: SuiteResult;
  beforeAll(async () => {
    suite = await run(() => [strayCause]);
  });

  it('every case sees the turn-schema violation, each with its own turn ids in the detail, and passes on its own expectation', () => {
    expect(suite.cases.map((c) => c.status)).toEqual(['pass', 'pass', 'pass', 'pass', 'pass']);
    expect(suite.cases.map((c) => c.failed_rules)).toEqual([[], [], [], [], []]);
    const details = suite.cases.map((c) => c.invariants.find((i) => i.id === 'turn-schema')?.detail);
    expect(details.every((d) => d?.includes('truncation_cause'))).toBe(true);
    expect(new Set(details).size).toBeGreaterThan(1);
  });

  it('the report has one finding under the rule the field serves, no case problem, and MUST fails once', () => {
    const report = buildReport(suite);
    assertReportValid(report);
    expect(report.root_causes).toEqual([]);
    const check = report.ambient_checks.find((c) => c.id === 'turn-schema');
    expect(check).toMatchObject({ status: 'fail', checked: 5, violated: FILE.cases.map((c) => c.id) });
    expect(check!.findings).toHaveLength(1);
    expect(check!.findings[0]).toMatchObject({ key: 'turn:/truncation_cause [const]', rules: ['LOOM-7'], section: '§6.1', count: 5, cases: FILE.cases.map((c) => c.id) });
    expect(check!.findings[0]!.example.case).toBe('one-turn');
    expect(check!.findings[0]!.example.detail).toMatch(/^loom turn \[\d+\] \(.+\): \/truncation_cause: must be equal to constant$/);
    // The cases pass, yet the MUST level fails, once, for the one finding.
    expect(report.verdict.MUST).toMatchObject({ status: 'fail', pass: 5, fail: 0, ambient_findings: 1 });
    expect(exitCode(report)).toBe(1);
    expect(report.rules.find((r) => r.id === 'LOOM-7')).toMatchObject({ status: 'fail', failed_by: [], failed_by_ambient: ['turn-schema'] });
    // The other checks looked and saw nothing.
    expect(report.ambient_checks.filter((c) => c.id !== 'turn-schema' && c.status === 'fail')).toEqual([]);
  });

  it('report.md shows the check once, with its finding and its example, and lists no failing case', () => {
    const md = renderMarkdown(buildReport(suite));
    expect(md).toContain('## Ambient checks');
    expect(md).toContain('| turn-schema | ');
    expect(md).toContain('- **LOOM-7; §6.1**, seen in 5 cases: `turn:/truncation_cause [const]`');
    expect(md).not.toContain('## Problems');
    expect(md).not.toContain('### one-turn (fail)');
  });

  it('the console summary names the finding once; junit.xml has one failing test for the check', () => {
    const report = buildReport(suite);
    const lines = summaryLines(report);
    expect(lines.filter((l) => l.includes('truncation_cause [const]'))).toEqual(['  turn-schema [LOOM-7; §6.1] in 5 cases: turn:/truncation_cause [const]']);
    const xml = renderJUnit(report);
    expect(xml.match(/<testcase name="ambient turn-schema"/g)).toHaveLength(1);
    expect(xml.match(/<failure /g)).toHaveLength(1);
    expect(xml).toContain('<failure type="ambient"');
  });
});

describe('different findings stay apart', () => {
  it('two flaws in different cases are two findings, each with an example of its own; a case with both is counted in each', async () => {
    const suite = await run((id) => (id === 'one-turn' ? [strayCause, noDuration] : id === 'two-turns' || id === 'three-turns' ? [strayCause] : [noDuration]));
    const report = buildReport(suite);
    assertReportValid(report);
    expect(casesWithCauses(report.root_causes)).toBe(0);
    const check = report.ambient_checks.find((c) => c.id === 'turn-schema')!;
    expect(check.findings.map((f) => [f.key, f.rules, f.cases])).toEqual([
      ['turn:/metadata/duration_ms [required]', ['LOOM-9'], ['one-turn', 'echo-then-done', 'done-at-once']],
      ['turn:/truncation_cause [const]', ['LOOM-7'], ['one-turn', 'two-turns', 'three-turns']],
    ]);
    // Each example is about its own finding, never the text of the other.
    expect(check.findings[0]!.example.detail).toContain('duration_ms');
    expect(check.findings[0]!.example.detail).not.toContain('truncation_cause');
    expect(check.findings[1]!.example.detail).toContain('truncation_cause');
    expect(report.verdict.MUST.ambient_findings).toBe(2);
  });
});

describe('ambientChecks on hand-made case results', () => {
  const inv = (detail: string) => ({ id: 'ids-and-parents', rules: ['LOOM-2'], status: 'fail', detail });
  it('a non-schema cause keeps the invariant rules; skipped and errored cases are not read', () => {
    const checks = ambientChecks([
      { id: 'a', status: 'pass', invariants: [inv('turn t-1 has parent t-0, which is not in the loom')] },
      { id: 'b', status: 'fail', invariants: [inv('turn 9f3c has parent null, which is not in the loom')] },
      { id: 'c', status: 'pass', invariants: [inv('turn id t-4 appears twice')] },
      { id: 'd', status: 'errored', invariants: [inv('turn id t-9 appears twice')] },
      { id: 'e', status: 'pass', invariants: [{ id: 'ids-and-parents', rules: ['LOOM-2'], status: 'pass' }] },
    ]);
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({ id: 'ids-and-parents', rules: ['LOOM-2'], status: 'fail', checked: 4, violated: ['a', 'b', 'c'] });
    expect(checks[0]!.findings.map((f) => [f.key, f.count, f.rules, f.example.case])).toEqual([
      ['turn … has parent …, which is not in the loom', 2, ['LOOM-2'], 'a'],
      ['turn id … appears twice', 1, ['LOOM-2'], 'c'],
    ]);
  });

  it('a check that never looked is skipped with the reason', () => {
    const checks = ambientChecks([{ id: 'a', status: 'pass', invariants: [{ id: 'wire-format', rules: ['CRYSTAL-6'], status: 'skipped', detail: 'by callback' }] }]);
    expect(checks).toEqual([{ id: 'wire-format', rules: ['CRYSTAL-6'], status: 'skipped', checked: 0, violated: [], reason: 'by callback', findings: [] }]);
  });
});



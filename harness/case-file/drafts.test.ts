/**
 * The case-file keys of issue 24: `drafts`, `rules_draft` and a level per draft. Each refusal names the
 * file, line and column of the value to fix; each accepted form loads and says which drafts the case
 * applies to.
 */
import { describe, it, expect } from 'vitest';
import { loadCaseText } from './load.ts';
import { caseDrafts, levelFor } from './drafts.ts';
import { problemsOf } from '../testing/case-file-refusals.ts';

const HEAD = 'format_version: 1\nspec_version: 0.1.0-draft\ncases:\n';

/** One case; `keys` go right after `level:` (line 6 of the file), so positions below are fixed. */
function caseText(rules: string, level: string, keys = '', rule = ''): string {
  return `${HEAD}  - id: one
    rules: [${rules}]
    level: ${level}
${keys}    description: d
    setup:
      crystal: parent
      call: {}
      circle: { medium: conversation, gates: [done], wards: { max_turns: 2 } }
    crystals:
      parent: { script: [{ content: hi }] }
    act:
      - cast: { intent: go, as: first }
    expect:
      - { path: outcomes.first.status, equals: terminated${rule} }
`;
}

const loaded = (text: string) => loadCaseText(text, 'cases.yaml').cases[0]!;

describe('drafts a case applies to', () => {
  it('by default, every draft where each of its rules keeps its meaning', () => {
    // CRYSTAL-4 is LLM-4 later, renamed only; LOOP-3 is the same everywhere.
    expect(caseDrafts(loaded(caseText('CRYSTAL-4', 'MUST')))).toEqual(['0.1.0', '0.2.0', '0.3.1']);
    // COMP-1 is reversed from 0.2.0 on: its 0.1.0 cases hold at 0.1.0 only.
    expect(caseDrafts(loaded(caseText('COMP-1', 'MUST')))).toEqual(['0.1.0']);
    // CANTRIP-3 is removed from 0.2.0 on.
    expect(caseDrafts(loaded(caseText('CANTRIP-3', 'MUST')))).toEqual(['0.1.0']);
  });

  it('a case written in 0.3.1 IDs loads with rules_draft, and a rule new there keeps it out of older drafts', () => {
    // LOOP-7 (a failing done call does not end the loop) is stated from 0.2.0 on.
    const c = loaded(caseText('LOOP-7', 'MUST', '    rules_draft: 0.3.1\n'));
    expect(caseDrafts(c)).toEqual(['0.2.0', '0.3.1']);
    expect(caseDrafts(loaded(caseText('LLM-4', 'MUST', '    rules_draft: 0.3.1\n')))).toEqual(['0.1.0', '0.2.0', '0.3.1']);
  });

  it('listed drafts are taken as listed, oldest first', () => {
    expect(caseDrafts(loaded(caseText('LOOP-2', 'MUST', '    drafts: [0.3.1, 0.1.0]\n')))).toEqual(['0.1.0', '0.3.1']);
  });
});

describe('refusals, each at file:line:col', () => {
  it('an unknown draft in drafts', () => {
    const problems = problemsOf(caseText('LOOP-3', 'MUST', '    drafts: [0.1.0, 0.4.0]\n'));
    expect(problems).toEqual([expect.objectContaining({ file: 'cases.yaml', line: 7, column: 21, pointer: '/cases/0/drafts/1' })]);
    expect(problems[0]!.message).toContain('0.4.0');
  });

  it('an unknown rules_draft', () => {
    expect(problemsOf(caseText('LOOP-3', 'MUST', '    rules_draft: 0.2.5\n'))).toEqual([expect.objectContaining({ line: 7, column: 18, pointer: '/cases/0/rules_draft' })]);
  });

  it("a rule id its rules_draft's catalog lacks: LLM-4 without rules_draft, CRYSTAL-4 with 0.3.1", () => {
    expect(problemsOf(caseText('LOOP-3, LLM-4', 'MUST', '', ', rule: LOOP-3'))).toEqual([expect.objectContaining({ line: 5, column: 21, pointer: '/cases/0/rules/1' })]);
    expect(problemsOf(caseText('CRYSTAL-4', 'MUST', '    rules_draft: 0.3.1\n'))).toEqual([expect.objectContaining({ line: 5, column: 13, pointer: '/cases/0/rules/0' })]);
  });

  it('a listed draft where one of its rules is reversed (COMP-1), removed (CANTRIP-3) or not yet stated (LOOP-7)', () => {
    expect(problemsOf(caseText('COMP-1', 'MUST', '    drafts: [0.1.0, 0.3.1]\n'))).toEqual([expect.objectContaining({ line: 7, column: 21, pointer: '/cases/0/drafts/1' })]);
    expect(problemsOf(caseText('CANTRIP-3', 'MUST', '    drafts: [0.2.0]\n'))).toEqual([expect.objectContaining({ line: 7, column: 14, pointer: '/cases/0/drafts/0' })]);
    expect(problemsOf(caseText('LOOP-7', 'MUST', '    rules_draft: 0.3.1\n    drafts: [0.1.0]\n'))).toEqual([expect.objectContaining({ line: 8, column: 14, pointer: '/cases/0/drafts/0' })]);
  });

  it('an amended rule (LOOP-2 at 0.3.1) without explicit drafts; listing them settles it', () => {
    expect(problemsOf(caseText('LOOP-2', 'MUST'))).toEqual([expect.objectContaining({ line: 5, column: 13, pointer: '/cases/0/rules/0' })]);
    expect(caseDrafts(loaded(caseText('LOOP-2', 'MUST', '    drafts: [0.1.0, 0.2.0, 0.3.1]\n')))).toEqual(['0.1.0', '0.2.0', '0.3.1']);
  });

  it('a level stronger than the rule states in a draft: a COMP-7 case claiming MUST where 0.1.0 says MAY', () => {
    expect(problemsOf(caseText('COMP-7', 'MUST'))).toEqual([expect.objectContaining({ line: 6, column: 12, pointer: '/cases/0/level' })]);
    expect(levelFor(loaded(caseText('COMP-7', 'MAY')), '0.1.0')).toBe('MAY');
  });

  it('one level on a rule whose level changed (COMP-9: MUST, then SHOULD); a map per draft settles it', () => {
    const problems = problemsOf(caseText('COMP-9', 'MUST'));
    expect(problems.map((p) => [p.line, p.column, p.pointer])).toEqual([
      [6, 12, '/cases/0/level'],
      [6, 12, '/cases/0/level'],
    ]);
    expect(problems.map((p) => p.message).join('\n')).toMatch(/0\.2\.0[\s\S]*0\.3\.1/);
    const c = loaded(caseText('COMP-9', '{ 0.1.0: MUST, 0.2.0: SHOULD, 0.3.1: SHOULD }'));
    expect(['0.1.0', '0.2.0', '0.3.1'].map((d) => levelFor(c, d))).toEqual(['MUST', 'SHOULD', 'SHOULD']);
  });

  it('a level map that claims MUST where the rule has become SHOULD', () => {
    expect(problemsOf(caseText('COMP-9', '{ 0.1.0: MUST, 0.2.0: SHOULD, 0.3.1: MUST }'))).toEqual([expect.objectContaining({ line: 6, column: 49, pointer: '/cases/0/level/0.3.1' })]);
  });

  it('a level map that leaves out a draft the case applies to, or names one it does not', () => {
    expect(problemsOf(caseText('COMP-9', '{ 0.1.0: MUST, 0.2.0: SHOULD }'))).toEqual([expect.objectContaining({ line: 6, column: 12, pointer: '/cases/0/level' })]);
    expect(problemsOf(caseText('COMP-1', '{ 0.1.0: MUST, 0.3.1: MUST }'))).toEqual([expect.objectContaining({ line: 6, column: 34, pointer: '/cases/0/level/0.3.1' })]);
  });

  it('a weaker level than the rule states is allowed (a case may check only a part asked at that strength)', () => {
    expect(levelFor(loaded(caseText('CIRCLE-5', 'SHOULD')), '0.3.1')).toBe('SHOULD');
  });
});

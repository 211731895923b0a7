/**
 * Planning for a judged draft (harness/plan/drafts.ts): which draft a run judges, which cases fall
 * outside it, and each case in the judged draft's rule IDs and level.
 */
import { describe, it, expect } from 'vitest';
import type { Description } from '../../schemas/adapter.ts';
import { loadCaseText } from '../case-file/index.ts';
import { caseForDraft, chooseDraft, DraftChoiceError, kitRulesIn, ruleIdAt, ruleIdsInTextAt } from './drafts.ts';
import { planCases } from './plan.ts';

const describing = (drafts?: string[]): Description => ({ name: 'impl', version: '1', spec_version: 'x', protocol_version: 1, features: [], ...(drafts && { drafts }) });

const FILE = loadCaseText(`format_version: 1
spec_version: 0.1.0-draft
cases:
  - id: tools-presented
    rules: [CRYSTAL-4, CALL-2]
    level: MUST
    description: d
    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done], wards: { max_turns: 2 } } }
    crystals: { parent: { script: [{ content: hi }] } }
    act: [{ cast: { intent: go, as: first } }]
    expect:
      - { path: outcomes.first.status, equals: terminated, rule: CRYSTAL-4 }
      - { path: outcomes.first.result, present: true, rule: CALL-2 }
  - id: child-circle-from-parent
    rules: [COMP-1]
    level: MUST
    description: d
    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done], wards: { max_turns: 2 } } }
    crystals: { parent: { script: [{ content: hi }] } }
    act: [{ cast: { intent: go, as: first } }]
    expect: [{ path: outcomes.first.status, equals: terminated }]
  - id: children-truncated
    rules: [COMP-9]
    level: { 0.1.0: MUST, 0.2.0: SHOULD, 0.3.1: SHOULD }
    description: d
    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done], wards: { max_turns: 2 } } }
    crystals: { parent: { script: [{ content: hi }] } }
    act: [{ cast: { intent: go, as: first } }]
    expect: [{ path: outcomes.first.status, equals: terminated }]
`);
const [presented, childCircle, truncated] = FILE.cases as [typeof FILE.cases[0], typeof FILE.cases[0], typeof FILE.cases[0]];

describe('the draft a run judges', () => {
  it('an implementation that declares no drafts is judged at 0.1.0', () => {
    expect(chooseDraft(describing())).toBe('0.1.0');
  });

  it('by default the newest it declares, in registry order whatever order it lists them in', () => {
    expect(chooseDraft(describing(['0.3.1', '0.1.0']))).toBe('0.3.1');
    expect(chooseDraft(describing(['0.1.0', '0.2.0']))).toBe('0.2.0');
  });

  it('an asked draft it declares is taken; one it does not declare, or one the kit does not know, is refused', () => {
    expect(chooseDraft(describing(['0.1.0', '0.3.1']), '0.1.0')).toBe('0.1.0');
    expect(() => chooseDraft(describing(), '0.3.1')).toThrow(DraftChoiceError);
    expect(() => chooseDraft(describing(['0.1.0', '0.3.1']), '0.2.0')).toThrow(DraftChoiceError);
    expect(() => chooseDraft(describing(['0.1.0']), '0.4.0')).toThrow(/0\.1\.0, 0\.2\.0, 0\.3\.1/);
  });

  it('an implementation declaring only drafts the kit does not know cannot be judged', () => {
    expect(() => chooseDraft(describing(['9.9.9']))).toThrow(DraftChoiceError);
  });
});

describe('a case as the judged draft sees it', () => {
  it("rules, every expectation's rule and the level in that draft's terms; the cantrips asked for that draft", () => {
    const seen = caseForDraft(presented, '0.3.1')!;
    expect(seen.rules).toEqual(['LLM-4', 'IDENTITY-2']);
    expect(seen.expect.map((e) => e.rule)).toEqual(['LLM-4', 'IDENTITY-2']);
    expect(seen.level).toBe('MUST');
    expect(seen.judged_draft).toBe('0.3.1');
    expect(caseForDraft(truncated, '0.3.1')!.level).toBe('SHOULD');
    expect(caseForDraft(truncated, '0.1.0')!.level).toBe('MUST');
  });

  it('at its own draft it is unchanged but for the judged draft', () => {
    const seen = caseForDraft(presented, '0.1.0')!;
    expect(seen.rules).toEqual(['CRYSTAL-4', 'CALL-2']);
    expect(seen.judged_draft).toBe('0.1.0');
  });

  it('a case whose rule the draft reverses does not apply there', () => {
    expect(caseForDraft(childCircle, '0.2.0')).toBeUndefined();
    expect(caseForDraft(childCircle, '0.1.0')?.rules).toEqual(['COMP-1']);
  });
});

describe('planning for a judged draft', () => {
  it('a case outside the draft is planned as outside, never skipped; the others are translated', () => {
    const plan = planCases(FILE.cases, describing(['0.1.0', '0.3.1']));
    expect(plan.map((p) => [p.case.id, p.outside !== undefined, p.skip])).toEqual([
      ['tools-presented', false, undefined],
      ['child-circle-from-parent', true, undefined],
      ['children-truncated', false, undefined],
    ]);
    expect(plan[1]!.outside).toContain('0.1.0');
    expect(plan[0]!.case.rules).toEqual(['LLM-4', 'IDENTITY-2']);
  });

  it('filter terms match the judged draft’s ids', () => {
    expect(planCases(FILE.cases, describing(['0.3.1']), ['LLM-4']).map((p) => p.case.id)).toEqual(['tools-presented']);
    expect(planCases(FILE.cases, describing(['0.3.1']), ['IDENTITY']).map((p) => p.case.id)).toEqual(['tools-presented']);
    expect(planCases(FILE.cases, describing(), ['CRYSTAL-4']).map((p) => p.case.id)).toEqual(['tools-presented']);
  });

  it('an explicit draft overrides the default', () => {
    const plan = planCases(FILE.cases, describing(['0.1.0', '0.3.1']), [], 'callback', '0.1.0');
    expect(plan.filter((p) => p.outside !== undefined)).toEqual([]);
  });
});

describe("the kit's own rule ids", () => {
  it('0.1.0 ids become the judged draft’s; ids without a counterpart there are dropped; others are kept', () => {
    expect(kitRulesIn(['CRYSTAL-4', 'CALL-2', 'LOOP-3'], '0.3.1')).toEqual(['LLM-4', 'IDENTITY-2', 'LOOP-3']);
    expect(kitRulesIn(['CIRCLE-9'], '0.3.1')).toEqual(['MEDIUM-3']);
    expect(kitRulesIn(['CANTRIP-3', 'LOOP-1'], '0.2.0')).toEqual(['LOOP-1']);
    expect(kitRulesIn(['LLM-4'], '0.3.1')).toEqual(['LLM-4']);
    expect(kitRulesIn(['CRYSTAL-4'], '0.1.0')).toEqual(['CRYSTAL-4']);
  });

  it("one map for every id: another draft's id is read in the draft that has it; a removed rule has none", () => {
    expect([ruleIdAt('CALL-4', '0.3.1'), ruleIdAt('LLM-4', '0.1.0'), ruleIdAt('IDENTITY-2', '0.1.0'), ruleIdAt('CANTRIP-3', '0.3.1'), ruleIdAt('NOT-1', '0.3.1')]).toEqual(['IDENTITY-4', 'CRYSTAL-4', 'CALL-2', undefined, 'NOT-1']);
    // A case written in 0.3.1's ids, judged at 0.1.0.
    expect(ruleIdAt('LLM-4', '0.1.0', '0.3.1')).toBe('CRYSTAL-4');
  });

  it("prose names rules in the judged draft's ids; a removed rule keeps its id with the draft that has it; other words are left alone", () => {
    expect(ruleIdsInTextAt("whether a root is a call turn is CALL-4's business (UTF-8, LOOP-3)", '0.3.1')).toBe("whether a root is a call turn is IDENTITY-4's business (UTF-8, LOOP-3)");
    expect(ruleIdsInTextAt('CANTRIP-3 and LLM-4', '0.3.1')).toBe('CANTRIP-3 of 0.1.0 and LLM-4');
    expect(ruleIdsInTextAt('LLM-4 of a later draft', '0.1.0')).toBe('CRYSTAL-4 of a later draft');
  });
});

/**
 * A case's level follows the judged draft, per expectation (issue 29, item 4). One case may check rules
 * of different levels, or a weaker part of one rule: LLM-5's emulation of forced tool use is a MUST at
 * 0.1.0 (CRYSTAL-5) and only a SHOULD from 0.2.0; COMP-9 is MUST at 0.1.0 and SHOULD later; LOOM-12 is a
 * SHOULD checked inside MUST cases. Each expectation's failure counts at the level its rule (or the part
 * the case file names with `level:`) has in the judged draft, and a failing case counts at the strongest
 * level among what failed. Before, `crystal1-simulated-forcing-leaves-no-trace-on-the-next-cast` failed
 * MUST (under LLM-1, which held) at 0.3.1 for an implementation that ends a forced text reply with an error
 * instead of asking again, which 0.3.1 allows.
 */
import { describe, expect, it, beforeAll } from 'vitest';
import { join } from 'node:path';
import { conformantVariant } from '../../fixtures/miniatures/miniature.ts';
import { loadCaseFile, loadCaseText, PACKAGE_ROOT } from '../case-file/index.ts';
import type { CaseFile } from '../case-file/types.ts';
import { problemsOf } from '../testing/case-file-refusals.ts';
import { caseForDraft } from '../plan/index.ts';
import { bridged } from '../properties/test-adapters.ts';
import { hangBound } from '../testing/hang-bound.ts';
import { failingLevel, runSuite } from './run.ts';

const FORCING = 'crystal1-simulated-forcing-leaves-no-trace-on-the-next-cast';

/**
 * The variant behind a bridge that turns a text-only reply to a request with `tool_choice: required` into
 * a crystal error: an implementation that ends such a query with an error instead of asking again.
 */
const endsForcedTextWithAnError = bridged(() => ({
  reply: (_crystal, reply, request) =>
    reply.ok && request.tool_choice === 'required' && (reply.response.tool_calls ?? []).length === 0 ? { ok: false, error: { code: 'invalid_crystal_response', message: 'no gate call under tool_choice required' } } : reply,
}))(() => conformantVariant());

describe('the level of each expectation in the judged draft', () => {
  let file: CaseFile;
  beforeAll(() => {
    file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
  });
  const levelsAt = (id: string, draft: string) => caseForDraft(file.cases.find((c) => c.id === id)!, draft)!.expect.map((e) => [e.rule, e.level]);

  it('a named part (LLM-5 emulation), a rule that moved (COMP-9) and a weaker rule (LOOM-12) count at their own level', () => {
    expect(levelsAt(FORCING, '0.1.0')).toEqual([['CRYSTAL-5', 'MUST'], ['CRYSTAL-1', 'MUST']]);
    expect(levelsAt(FORCING, '0.3.1')).toEqual([['LLM-5', 'SHOULD'], ['LLM-1', 'MUST']]);
    expect(levelsAt('comp9-parent-timeout-truncates-child', '0.3.1')).toEqual([['LOOP-4', 'MUST'], ['COMP-9', 'SHOULD'], ['COMP-9', 'SHOULD'], ['COMP-9', 'SHOULD']]);
    expect(levelsAt('comp9-parent-timeout-truncates-child', '0.1.0').map(([, l]) => l)).toEqual(['MUST', 'MUST', 'MUST', 'MUST']);
    expect(levelsAt('loom10-threads-of-two-casts-part-at-the-root', '0.3.1').at(-1)).toEqual(['LOOM-12', 'SHOULD']);
  });

  it('a failing case counts at the strongest level of what failed, never above its own', () => {
    expect(failingLevel('MUST', [{ level: 'SHOULD' }], [], '0.3.1')).toBe('SHOULD');
    expect(failingLevel('MUST', [{ level: 'SHOULD' }, {}], [], '0.3.1')).toBe('MUST');
    expect(failingLevel('SHOULD', [{ level: 'MUST' }], [], '0.3.1')).toBe('SHOULD');
    // A fault that names its rule is the failure: COMP-9 is SHOULD at 0.3.1, MUST at 0.1.0.
    expect(failingLevel('MUST', [{ level: 'MUST' }], [{ rules: ['COMP-9'] }], '0.3.1')).toBe('SHOULD');
    expect(failingLevel('MUST', [], [{ rules: ['COMP-9'] }], '0.1.0')).toBe('MUST');
    expect(failingLevel('MUST', [], [{}], '0.3.1')).toBe('MUST');
  });

  for (const [draft, level, rules] of [
    ['0.3.1', 'SHOULD', ['LLM-5']],
    ['0.1.0', 'MUST', ['CRYSTAL-5']],
  ] as const) {
    it(`ending a forced text reply with an error fails ${FORCING} at ${level} at ${draft}, under ${rules.join(', ')} only`, async () => {
      const suite = await runSuite(file, endsForcedTextWithAnError, { draft, filter: [FORCING] });
      expect(suite.cases.map((c) => [c.id, c.status, c.level, c.failed_rules])).toEqual([[FORCING, 'fail', level, rules]]);
    }, hangBound(60_000));
  }
});

describe('an expectation level is refused at file:line:col when', () => {
  const text = (rules: string, caseLevel: string, tail: string) => `format_version: 1
spec_version: 0.1.0-draft
cases:
  - id: one
    rules: [${rules}]
    level: ${caseLevel}
    description: d
    setup:
      crystal: parent
      call: {}
      circle: { medium: conversation, gates: [done], wards: { max_turns: 2 } }
    crystals:
      parent: { script: [{ content: hi }] }
    act:
      - cast: { intent: go, as: first }
    expect:
      - { path: outcomes.first.status, equals: terminated${tail} }
`;
  const pointers = (t: string) => [...new Set(problemsOf(t).map((p) => `${p.line} ${p.pointer}`))];

  it('it names no rule', () => {
    // The schema asks for `rule` beside a `level`.
    expect(pointers(text('LOOP-3', 'MUST', ', level: SHOULD'))).toEqual(['17 /cases/0/expect/0/rule']);
  });
  it('its rule states no such part in a draft (LOOP-3 is MUST only)', () => {
    expect(pointers(text('LOOP-3', 'MUST', ', rule: LOOP-3, level: SHOULD'))).toEqual(['17 /cases/0/expect/0/level']);
  });
  it('it is stronger than the case', () => {
    expect(pointers(text('CRYSTAL-5', '{ 0.1.0: MUST, 0.2.0: SHOULD, 0.3.1: SHOULD }', ', rule: CRYSTAL-5, level: MUST'))).toEqual(['17 /cases/0/expect/0/level']);
  });
  it('a draft is missing from its map; a full map loads', () => {
    expect(pointers(text('CRYSTAL-5', '{ 0.1.0: MUST, 0.2.0: MUST, 0.3.1: MUST }', ', rule: CRYSTAL-5, level: { 0.1.0: MUST, 0.2.0: SHOULD }'))).toEqual(['17 /cases/0/expect/0/level']);
    expect(loadCaseText(text('CRYSTAL-5', '{ 0.1.0: MUST, 0.2.0: MUST, 0.3.1: MUST }', ', rule: CRYSTAL-5, level: { 0.1.0: MUST, 0.2.0: SHOULD, 0.3.1: SHOULD }'), 'cases.yaml').cases[0]!.expect[0]!.level).toEqual({ '0.1.0': 'MUST', '0.2.0': 'SHOULD', '0.3.1': 'SHOULD' });
  });
});

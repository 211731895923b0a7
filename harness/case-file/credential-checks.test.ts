/**
 * Loading a gate built with a credential (feature gate-credentials, PROD-8): the feature is derived into
 * `requires`, `credential.found` is a path a case may read, and `{credential}` in a gate that has no
 * credential, or `credential` on a built-in gate, is refused at file:line:column.
 */
import { describe, it, expect } from 'vitest';
import { loadCaseText } from './load.ts';
import { mentionsCredential } from './credential-checks.ts';
import { problemsOf } from '../testing/case-file-refusals.ts';

const HEAD = 'format_version: 1\nspec_version: 0.1.0-draft\ncases:\n';
const CASE = `  - id: kept-out
    rules: [PROD-8]
    drafts: ['0.2.0', '0.3.1']
    rules_draft: '0.3.1'
    level: MUST
    description: d
    setup:
      crystal: parent
      call: {}
      circle:
        medium: conversation
        gates: [done, { name: billing, behaves_as: fail, error_message: "token {credential} refused", credential: true }]
        wards: { max_turns: 3 }
    crystals:
      parent:
        script:
          - tool_calls: [{ gate: billing, args: {} }]
          - tool_calls: [{ gate: done, args: { answer: x } }]
    act:
      - cast: { intent: go, as: first }
    expect:
      - { path: credential.found, length: 0 }
`;

describe('gate credentials in a case file (gate-credentials, PROD-8)', () => {
  it('a well-formed case loads, and requires gains gate-credentials without listing it', () => {
    const [loaded] = loadCaseText(HEAD + CASE, 'cases.yaml').cases;
    expect(loaded!.requires).toEqual(['gate-credentials']);
  });

  it('refuses {credential} in the reply of a gate built without one, at the key', () => {
    const problems = problemsOf(HEAD + CASE.replace(', credential: true }]', ' }]'));
    expect(problems.map((p) => [p.line, p.pointer])).toEqual([[15, '/cases/0/setup/circle/gates/1/error_message']]);
    expect(problems[0]!.message).toContain('credential: true');
  });

  it('refuses {credential} inside a fixed result of a gate built without one', () => {
    const fixed = CASE.replace('behaves_as: fail, error_message: "token {credential} refused", credential: true', 'behaves_as: fixed, result: { echoed: ["{credential}"] }');
    expect(problemsOf(HEAD + fixed).map((p) => p.pointer)).toEqual(['/cases/0/setup/circle/gates/1/result']);
  });

  it('refuses credential on a built-in gate (the schema allows it on test gates only)', () => {
    const problems = problemsOf(HEAD + CASE.replace('gates: [done,', 'gates: [{ name: done, credential: true },'));
    expect(problems.some((p) => p.pointer.startsWith('/cases/0/setup/circle/gates/0'))).toBe(true);
  });

  // Issue 30: a gate bound for children only (child_gates) is built with the run's credential as well.
  const CHILD_ONLY = CASE.replace('gates: [done, { name: billing, behaves_as: fail, error_message: "token {credential} refused", credential: true }]', 'gates: [done, { name: call_entity, child_gates: [{ name: billing, behaves_as: fail, error_message: "token {credential} refused", credential: true }] }]');

  it('a credentialed gate given only in child_gates derives gate-credentials too', () => {
    const [loaded] = loadCaseText(HEAD + CHILD_ONLY, 'cases.yaml').cases;
    expect(loaded!.requires).toEqual(expect.arrayContaining(['child-gates', 'gate-credentials']));
  });

  it('refuses {credential} in a child gate built without one, at the child gate\'s key', () => {
    expect(problemsOf(HEAD + CHILD_ONLY.replace(', credential: true }] }]', ' }] }]')).map((p) => p.pointer)).toEqual(['/cases/0/setup/circle/gates/1/child_gates/0/error_message']);
  });

  it('finds the placeholder at any depth, and only the placeholder', () => {
    expect([mentionsCredential({ a: [{ b: 'x {credential} y' }] }), mentionsCredential({ a: ['{credentials}'] }), mentionsCredential({ credential: 'x' }), mentionsCredential(7)]).toEqual([true, false, false, false]);
  });
});

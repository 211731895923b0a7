import { describe, it, expect } from 'vitest';
import { loadCaseText } from './load.ts';
import { problemsOf } from '../testing/case-file-refusals.ts';

const HEAD = 'format_version: 1\nspec_version: 0.1.0-draft\ncases:\n';

/** A case whose circle carries `circle` (YAML lines at 6 spaces) and which requires `requires`. */
const caseWith = (requires: string, circle: string) => `  - id: one
    rules: [CIRCLE-6]
    level: MUST
    requires: ${requires}
    description: d
    setup:
      crystal: parent
      call: {}
      circle:
        medium: conversation
        gates: [done, echo]
        wards: { max_turns: 2 }
${circle}
    crystals:
      parent: { script: [{ content: hi }] }
    act:
      - cast: { intent: go, as: first }
    expect:
      - { path: outcomes.first.status, equals: terminated }
`;

const deny = '        verifiers: [{ name: no-echo, kind: allow_deny, deny: [echo] }]';

describe('lineage wards in a case file (verifier-wards, child-circle-wards)', () => {
  it('a case with verifiers and the feature in requires loads, and its circle carries them', () => {
    const file = loadCaseText(HEAD + caseWith('[verifier-wards]', deny), 'cases.yaml');
    expect(file.cases[0]?.setup.circle?.verifiers).toEqual([{ name: 'no-echo', kind: 'allow_deny', deny: ['echo'] }]);
  });

  it('verifiers without verifier-wards in requires are refused at the key, with file, line and column', () => {
    const problems = problemsOf(HEAD + caseWith('[]', deny));
    expect(problems).toContainEqual(expect.objectContaining({ file: 'cases.yaml', line: 16, column: 20, pointer: '/cases/0/setup/circle/verifiers' }));
  });

  it('child_limits without child-circle-wards in requires are refused', () => {
    const problems = problemsOf(HEAD + caseWith('[composition]', '        child_limits: { deny_gates: [echo] }'));
    expect(problems.map((p) => p.pointer)).toContain('/cases/0/setup/circle/child_limits');
  });

  it('two verifiers of one name, a schema verifier on a gate the circle lacks, and a schema that does not compile are refused', () => {
    const verifiers = [
      '        verifiers:',
      '          - { name: twice, kind: allow_deny, deny: [echo] }',
      '          - { name: twice, kind: arguments_schema, gate: fetch, schema: { type: no-such-type } }',
    ].join('\n');
    const pointers = problemsOf(HEAD + caseWith('[verifier-wards]', verifiers)).map((p) => p.pointer);
    expect(pointers).toEqual(
      expect.arrayContaining(['/cases/0/setup/circle/verifiers/1/name', '/cases/0/setup/circle/verifiers/1/gate', '/cases/0/setup/circle/verifiers/1/schema']),
    );
  });

  it('a verifier of an unknown kind, or a table with neither list, is refused by the schema', () => {
    expect(problemsOf(HEAD + caseWith('[verifier-wards]', '        verifiers: [{ name: x, kind: sometimes, deny: [echo] }]')).length).toBeGreaterThan(0);
    expect(problemsOf(HEAD + caseWith('[verifier-wards]', '        verifiers: [{ name: x, kind: allow_deny }]')).length).toBeGreaterThan(0);
  });
});

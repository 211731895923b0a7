/**
 * `child_gates` (feature child-gates) is refused at load where it cannot mean anything: on a gate other
 * than call_entity / call_entity_batch, or holding a gate the harness does not own (harness/case-file/
 * child-gate-checks.ts), at the key's file:line:column. A well-formed one derives the feature.
 */
import { describe, it, expect } from 'vitest';
import { loadCaseText } from './load.ts';
import { problemsOf } from '../testing/case-file-refusals.ts';

const FILE = (gates: string) => `format_version: 1
spec_version: 0.1.0-draft
cases:
  - id: child-gates
    rules: [COMP-1]
    rules_draft: '0.3.1'
    drafts: ['0.2.0', '0.3.1']
    level: MAY
    description: a child asking for a gate bound for children
    setup:
      crystal: parent
      call: {}
      circle: { medium: conversation, gates: ${gates}, wards: { max_turns: 3 } }
    crystals:
      parent: { script: [] }
    act: []
    expect:
      - { path: requests.parent, absent: true }
`;

describe('child_gates at load (feature child-gates)', () => {
  it('on a delegation gate with test gates: loads, and the case requires composition and child-gates', () => {
    const file = loadCaseText(FILE('[done, { name: call_entity, child_gates: [counter, { name: lookup, behaves_as: fixed, result: 1 }] }]'));
    expect(file.cases[0]?.requires).toEqual(['composition', 'child-gates']);
  });

  it('on a gate that is not a delegation gate: refused at the key', () => {
    expect(problemsOf(FILE('[done, { name: echo, child_gates: [counter] }]'))).toContainEqual(expect.objectContaining({ line: 13, pointer: '/cases/0/setup/circle/gates/1/child_gates' }));
  });

  it('holding a built-in gate: refused at the entry', () => {
    expect(problemsOf(FILE('[done, { name: call_entity, child_gates: [counter, read] }]'))).toEqual([expect.objectContaining({ line: 13, pointer: '/cases/0/setup/circle/gates/1/child_gates/1' })]);
  });
});

/**
 * `whichever_medium` (docs/INTERPRETING.md, crystal steps): a step served as its code or its tool calls
 * by the medium the request shows needs both; one without either is refused where it stands.
 */
import { describe, it, expect } from 'vitest';
import { loadCaseText } from './index.ts';
import { problemsOf } from '../testing/case-file-refusals.ts';

const file = (step: string) => `format_version: 1
spec_version: 0.1.0-draft
cases:
  - id: either-medium-child
    rules: [COMP-2]
    level: MUST
    requires: [composition]
    description: a child answering in whichever medium it has
    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done, call_entity], wards: { max_turns: 2 } } }
    crystals:
      parent:
        script:
          - tool_calls: [{ gate: call_entity, args: { intent: kid } }]
          - tool_calls: [{ gate: done, args: { answer: top } }]
        by_entity:
          child:
            script:
              - ${step}
    act: [{ cast: { intent: "delegate", as: first } }]
    expect:
      - { path: outcomes.first.result, equals: top }
`;

describe('whichever_medium steps', () => {
  it('a step with both its code and its tool calls loads', () => {
    const loaded = loadCaseText(file(`{ code: { javascript: "done('v');" }, tool_calls: [{ gate: done, args: { answer: v } }], whichever_medium: true }`), 'cases.yaml');
    expect(loaded.cases[0]?.crystals?.parent?.by_entity?.child?.script?.[0]?.whichever_medium).toBe(true);
  });

  it('a step missing its tool calls or its code is refused at the step', () => {
    for (const step of [`{ code: { javascript: "done('v');" }, whichever_medium: true }`, `{ tool_calls: [{ gate: done, args: { answer: v } }], whichever_medium: true }`]) {
      expect(problemsOf(file(step))).toContainEqual(expect.objectContaining({ file: 'cases.yaml', line: 18, pointer: '/cases/0/crystals/parent/by_entity/child/script/0' }));
    }
  });
});

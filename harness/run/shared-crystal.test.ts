/**
 * Issue 21, class 1, end to end: composition judged on an implementation whose children always use the
 * parent's crystal (the conformant variant offers no other), and a request that carries no entity's
 * intent reported under INTENT-2, the rule it breaks.
 */
import { describe, it, expect } from 'vitest';
import { Miniature } from '../../fixtures/miniatures/miniature.ts';
import { loadCaseText } from '../case-file/load.ts';
import { runSuite } from './run.ts';

const FILE = `format_version: 1
spec_version: 0.1.0-draft
cases:
  - id: child-on-the-shared-crystal
    rules: [COMP-2, COMP-4]
    level: MUST
    requires: [composition]
    description: a child on its parent's crystal is answered from its own lane's script
    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done, call_entity], wards: { max_turns: 3 } } }
    crystals:
      parent:
        script:
          - tool_calls: [{ gate: call_entity, args: { intent: "look it up", context: { key: 7 } } }]
          - tool_calls: [{ gate: done, args: { answer: ok } }]
        by_entity:
          child:
            script: [{ tool_calls: [{ gate: done, args: { answer: found } }] }]
    act: [{ cast: { intent: "Delegate", as: first } }]
    expect:
      - { path: "requests.child", length: 1 }
      - { path: "requests.parent", length: 2 }
      - { path: "requests.parent[1].messages[role=tool][0].content", contains: found }
`;
const file = loadCaseText(FILE, 'shared.yaml');

describe("children on their parent's crystal", () => {
  it("the variant (children always on the parent's crystal) runs and passes the case", async () => {
    const suite = await runSuite(file, () => new Miniature());
    expect(suite.cases[0]).toMatchObject({ status: 'pass', failed_rules: [] });
  });

  it('a child whose data comes before its intent is still answered from its lane, and fails INTENT-2 on its requests', async () => {
    const suite = await runSuite(file, () => new Miniature('child-data-before-intent'));
    const [result] = suite.cases;
    expect(result?.status).toBe('fail');
    expect(result?.failed_rules).toContain('INTENT-2');
    expect(result?.problems).toEqual([]);
  });

  it('a request whose user messages carry no intent the case knows cannot be placed: a failure under INTENT-2, saying what it carried', async () => {
    // The lane lists an intent no child is given, so the child's request carries none the harness knows.
    const unknown = loadCaseText(FILE.replace('          child:\n            script:', '          child:\n            intents: [something else]\n            script:'), 'shared.yaml');
    const suite = await runSuite(unknown, () => new Miniature());
    const [result] = suite.cases;
    expect(result?.status).toBe('fail');
    // The placement names INTENT-2; the case's own expectations on the child's requests fail downstream of it.
    expect(result?.failed_rules).toContain('INTENT-2');
    expect(result?.problems.join('\n')).toContain("shared crystal 'parent' carries no intent of the case's entities");
  });
});

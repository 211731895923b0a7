/**
 * Loading `snapshot_loom` on a crystal step (feature loom-during-cast, LOOM-1): the feature is derived
 * into `requires`, `snapshots.<name>` may name the step's snapshot, and a bad or reused name is refused
 * at the key's file:line:column.
 */
import { describe, it, expect } from 'vitest';
import { loadCaseText } from './load.ts';
import { problemsOf } from '../testing/case-file-refusals.ts';

const HEAD = 'format_version: 1\nspec_version: 0.1.0-draft\ncases:\n';
/** A valid case with a step snapshot in a script and one in a lane of a shared crystal; each test breaks one line. */
const CASE = `  - id: mid-cast-read
    rules: [LOOM-1]
    level: MUST
    description: d
    setup:
      crystal: parent
      call: {}
      circle: { medium: conversation, gates: [done, echo, call_entity], wards: { max_turns: 4 } }
    crystals:
      parent:
        script:
          - tool_calls: [{ gate: echo, args: { text: a } }]
          - snapshot_loom: mid
            tool_calls: [{ gate: call_entity, args: { intent: sub } }]
          - tool_calls: [{ gate: done, args: { answer: x } }]
        by_entity:
          child:
            by_intent:
              sub: [{ snapshot_loom: in_child, content: c }]
    act:
      - cast: { intent: go, as: first }
      - snapshot_loom: { as: after }
    expect:
      - { path: "snapshots.mid[role=crystal][0].id", same_as: "loom.cast(first)[0].id" }
      - { path: "snapshots.in_child", present: true }
`;

describe('snapshot_loom on a crystal step (loom-during-cast)', () => {
  it('a well-formed case loads, and requires gains loom-during-cast without listing it', () => {
    const [c] = loadCaseText(HEAD + CASE, 'cases.yaml').cases;
    expect(c?.requires).toContain('loom-during-cast');
    expect(c?.crystals?.parent?.script?.[1]?.snapshot_loom).toBe('mid');
    // A case without such a step is not asked for the feature.
    const [plain] = loadCaseText(HEAD + CASE.replace('          - snapshot_loom: mid\n            tool_calls', '          - tool_calls').replace('snapshot_loom: in_child, ', '').replace('      - { path: "snapshots.in_child", present: true }\n', '').replace('snapshots.mid[role=crystal][0].id', 'snapshots.after[role=crystal][0].id'), 'cases.yaml').cases;
    expect(plain?.requires ?? []).not.toContain('loom-during-cast');
  });

  it('a step snapshot named like an action is refused at its key', () => {
    const problems = problemsOf(HEAD + CASE.replace('snapshot_loom: mid', 'snapshot_loom: first'));
    expect(problems).toContainEqual(expect.objectContaining({ file: 'cases.yaml', line: 16, pointer: '/cases/0/crystals/parent/script/1/snapshot_loom' }));
    // `main`, the implicit construct, and an unnamed action's verb-and-count name are taken too.
    expect(problemsOf(HEAD + CASE.replace('snapshot_loom: mid', 'snapshot_loom: main'))).toContainEqual(expect.objectContaining({ pointer: '/cases/0/crystals/parent/script/1/snapshot_loom' }));
    expect(problemsOf(HEAD + CASE.replace('snapshot_loom: in_child', 'snapshot_loom: after'))).toContainEqual(
      expect.objectContaining({ line: 22, pointer: '/cases/0/crystals/parent/by_entity/child/by_intent/sub/0/snapshot_loom' }),
    );
  });

  it('two steps with one snapshot name are refused at the second', () => {
    const problems = problemsOf(HEAD + CASE.replace('snapshot_loom: in_child', 'snapshot_loom: mid').replace('      - { path: "snapshots.in_child", present: true }\n', ''));
    expect(problems).toEqual([expect.objectContaining({ line: 22, pointer: '/cases/0/crystals/parent/by_entity/child/by_intent/sub/0/snapshot_loom' })]);
  });

  it('a name that is not a plain name is refused by the schema at its key', () => {
    const problems = problemsOf(HEAD + CASE.replace('snapshot_loom: mid', 'snapshot_loom: "two words"'));
    expect(problems).toContainEqual(expect.objectContaining({ line: 16, pointer: '/cases/0/crystals/parent/script/1/snapshot_loom' }));
  });

  it('an expectation naming a snapshot no step or action takes is refused at its path', () => {
    const problems = problemsOf(HEAD + CASE.replace('"snapshots.in_child"', '"snapshots.in_chlid"'));
    expect(problems).toEqual([expect.objectContaining({ line: 28, pointer: '/cases/0/expect/1/path' })]);
  });
});

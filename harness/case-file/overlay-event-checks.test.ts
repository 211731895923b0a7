import { describe, it, expect } from 'vitest';
import { loadCaseText } from './load.ts';
import { problemsOf } from '../testing/case-file-refusals.ts';

const HEAD = 'format_version: 1\nspec_version: 0.1.0-draft\ncases:\n';
/** A valid overlay case; each test breaks one line of it. */
const CASE = `  - id: overlay-one
    rules: [CIRCLE-10]
    level: MUST
    requires: [overlay-file-gates]
    description: d
    setup:
      crystal: parent
      call: {}
      files: { "data/a.txt": "a" }
      circle: { medium: conversation, gates: [done, { name: write, root: data, overlay: true }], wards: { max_turns: 2 } }
    crystals:
      parent: { script: [{ content: hi }] }
    act:
      - cast: { intent: go, as: first }
      - overlay: { entity: first, decision: accept, as: accepted }
    expect:
      - { path: "files[path=data/a.txt][0].content", equals: a }
`;

describe('loading the overlay and bounded-event vocabulary', () => {
  it('a well-formed overlay case loads: write gate, overlay action, files path', () => {
    const [c] = loadCaseText(HEAD + CASE, 'cases.yaml').cases;
    expect(c?.act[1]).toEqual({ overlay: { entity: 'first', decision: 'accept', as: 'accepted' } });
  });

  it('an overlay gate without the feature in requires is refused at its line', () => {
    const problems = problemsOf(HEAD + CASE.replace('    requires: [overlay-file-gates]\n', ''));
    expect(problems).toContainEqual(expect.objectContaining({ file: 'cases.yaml', line: 12, pointer: '/cases/0/setup/circle/gates/1/overlay' }));
    expect(problems).toContainEqual(expect.objectContaining({ line: 17, pointer: '/cases/0/act/1/overlay' }));
  });

  it('an overlay gate without setup.files is refused: an accepted overlay must land in the case directory', () => {
    const problems = problemsOf(HEAD + CASE.replace('      files: { "data/a.txt": "a" }\n', ''));
    expect(problems).toContainEqual(expect.objectContaining({ pointer: '/cases/0/setup/circle/gates/1/root' }));
  });

  it('write without overlay: true, and overlay on a gate that is not a file gate, are refused by the schema', () => {
    expect(problemsOf(HEAD + CASE.replace('{ name: write, root: data, overlay: true }', '{ name: write, root: data }')).length).toBeGreaterThan(0);
    expect(problemsOf(HEAD + CASE.replace('gates: [done, {', 'gates: [{ name: done, overlay: true }, {')).length).toBeGreaterThan(0);
  });

  it('an unknown decision and an entity that names no earlier action are refused', () => {
    expect(problemsOf(HEAD + CASE.replace('decision: accept', 'decision: merge'))).toContainEqual(expect.objectContaining({ line: 18, pointer: '/cases/0/act/1/overlay/decision' }));
    expect(problemsOf(HEAD + CASE.replace('overlay: { entity: first', 'overlay: { entity: nobody'))).toContainEqual(
      expect.objectContaining({ pointer: '/cases/0/act/1/overlay/entity' }),
    );
  });

  it('event_buffer and consumer need bounded-events in requires; a consumer is either stall or delay_ms', () => {
    const events = CASE.replace('      files: { "data/a.txt": "a" }\n', '      files: { "data/a.txt": "a" }\n      event_buffer: 2\n      consumer: { stall: true }\n');
    const problems = problemsOf(HEAD + events);
    expect(problems).toContainEqual(expect.objectContaining({ pointer: '/cases/0/setup/event_buffer' }));
    expect(problems).toContainEqual(expect.objectContaining({ pointer: '/cases/0/setup/consumer' }));
    const both = events.replace('requires: [overlay-file-gates]', 'requires: [overlay-file-gates, bounded-events]');
    expect(loadCaseText(HEAD + both, 'cases.yaml').cases[0]?.setup.consumer).toEqual({ stall: true });
    expect(problemsOf(HEAD + both.replace('{ stall: true }', '{ stall: true, delay_ms: 5 }')).length).toBeGreaterThan(0);
  });
});

import { describe, it, expect } from 'vitest';
import { join } from 'node:path';
import { CaseFileError, loadCaseFile, loadCaseText } from './load.ts';
import { PACKAGE_ROOT } from '../cli/main.ts';
import { problemsOf } from '../testing/case-file-refusals.ts';

const HEAD = 'format_version: 1\nspec_version: 0.1.0-draft\ncases:\n';
const CASE = `  - id: one
    rules: [LOOP-3]
    level: MUST
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
      - { path: outcomes.first.status, equals: terminated }
`;

describe('loading tests.yaml', () => {
  it('the shipped tests.yaml loads and every case has an expectation', () => {
    const file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
    expect(file.cases.length).toBeGreaterThanOrEqual(25);
    expect(file.cases.every((c) => c.expect.length > 0)).toBe(true);
    expect(new Set(file.cases.map((c) => c.id)).size).toBe(file.cases.length);
  });

  it('a well-formed file loads with the position of each case', () => {
    const file = loadCaseText(HEAD + CASE, 'cases.yaml');
    expect(file.cases[0]?.position).toEqual({ file: 'cases.yaml', line: 4, column: 5 });
  });

  it('a misspelled key is reported with file, line and column', () => {
    const problems = problemsOf(HEAD + CASE.replace('    description: d', '    descripton: d'));
    expect(problems).toContainEqual(expect.objectContaining({ file: 'cases.yaml', line: 7, column: 5, pointer: '/cases/0/descripton' }));
  });

  it('a misspelled matcher inside a flow mapping points at the key', () => {
    const problems = problemsOf(HEAD + CASE.replace('equals: terminated', 'equal: terminated'));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ line: 17, column: 40, pointer: '/cases/0/expect/0/equal' });
  });

  it('a value of the wrong type is reported at its line', () => {
    const problems = problemsOf(HEAD + CASE.replace('rules: [LOOP-3]', 'rules: LOOP-3'));
    expect(problems).toContainEqual(expect.objectContaining({ line: 5, column: 12, pointer: '/cases/0/rules' }));
  });

  it('a YAML syntax error is reported with line and column', () => {
    const problems = problemsOf(HEAD + CASE.replace('rules: [LOOP-3]', 'rules: [LOOP-3'));
    expect(problems[0]?.pointer).toBe('');
    expect(problems[0]?.line).toBeGreaterThanOrEqual(5);
    expect(problems[0]?.column).toBeGreaterThan(0);
  });

  it('an empty expect list is refused (every case must be able to fail)', () => {
    const problems = problemsOf(HEAD + CASE.replace(/    expect:\n.*\n$/, '    expect: []\n'));
    expect(problems).toContainEqual(expect.objectContaining({ pointer: '/cases/0/expect' }));
  });

  it('matches_code is no longer a matcher: the spec names no error codes to assert', () => {
    const problems = problemsOf(HEAD + CASE.replace('equals: terminated', 'matches_code: missing_intent'));
    expect(problems.length).toBeGreaterThan(0);
  });

  it('duplicate case ids are refused at the second one', () => {
    const problems = problemsOf(HEAD + CASE + CASE);
    expect(problems).toEqual([expect.objectContaining({ pointer: '/cases/1/id', line: 18, column: 9 })]);
  });

  it('an undeclared crystal, a bad path and an undefined name are each reported', () => {
    const text = HEAD + CASE.replace('crystal: parent\n', 'crystal: nobody\n').replace('path: outcomes.first.status', 'path: outcome.first').replace('as: first', 'as: first }\n      - send: { entity: ghost');
    const pointers = problemsOf(text).map((p) => p.pointer);
    expect(pointers).toEqual(expect.arrayContaining(['/cases/0/setup/crystal', '/cases/0/expect/0/path', '/cases/0/act/1/send/entity']));
  });

  it('a fork onto a crystal the case does not declare is reported at that key, with line and column', () => {
    const text = HEAD + CASE.replace('as: first }', 'as: first }\n      - fork: { from: { of: first, nth: 1 }, crystal: nobody, as: branch }');
    expect(problemsOf(text)).toEqual([expect.objectContaining({ pointer: '/cases/0/act/1/fork/crystal', line: 16, column: 55 })]);
  });

  describe('the vocabulary added for translated suites (issue 22)', () => {
    it('folding.after_turns loads with folding-turn-trigger in requires, and without it is refused at the key', () => {
      const withFold = CASE.replace('      call: {}\n', '      call: {}\n      folding: { after_turns: 3 }\n');
      expect(loadCaseText(HEAD + withFold.replace('    description: d', '    requires: [folding, folding-turn-trigger]\n    description: d'), 'cases.yaml').cases[0]?.setup.folding).toEqual({ after_turns: 3 });
      expect(problemsOf(HEAD + withFold)).toEqual([expect.objectContaining({ file: 'cases.yaml', pointer: '/cases/0/setup/folding/after_turns', line: 11, column: 31 })]);
      expect(problemsOf(HEAD + withFold.replace('after_turns: 3', 'after_turns: 0'))[0]).toMatchObject({ pointer: '/cases/0/setup/folding/after_turns', line: 11 });
    });

    it('a test gate with delay_ms loads (a slow fixed gate); delay_ms on done or above 2000 is refused at its line', () => {
      const slow = CASE.replace('gates: [done]', 'gates: [done, { name: lookup, behaves_as: fixed, result: 7, delay_ms: 300 }]');
      const gate = loadCaseText(HEAD + slow, 'cases.yaml').cases[0]?.setup.circle?.gates[1];
      expect(gate).toMatchObject({ behaves_as: 'fixed', result: 7, delay_ms: 300 });
      expect(problemsOf(HEAD + slow.replace('delay_ms: 300', 'delay_ms: 5000'))[0]).toMatchObject({ pointer: '/cases/0/setup/circle/gates/1/delay_ms', line: 11, column: 109 });
      expect(problemsOf(HEAD + CASE.replace('gates: [done]', 'gates: [{ name: done, delay_ms: 5 }]'))[0]).toMatchObject({ pointer: '/cases/0/setup/circle/gates/0/delay_ms', line: 11 });
    });

    it('a step that throws loads only in a case that names transports: [callback], and never beside a reply', () => {
      const throwing = CASE.replace('{ script: [{ content: hi }] }', '{ script: [{ throws: "client crashed" }] }');
      expect(loadCaseText(HEAD + throwing.replace('    description: d', '    transports: [callback]\n    description: d'), 'cases.yaml').cases[0]?.crystals?.parent?.script?.[0]).toEqual({ throws: 'client crashed' });
      expect(problemsOf(HEAD + throwing)).toEqual([expect.objectContaining({ pointer: '/cases/0/crystals/parent/script/0/throws', line: 13, column: 36 })]);
      const beside = problemsOf(HEAD + CASE.replace('{ content: hi }', '{ content: hi, throws: "x" }').replace('    description: d', '    transports: [callback]\n    description: d'));
      expect(beside[0]).toMatchObject({ pointer: '/cases/0/crystals/parent/script/0', line: 14 });
    });

    it('done with declared parameters loads with done-parameters in requires, and without it is refused at the key', () => {
      const declared = CASE.replace('gates: [done]', 'gates: [{ name: done, parameters: { type: object, properties: { answer: { type: integer } } } }]');
      const withFeature = declared.replace('    description: d', '    requires: [done-parameters]\n    description: d');
      expect(loadCaseText(HEAD + withFeature, 'cases.yaml').cases[0]?.setup.circle?.gates[0]).toMatchObject({ name: 'done', parameters: { type: 'object' } });
      expect(problemsOf(HEAD + declared)).toEqual([expect.objectContaining({ pointer: '/cases/0/setup/circle/gates/0/parameters', line: 11, column: 73 })]);
    });
  });

  it('each expectation of the shipped tests.yaml names the rule it checks, one of its case\'s rules', () => {
    const file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
    for (const c of file.cases.filter((x) => x.rules.length > 1)) for (const e of c.expect) expect(c.rules, c.id).toContain(e.rule);
  });

  it('in a case with several rules, an expectation without rule: is refused at its line and column', () => {
    const text = HEAD + CASE.replace('rules: [LOOP-3]', 'rules: [LOOP-3, CIRCLE-8]');
    expect(problemsOf(text)).toEqual([expect.objectContaining({ file: 'cases.yaml', pointer: '/cases/0/expect/0', line: 17, column: 9 })]);
    // Tagged, it loads; in a one-rule case the untagged expectation checks that rule.
    const tagged = loadCaseText(text.replace('equals: terminated }', 'equals: terminated, rule: CIRCLE-8 }'), 'cases.yaml');
    expect(tagged.cases[0]!.expect[0]!.rule).toBe('CIRCLE-8');
  });

  it('a rule: that is not one of the case\'s rules is refused at that key', () => {
    const problems = problemsOf(HEAD + CASE.replace('equals: terminated }', 'equals: terminated, rule: LOOP-4 }'));
    expect(problems).toEqual([expect.objectContaining({ pointer: '/cases/0/expect/0/rule', line: 17 })]);
  });

  it('rule: does not stand in for a matcher', () => {
    const problems = problemsOf(HEAD + CASE.replace('equals: terminated }', 'rule: LOOP-3 }'));
    expect(problems.length).toBeGreaterThan(0);
  });

  it('a format_version other than 1 is refused', () => {
    const problems = problemsOf(HEAD.replace('format_version: 1', 'format_version: 2') + CASE);
    expect(problems[0]?.pointer).toBe('/format_version');
  });

  it('a missing file is a CaseFileError naming the file', () => {
    expect(() => loadCaseFile('/nonexistent/tests.yaml')).toThrow(CaseFileError);
  });
});

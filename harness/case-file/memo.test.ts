import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { forgetLoad, memoPath, recallLoad } from './memo.ts';
import { loadCaseFile, loadCaseText, type CaseFileError } from './load.ts';

const caseFile = (answer: number, rule = 'LOOP-3'): string => `format_version: 1
spec_version: 0.1.0-draft
cases:
  - id: answers
    rules: [${rule}]
    level: MUST
    description: done ends the cast
    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done], wards: { max_turns: 3 } } }
    crystals:
      parent: { script: [{ tool_calls: [{ gate: done, args: { answer: ${answer} } }] }] }
    act: [{ cast: { intent: go, as: first } }]
    expect: [{ path: outcomes.first.result, equals: ${answer} }]

  - id: answers-again
    rules: [LOOP-3]
    level: MUST
    description: the same, further down
    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done], wards: { max_turns: 3 } } }
    crystals:
      parent: { script: [{ tool_calls: [{ gate: done, args: { answer: 2 } }] }] }
    act: [{ cast: { intent: go, as: first } }]
    expect: [{ path: outcomes.first.result, equals: 2 }]
`;

const made: string[] = [];
function writeCases(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'memo-test-')), 'cases.yaml');
  writeFileSync(file, text);
  made.push(file);
  return file;
}
afterEach(() => {
  for (const file of made.splice(0)) {
    forgetLoad(file);
    rmSync(dirname(file), { recursive: true, force: true });
  }
});

describe('the memo of loaded case files (harness/case-file/memo.ts)', () => {
  it('a second load comes from the memo and equals a full load, positions included', () => {
    const file = writeCases(caseFile(1));
    const first = loadCaseFile(file, 'cases.yaml');
    expect(recallLoad(file, readFileSync(file, 'utf8'))).toBeDefined();
    const second = loadCaseFile(file, 'cases.yaml');
    expect(second).toEqual(first);
    expect(second).toEqual(loadCaseText(caseFile(1), 'cases.yaml'));
    expect(second.cases.map((c) => c.position.line)).toEqual([4, 14]);
  });

  it('an edited file is loaded afresh, never from the memo of its old text', () => {
    const file = writeCases(caseFile(1));
    loadCaseFile(file);
    writeFileSync(file, caseFile(7));
    expect(loadCaseFile(file).cases[0]!.expect[0]!.equals).toBe(7);
  });

  it('a torn memo is a miss: the file loads the full way and the memo is written again', () => {
    const file = writeCases(caseFile(1));
    const first = loadCaseFile(file);
    const memo = memoPath(file);
    writeFileSync(memo, readFileSync(memo, 'utf8').slice(0, 100));
    expect(recallLoad(file, readFileSync(file, 'utf8'))).toBeUndefined();
    expect(loadCaseFile(file)).toEqual(first);
    expect(recallLoad(file, readFileSync(file, 'utf8'))).toBeDefined();
  });

  it('the cross-reference checks still run on a recalled value: a bad rule in the memo is caught at its line', () => {
    const file = writeCases(caseFile(1));
    loadCaseFile(file);
    // A memo that says the text holds an unknown rule (as if the catalog had changed since it was written).
    const memo = memoPath(file);
    writeFileSync(memo, readFileSync(memo, 'utf8').replace('"LOOP-3"', '"NOPE-1"'));
    expect(recallLoad(file, readFileSync(file, 'utf8'))).toBeDefined();
    // The recalled value fails a check, so the file is loaded the full way, and that (true) text is fine.
    expect(loadCaseFile(file).cases[0]!.rules).toEqual(['LOOP-3']);
    // A text with the bad rule itself is refused with its place, memo or not.
    const bad = writeCases(caseFile(1, 'NOPE-1'));
    for (let load = 0; load < 2; load++) {
      const problems = (() => {
        try {
          loadCaseFile(bad);
        } catch (error) {
          return (error as CaseFileError).problems;
        }
        throw new Error('the file loaded');
      })();
      expect(problems.map(({ line, pointer }) => ({ line, pointer }))).toEqual([{ line: 5, pointer: '/cases/0/rules/0' }]);
    }
  });

  it.runIf(process.getuid !== undefined)('a memo folder others can write to is not trusted', () => {
    const file = writeCases(caseFile(1));
    loadCaseFile(file);
    const folder = dirname(memoPath(file));
    chmodSync(folder, 0o777);
    try {
      expect(recallLoad(file, readFileSync(file, 'utf8'))).toBeUndefined();
    } finally {
      chmodSync(folder, 0o700);
    }
  });
});

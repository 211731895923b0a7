/**
 * Loading the production vocabulary of issue 30 (item 3): `setup.retry` derives feature retry-limit
 * (PROD-2), the actions `export_loom` and `logs` derive loom-export and log-output (PROD-8), their
 * results are paths a case may read (`exports.<as>`, `logs.<as>`), and a bad retry maximum or a
 * misnamed export is refused at file:line:column.
 */
import { describe, it, expect } from 'vitest';
import { loadCaseText } from './load.ts';
import { problemsOf } from '../testing/case-file-refusals.ts';

const HEAD = 'format_version: 1\nspec_version: 0.1.0-draft\ncases:\n';
const CASE = `  - id: configured
    rules: [PROD-2]
    drafts: ['0.2.0', '0.3.1']
    rules_draft: '0.3.1'
    level: SHOULD
    description: d
    setup:
      crystal: parent
      call: {}
      circle: { medium: conversation, gates: [done], wards: { max_turns: 3 } }
      retry: { max_retries: 1 }
    crystals:
      parent:
        script:
          - error: { status: 503 }
          - tool_calls: [{ gate: done, args: { answer: x } }]
    act:
      - cast: { intent: go, as: first }
      - export_loom: { as: exported }
      - logs: { as: logged }
    expect:
      - { path: requests.parent, length: { at_most: 2 } }
      - { path: exports.exported.text, type: string }
      - { path: logs.logged.text, type: string }
`;

describe('the production vocabulary in a case file (retry-limit, loom-export, log-output)', () => {
  it('a well-formed case loads, and requires gains each feature its setup and actions use', () => {
    const [loaded] = loadCaseText(HEAD + CASE, 'cases.yaml').cases;
    expect(loaded!.requires).toEqual(['retry-limit', 'loom-export', 'log-output']);
  });

  it('without the three, none is derived', () => {
    const plain = CASE.replace('      retry: { max_retries: 1 }\n', '').replace('      - export_loom: { as: exported }\n      - logs: { as: logged }\n', '').replace(/      - \{ path: (exports|logs)[^\n]*\n/g, '');
    expect(loadCaseText(HEAD + plain, 'cases.yaml').cases[0]!.requires ?? []).toEqual([]);
  });

  it('refuses a negative or fractional retry maximum at the key', () => {
    expect(problemsOf(HEAD + CASE.replace('max_retries: 1', 'max_retries: -1')).map((p) => [p.line, p.pointer])).toEqual([[14, '/cases/0/setup/retry/max_retries']]);
    expect(problemsOf(HEAD + CASE.replace('max_retries: 1', 'max_retries: 1.5')).map((p) => [p.line, p.pointer])).toEqual([[14, '/cases/0/setup/retry/max_retries']]);
  });

  it('refuses a retry with no maximum, and an unknown key of an export', () => {
    expect(problemsOf(HEAD + CASE.replace('retry: { max_retries: 1 }', 'retry: {}')).map((p) => p.pointer)).toEqual(['/cases/0/setup/retry/max_retries']);
    expect(problemsOf(HEAD + CASE.replace('export_loom: { as: exported }', 'export_loom: { as: exported, leaf: x }')).some((p) => p.line === 22)).toBe(true);
  });

  it('refuses a path into an export or log output no action made', () => {
    const problems = problemsOf(HEAD + CASE.replace('path: logs.logged.text', 'path: logs.nothing.text'));
    expect(problems.map((p) => [p.line, p.pointer])).toEqual([[27, '/cases/0/expect/2/path']]);
  });
});

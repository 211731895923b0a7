/**
 * docs/suite-power.md lists, per behaviour issue 22 found unwatched, the case that watches it, the defect
 * that proves the case can fail, the rule blamed and the test that asserts it. This keeps the table
 * honest: every case it names is in tests.yaml, every defect is defined in the fixture file it names and
 * exercised by the test file it names, and every rule is a rule of some registered draft's catalog (the
 * section on the rules new in 0.3.1 names them by that draft's IDs). The verdicts themselves are
 * asserted by those test files.
 */
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isRuleId } from '../../spec/catalog.ts';
import { catalogOf, draftVersions } from '../../spec/drafts.ts';
import { PACKAGE_ROOT } from '../case-file/package-root.ts';

/**
 * A test file's text with that of the harness/testing modules it imports: a test may keep its table of
 * defects and their rules there (miniatures.test.ts reads harness/testing/defect-rules.ts), and the row
 * still names the test that asserts it.
 */
function withTestingModules(test: string): string {
  const text = readFileSync(join(PACKAGE_ROOT, test), 'utf8');
  const imported = [...text.matchAll(/from '((?:\.\.\/)+testing\/[\w-]+\.ts)'/g)].map((m) => join(PACKAGE_ROOT, dirname(test), m[1]!));
  return [text, ...imported.map((file) => readFileSync(file, 'utf8'))].join('\n');
}

interface Row {
  cases: string[];
  defect: string;
  /** The function that plays the defect when it is a wrapper rather than a named defect of the fixture. */
  wrapper?: string;
  fixture: string;
  rule: string;
  tests: string[];
}

function rows(): Row[] {
  const text = readFileSync(join(PACKAGE_ROOT, 'docs/suite-power.md'), 'utf8');
  return text
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| behaviour') && !line.startsWith('| ---'))
    .map((line) => {
      const cells = line.split(' | ').map((c) => c.replace(/^\| |\s*\|$/g, ''));
      const [, caseCell, defectCell, rule, testCell] = cells;
      const fixture = /\(.*?([\w-]+\/[\w.-]+\.ts|[\w-]+\/)\)$/.exec(defectCell!)?.[1] ?? '';
      return {
        cases: [...caseCell!.matchAll(/`([a-z0-9-]+)`/g)].map((m) => m[1]!),
        defect: /^`([a-z0-9-]+)`/.exec(defectCell!)?.[1] ?? '',
        wrapper: /\(`(\w+)`,/.exec(defectCell!)?.[1],
        fixture,
        rule: rule!,
        tests: testCell!.split(', ').map((t) => t.trim()),
      };
    });
}

/** Rule IDs of every registered draft: the rows of the 0.3.1 section name that draft's rules. */
const laterDraftRules = new Set(draftVersions().flatMap((version) => catalogOf(version).rules.map((rule) => rule.id)));

describe('docs/suite-power.md (issue 22): each row points at things that exist', () => {
  const table = rows();
  const cases = readFileSync(join(PACKAGE_ROOT, 'tests.yaml'), 'utf8');

  it('has a row per behaviour', () => {
    expect(table.length).toBeGreaterThanOrEqual(24);
  });

  for (const row of table) {
    it(`${row.rule}: ${row.cases.join(', ') || row.defect || row.fixture}`, () => {
      for (const id of row.cases) expect(cases, id).toContain(`- id: ${id}\n`);
      for (const rule of row.rule.split(', ').filter((r) => r !== "each case's rule")) expect(isRuleId(rule) || laterDraftRules.has(rule), rule).toBe(true);
      expect(row.fixture, 'the fixture file').not.toBe('');
      if (row.defect !== '') {
        const fixture = readFileSync(join(PACKAGE_ROOT, 'fixtures', row.fixture), 'utf8');
        expect(fixture, `${row.wrapper ?? row.defect} in fixtures/${row.fixture}`).toContain(row.wrapper ? `function ${row.wrapper}(` : `'${row.defect}'`);
        for (const test of row.tests) expect(withTestingModules(test), `${row.defect} in ${test}`).toContain(row.defect);
      }
    });
  }
});

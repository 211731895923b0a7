/**
 * Every message exact (issue 32, item 6): each wrong message seen by the hostile-input survey, checked on
 * what it carries (exit code, position, pointer, the values it names), not on its wording.
 */
import { describe, it, expect } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CaseFileError, loadCaseText } from '../case-file/load.ts';
import { ImplementationProcess } from '../adapters/child-process.ts';
import { hangBound } from '../testing/hang-bound.ts';
import { main, PACKAGE_ROOT } from './main.ts';

function problemsOf(text: string): CaseFileError['problems'] {
  try {
    loadCaseText(text, 't.yaml');
  } catch (error) {
    if (error instanceof CaseFileError) return error.problems;
    throw error;
  }
  return [];
}

const oneCase = (level: string): string => `format_version: 1
spec_version: 0.1.0-draft
cases:
  - id: a
    rules: [LOOP-3]
    level: ${level}
    description: x
    setup: { crystal: p, call: {}, circle: { medium: conversation, gates: [done], wards: { max_turns: 3 } } }
    crystals: { p: { script: [{ tool_calls: [{ gate: done, args: { answer: 1 } }] }] } }
    act: [{ cast: { intent: go, as: first } }]
    expect: [{ path: outcomes.first.result, equals: 1 }]
`;

describe('case files', () => {
  it('level: MUSTARD is one problem at the level, naming the levels allowed', () => {
    const problems = problemsOf(oneCase('MUSTARD'));
    expect(problems.map((p) => [p.pointer, p.line])).toEqual([['/cases/0/level', 6]]);
    for (const level of ['"MUST"', '"SHOULD"', '"MAY"']) expect(problems[0]?.message).toContain(level);
  });

  it('an alias bomb is refused at the line and column of its first alias', () => {
    const lines = ['format_version: 1', 'spec_version: 0.1.0-draft', 'a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 0; i < 8; i++) {
      const [from, to] = [String.fromCharCode(97 + i), String.fromCharCode(98 + i)];
      lines.push(`${to}: &${to} [${Array.from({ length: 9 }, () => `*${from}`).join(',')}]`);
    }
    lines.push('cases: []');
    expect(problemsOf(lines.join('\n')).map((p) => [p.line, p.column])).toEqual([[4, 8]]);
  });

  it('an unknown tag is refused where it stands, not dropped', () => {
    expect(problemsOf('format_version: 1\nspec_version: !weird 0.1.0-draft\ncases: []\n').map((p) => [p.line, p.column])).toEqual([[2, 15]]);
  });
});

describe('the command line', () => {
  it('--timeout -5: exit 2, the message names the value given', async () => {
    const err: string[] = [];
    const code = await main(['run', '--adapter', 'reference', '--timeout', '-5'], { out: () => undefined, err: (l) => err.push(l), cwd: PACKAGE_ROOT });
    expect(code).toBe(2);
    expect(err.join('\n').split('\n')[0]).toContain("'-5'");
  });
});

describe('processes', () => {
  it('a working directory that does not exist is reported as such, not as the command missing', async () => {
    const missing = join(mkdtempSync(join(tmpdir(), 'cantrip-cwd-')), 'gone');
    const started = new ImplementationProcess({ command: process.execPath, args: ['-e', '0'] }, { cwd: missing });
    const info = await started.exited;
    expect(info.missingCwd).toBe(missing);
    expect((info.spawnError as NodeJS.ErrnoException | undefined)?.code).toBe('ENOENT');
  }, hangBound(20_000));
});

describe('declared drafts', () => {
  it('a draft the kit does not know, declared beside known ones, is noted on stderr (the run goes on at the newest known)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cantrip-drafts-'));
    const module = join(dir, 'adapter.ts');
    writeFileSync(
      module,
      `import { Miniature } from ${JSON.stringify(join(PACKAGE_ROOT, 'fixtures', 'miniatures', 'miniature.ts'))};\nexport function createAdapter() { return new Miniature(undefined, { drafts: ['0.1.0', '9.9.9'] as never }); }\n`,
    );
    const err: string[] = [];
    const out: string[] = [];
    const code = await main(['run', '--adapter', module, '--filter', 'LOOP-3', '--no-properties', '--no-out'], { out: (l) => out.push(l), err: (l) => err.push(l), cwd: PACKAGE_ROOT });
    expect(code).toBe(0);
    expect(err.filter((l) => l.includes('9.9.9'))).toHaveLength(1);
  }, hangBound(60_000));
});

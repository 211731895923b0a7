/**
 * Faults of the input found before any case runs (issue 23, item 8): a misspelt name in an expectation's
 * path is the case file's fault, refused when it loads with its file:line:column and exit 2, never a
 * verdict on the implementation.
 */
import { describe, it, expect } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main, PACKAGE_ROOT } from './main.ts';

const MINIATURE = join(PACKAGE_ROOT, 'fixtures', 'miniatures', 'miniature.ts');

/** A one-case file whose expectations use the given paths, one a line from line 18 on. */
function caseFile(paths: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'cantrip-expect-path-'));
  const file = join(dir, 'tests.yaml');
  writeFileSync(
    file,
    [
      'format_version: 1',
      'spec_version: 0.1.0-draft',
      'cases:',
      '  - id: done-ends-the-cast',
      '    rules: [LOOP-3]',
      '    level: MUST',
      '    description: a done call ends the cast',
      '    setup:',
      '      crystal: parent',
      '      call: {}',
      '      circle: { medium: conversation, gates: [done], wards: { max_turns: 3 } }',
      '    crystals:',
      '      parent:',
      '        script: [{ tool_calls: [{ gate: done, args: { answer: 1 } }] }]',
      '    act:',
      '      - cast: { intent: go, as: first }',
      '    expect:',
      ...paths.map((p) => `      - { path: ${p}, present: true }`),
      '',
    ].join('\n'),
  );
  return file;
}

async function run(file: string) {
  const err: string[] = [];
  const out: string[] = [];
  const code = await main(['run', '--adapter', MINIATURE, '--cases', file, '--no-out', '--no-properties', '--quiet'], { out: (l) => out.push(l), err: (l) => err.push(l), cwd: PACKAGE_ROOT });
  return { code, err: err.join('\n'), out: out.join('\n') };
}

describe('an expectation path that names nothing the case defines', () => {
  it('is refused when the file loads (exit 2), at the line and column of each bad path, before any case runs', async () => {
    const file = caseFile(['outcomes.first.status', 'outcome.first.status', 'outcomes.frist.status', 'requests.parnet', 'requests.parent']);
    const { code, err, out } = await run(file);
    expect(code).toBe(2);
    expect(out).toBe('');
    // Lines 19-21 hold the three bad paths; the path value starts at column 17 (`      - { path: `).
    for (const line of [19, 20, 21]) expect(err).toContain(`${file}:${line}:17`);
    for (const line of [18, 22]) expect(err).not.toContain(`${file}:${line}:`);
    for (const name of ['outcome', 'frist', 'parnet']) expect(err).toContain(name);
  });

  it('the same file with the names spelt right runs and passes', async () => {
    const { code } = await run(caseFile(['outcomes.first.status', 'requests.parent', 'outcomes.first.result']));
    expect(code).toBe(0);
  });
});

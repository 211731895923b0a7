/**
 * Messages meant for people (issue 23, item 6), checked by structure, not wording: no grouping
 * placeholder reaches an output, a length difference states its numbers and not the whole list, a
 * problem of a whole file has no made-up position, and a module that throws at load is named with the
 * error and where it was thrown.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_ROOT } from './main.ts';
import { hangBound } from '../testing/hang-bound.ts';
import { cli } from '../testing/run-cli.ts';

const BROKEN = join(PACKAGE_ROOT, 'fixtures', 'miniatures', 'ignores-done.ts');


/** The normaliser's placeholders as they appear in a cause key: a number as `#`, a name as `'…'` or `[#]`. */
const PLACEHOLDERS = /(?<=\s)#(?=[\s,;)]|$)|\[#\]|'…'|"…"|\(…\)/m;

describe('what a failing run prints and writes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cantrip-messages-'));
  let console = '';
  beforeAll(async () => {
    const run = await cli(['run', '--adapter', BROKEN, '--filter', 'LOOP-3', '--no-properties', '--quiet', '--out', dir]);
    expect(run.code).toBe(1);
    console = run.out;
  }, hangBound(120_000));

  it('no grouping placeholder in the console summary, report.md, summary.md or report.html', () => {
    for (const [name, text] of [['console', console], ...['report.md', 'summary.md', 'report.html'].map((f) => [f, readFileSync(join(dir, f), 'utf8')])] as const) {
      expect(text.match(PLACEHOLDERS)?.[0], name).toBeUndefined();
    }
  });

  it('a failed length check states the length found and the one expected, without the whole list as JSON', () => {
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as { cases: { id: string; failures: { path: string; matcher: string; expected: { length: number }; actual: unknown[] }[] }[] };
    const failed = report.cases.flatMap((c) => c.failures.filter((f) => f.matcher === 'length' && Array.isArray(f.actual)).map((f) => ({ c, f })));
    expect(failed.length).toBeGreaterThan(0);
    for (const { c, f } of failed) {
      const lines = console.split('\n');
      const at = lines.findIndex((l) => l.includes(` ${c.id} `));
      const line = lines.slice(at).find((l) => l.trim().startsWith(`${f.path}:`));
      expect(line, `${c.id} ${f.path}`).toBeDefined();
      expect(line).toMatch(new RegExp(`\\b${f.actual.length}\\b[^]*\\b${f.expected.length}\\b`));
      // Not the list itself: shorter than its JSON, and no request's messages array quoted.
      expect(line!.length).toBeLessThan(JSON.stringify(f.actual).length);
      expect(line).not.toContain('"messages":[');
    }
  });
});

describe('errors without a position, and a module that throws at load', () => {
  it('a case file that cannot be read is named without a :0:0 position (exit 2)', async () => {
    const missing = join(mkdtempSync(join(tmpdir(), 'cantrip-missing-')), 'tests.yaml');
    const { code, err } = await cli(['run', '--cases', missing, '--no-out']);
    expect(code).toBe(2);
    expect(err).toContain(missing);
    expect(err).not.toMatch(/:0:0\b/);
  });

  it('an adapter module that throws while loading: exit 2, naming the file, the error and the line it was thrown at', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cantrip-throws-'));
    const file = join(dir, 'adapter.mjs');
    writeFileSync(file, "const marker = 'init-marker-4711';\nthrow new RangeError(marker);\nexport function createAdapter() { return {}; }\n");
    const { code, err } = await cli(['run', '--adapter', file, '--no-out']);
    expect(code).toBe(2);
    expect(err).toContain(file);
    expect(err).toContain('RangeError');
    expect(err).toContain('init-marker-4711');
    expect(err).toContain(`${file}:2:`);
  });
});

describe('the first difference of an equals between long values', () => {
  it('names the path where they differ and both values there, however far into the value it is', async () => {
    const { expectationLine } = await import('../report/format.ts');
    const long = Array.from({ length: 40 }, (_, i) => ({ index: i, text: `item number ${i}` }));
    const changed = long.map((x) => (x.index === 37 ? { ...x, text: 'changed-4711' } : x));
    const line = expectationLine({ path: 'loom.turns', matcher: 'equals', ok: false, expected: { equals: long }, actual: changed }, 80);
    expect(line.startsWith('loom.turns[37].text:')).toBe(true);
    expect(line).toContain('changed-4711');
    expect(line).toContain('item number 37');
  });
});

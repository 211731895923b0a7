/**
 * `run --spec <version>` (issue 24): which draft a run judges, chosen on the command line; an unknown
 * draft or one the implementation does not declare is a usage error (exit 2); the console's first lines
 * name the draft judged.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { UsageError } from './arguments.ts';
import { main, PACKAGE_ROOT } from './main.ts';
import { parseRunOptions } from './run-options.ts';
import { hangBound } from '../testing/hang-bound.ts';

async function cli(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l), cwd: PACKAGE_ROOT });
  return { code, out, err: err.join('\n') };
}

/**
 * Two adapter modules: the reference declaring only 0.1.0 and 0.3.1 (it implements all three), and the
 * conformant miniature, which declares no draft (judged at 0.1.0 only).
 */
let declaring = '';
let undeclaring = '';
beforeAll(() => {
  const dir = mkdtempSync(join(tmpdir(), 'cantrip-spec-'));
  declaring = join(dir, 'declares-drafts.ts');
  undeclaring = join(dir, 'declares-none.ts');
  const reference = pathToFileURL(join(PACKAGE_ROOT, 'reference', 'adapter', 'index.ts')).href;
  const miniature = pathToFileURL(join(PACKAGE_ROOT, 'fixtures', 'miniatures', 'miniature.ts')).href;
  writeFileSync(
    declaring,
    `import { createReferenceAdapter } from ${JSON.stringify(reference)};
export function createAdapter() {
  const adapter = createReferenceAdapter();
  const own = adapter.describe.bind(adapter);
  adapter.describe = async () => ({ ...(await own()), drafts: ['0.1.0', '0.3.1'] });
  return adapter;
}
`,
  );
  writeFileSync(undeclaring, `import { Miniature } from ${JSON.stringify(miniature)};\nexport function createAdapter() {\n  return new Miniature();\n}\n`);
});

describe('--spec', () => {
  it('takes a registered version; anything else is a usage error naming the known drafts', () => {
    expect(parseRunOptions(['--spec', '0.3.1'], PACKAGE_ROOT).spec).toBe('0.3.1');
    expect(parseRunOptions([], PACKAGE_ROOT).spec).toBeUndefined();
    expect(() => parseRunOptions(['--spec', '0.3'], PACKAGE_ROOT)).toThrow(UsageError);
    expect(() => parseRunOptions(['--spec=1.0.0'], PACKAGE_ROOT)).toThrow(/0\.1\.0, 0\.2\.0, 0\.3\.1/);
  });

  it('an unknown draft exits 2 before anything runs', async () => {
    const { code, out } = await cli(['run', '--spec', '0.4.0', '--no-out', '--no-properties']);
    expect(code).toBe(2);
    expect(out).toEqual([]);
  });

  it('a draft the implementation does not declare exits 2 (the miniature declares none: 0.1.0 only)', async () => {
    const { code, out } = await cli(['run', '--adapter', undeclaring, '--spec', '0.3.1', '--filter', 'done-ends-cast-with-answer', '--no-out', '--no-properties', '-q']);
    expect(code).toBe(2);
    expect(out).toEqual([]);
  }, hangBound(60_000));

  it('a declared draft is judged, and the first line says which; without --spec, the newest declared', async () => {
    const asked = await cli(['run', '--adapter', declaring, '--spec', '0.1.0', '--filter', 'done-ends-cast-with-answer', '--no-out', '--no-properties', '-q']);
    expect(asked.code).toBe(0);
    expect(asked.out[0]).toMatch(/^spec draft 0\.1\.0 /);
    const newest = await cli(['run', '--adapter', declaring, '--filter', 'done-ends-cast-with-answer', '--no-out', '--no-properties', '-q']);
    expect(newest.code).toBe(0);
    expect(newest.out[0]).toMatch(/^spec draft 0\.3\.1 /);
  }, hangBound(120_000));

  it('--help lists it', async () => {
    expect((await cli(['run', '--help'])).out.join('\n')).toContain('--spec <version>');
  });
});

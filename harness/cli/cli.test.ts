import { describe, it, expect } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validate } from '../../schemas/loader.ts';
import { main, PACKAGE_ROOT } from './main.ts';
import { cli } from '../testing/run-cli.ts';

const MINIATURE = join(PACKAGE_ROOT, 'fixtures', 'miniatures', 'miniature.ts');
const BROKEN = join(PACKAGE_ROOT, 'fixtures', 'miniatures', 'ignores-done.ts');


describe('cantrip-conformance run', () => {
  it('exit 0 and a schema-valid report.json + report.md when every applicable MUST case passes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cantrip-cli-'));
    const { code, out } = await cli(['run', '--adapter', MINIATURE, '--out', dir]);
    expect(code).toBe(0);
    expect(out).toContain('MUST   PASS');
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as { cases: unknown[]; implementation: { name: string } };
    expect(validate('report', report)).toEqual({ ok: true });
    expect(report.implementation.name).toBe('miniature');
    expect(readFileSync(join(dir, 'report.md'), 'utf8')).toContain('## Verdict');
  });

  it('without --out the reports go to cantrip-report/ in the working directory; --no-out writes none', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'cantrip-default-out-'));
    const io = (out: string[]) => ({ out: (l: string) => out.push(l), err: () => undefined, cwd });
    const first: string[] = [];
    expect(await main(['run', '--adapter', MINIATURE, '--filter', 'LOOP-3', '--no-properties', '--quiet'], io(first))).toBe(0);
    expect(validate('report', JSON.parse(readFileSync(join(cwd, 'cantrip-report', 'report.json'), 'utf8')))).toEqual({ ok: true });
    expect(existsSync(join(cwd, 'cantrip-report', 'junit.xml'))).toBe(true);
    const quiet = mkdtempSync(join(tmpdir(), 'cantrip-no-out-'));
    const second: string[] = [];
    expect(await main(['run', '--adapter', MINIATURE, '--filter', 'LOOP-3', '--no-properties', '--quiet', '--no-out'], { ...io(second), cwd: quiet })).toBe(0);
    expect(existsSync(join(quiet, 'cantrip-report'))).toBe(false);
    expect(second.join('\n')).not.toContain('wrote ');
  });

  it('exit 1 when a MUST case fails, with the failing case and path in the summary', async () => {
    const { code, out } = await cli(['run', '--adapter', BROKEN, '--filter', 'LOOP-3']);
    expect(code).toBe(1);
    expect(out).toContain('FAIL done-ends-cast-with-answer');
    expect(out).toContain('outcomes.first.status');
  });

  it('listing the failing cases as expected failures turns the run green; a stale entry turns it red', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cantrip-xf-'));
    const list = join(dir, 'xfail.txt');
    writeFileSync(list, '# known\ndone-ends-cast-with-answer\n');
    expect((await cli(['run', '--adapter', BROKEN, '--filter', 'done-ends-cast-with-answer', '--expected-failures', list])).code).toBe(0);
    const stale = await cli(['run', '--adapter', MINIATURE, '--filter', 'done-ends-cast-with-answer', '--expected-failures', list]);
    expect(stale.code).toBe(1);
    expect(stale.out).toContain('STALE done-ends-cast-with-answer');
  });

  it('exit 2 for bad usage', async () => {
    expect((await cli([])).code).toBe(2);
    expect((await cli(['walk'])).code).toBe(2);
    expect((await cli(['run', '--colour', 'red'])).code).toBe(2);
    expect((await cli(['run', '--timeout', 'soon'])).code).toBe(2);
    expect((await cli(['run', '--jobs', '0'])).code).toBe(2);
  });

  it('exit 2, with file:line:column, for a case file that does not load', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cantrip-bad-'));
    const file = join(dir, 'tests.yaml');
    writeFileSync(file, 'format_version: 1\nspec_version: x\ncases:\n  - idd: a\n');
    const { code, err } = await cli(['run', '--adapter', MINIATURE, '--cases', file]);
    expect(code).toBe(2);
    expect(err).toContain(`${file}:4:5`);
  });

  it('exit 2 for an adapter module without createAdapter, or an unknown id in the expected-failures list', async () => {
    expect((await cli(['run', '--adapter', join(PACKAGE_ROOT, 'harness', 'equality.ts')])).code).toBe(2);
    const dir = mkdtempSync(join(tmpdir(), 'cantrip-xf2-'));
    writeFileSync(join(dir, 'x.txt'), 'no-such-case\n');
    expect((await cli(['run', '--adapter', MINIATURE, '--expected-failures', join(dir, 'x.txt')])).code).toBe(2);
    expect(existsSync(join(dir, 'report.json'))).toBe(false);
  });
});

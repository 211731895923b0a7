/**
 * No secret in a report (issue 32, item 4): an implementation that prints the crystal API key the kit made
 * up for the run and a secret of its environment on stderr, then crashes, has its stderr tail quoted in
 * every output; each output carries the tail with both secrets replaced, in every format.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { peerCaseFile } from '../adapters/peer-cases.ts';
import { hangBound } from '../testing/hang-bound.ts';
import { SCRUBBED } from '../values/index.ts';
import { main, PACKAGE_ROOT } from './main.ts';

const BROKEN = join(PACKAGE_ROOT, 'fixtures', 'adapters', 'broken-peer.mjs');
const CANARY = `canary-${randomBytes(12).toString('hex')}`;
const OUTPUTS = ['report.json', 'report.md', 'report.html', 'junit.xml'] as const;

const out = mkdtempSync(join(tmpdir(), 'cantrip-scrub-'));
const console: string[] = [];
let code: number;

beforeAll(async () => {
  process.env.CANARY_API_TOKEN = CANARY;
  const adapter = `cmd:${process.execPath} '${BROKEN}' --crystal-transports openai`;
  code = await main(['run', '--adapter', adapter, '--cases', peerCaseFile(['leak']), '--crystal-transport', 'openai', '--no-properties', '--out', out], {
    out: (l) => console.push(l),
    err: (l) => console.push(l),
    progressLine: (l) => console.push(l),
    cwd: PACKAGE_ROOT,
  });
}, hangBound(120_000));

afterAll(() => {
  delete process.env.CANARY_API_TOKEN;
});

describe('a crash whose stderr shows the kit-made API key and an environment secret', () => {
  it('errored the case and quoted the stderr line (the canary reached the report)', () => {
    expect(code).toBe(3);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as { cases: { status: string; reason?: string }[] };
    expect(report.cases[0]?.status).toBe('errored');
    expect(report.cases[0]?.reason).toContain(`my token is ${SCRUBBED}`);
    expect(report.cases[0]?.reason).toContain(`my keys are ${SCRUBBED}`);
  });

  it.each(OUTPUTS)('%s quotes the stderr with both secrets scrubbed', (file) => {
    const text = readFileSync(join(out, file), 'utf8');
    expect(text).toContain(SCRUBBED);
    expect(text).not.toContain(CANARY);
    // The kit's key has the prefix cck- (crystal-server/server.ts newApiKey); none may be left.
    expect(text).not.toMatch(/cck-[\w-]{20,}/);
  });

  it('summary.md and the console carry neither secret', () => {
    for (const text of [readFileSync(join(out, 'summary.md'), 'utf8'), console.join('\n')]) {
      expect(text).not.toContain(CANARY);
      expect(text).not.toMatch(/cck-[\w-]{20,}/);
    }
  });
});

/**
 * A request larger than the kit's crystal server reads (issue 32, items 1 and 6), through a whole run: an
 * implementation over stdio (fixtures/adapters/broken-peer.mjs, intent `oversized-request`) sends its
 * crystal one 33 MiB request over its wire transport. The server refuses it (HTTP 413), so the crystal
 * never saw it: the case is incomplete with the kit's bound named in its structured result
 * (`limits_reached`, kind `request_size`), not failed under its rules ("no crystal was queried").
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { peerCaseFile } from '../adapters/peer-cases.ts';
import type { KitLimitReached } from '../drive/index.ts';
import { INCOMPLETE_EXIT } from '../report/index.ts';
import { hangBound } from '../testing/hang-bound.ts';
import { main, PACKAGE_ROOT } from './main.ts';

const BROKEN = join(PACKAGE_ROOT, 'fixtures', 'adapters', 'broken-peer.mjs');
const out = mkdtempSync(join(tmpdir(), 'cantrip-413-'));
let code: number;

interface Reported {
  cases: { id: string; status: string; failed_rules: string[]; limits_reached?: KitLimitReached[] }[];
  rules: { id: string; status: string }[];
}

beforeAll(async () => {
  const adapter = `cmd:${process.execPath} '${BROKEN}' --crystal-transports openai`;
  code = await main(['run', '--adapter', adapter, '--cases', peerCaseFile(['oversized-request']), '--crystal-transport', 'openai', '--no-properties', '--out', out], {
    out: () => undefined,
    err: () => undefined,
    progressLine: () => undefined,
    cwd: PACKAGE_ROOT,
  });
}, hangBound(180_000));

describe('an implementation whose one crystal request is larger than the kit reads', () => {
  it('gets an incomplete case that names the bound (request_size, not judged), and no rule broken', () => {
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Reported;
    expect(report.cases).toHaveLength(1);
    const [c] = report.cases;
    expect(c?.status).toBe('errored');
    expect(c?.failed_rules).toEqual([]);
    expect(c?.limits_reached).toEqual([{ kind: 'request_size', bound: 32 * 1024 * 1024, seen: 1, judged: false, seqs: [0] }]);
    expect(report.rules.filter((r) => r.status === 'fail').map((r) => r.id)).toEqual([]);
    expect(code).toBe(INCOMPLETE_EXIT);
  });
});

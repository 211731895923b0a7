/**
 * Line framing (schemas/protocol/lines.ts): lines cut anywhere by the pipe come out whole, a line past
 * the limit is reported as such, and end to end a 50 MB line gets through while an endless one errors its
 * case with a reason that names the limit (not as silence). How fast framing is: bench/framing.bench.ts.
 */
import { describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { join } from 'node:path';
import { MAX_LINE_CHARS, readLines } from '../../schemas/protocol/lines.ts';
import { PACKAGE_ROOT } from '../cli/main.ts';
import { loadCaseFile } from '../case-file/load.ts';
import { runSuite } from '../run/run.ts';
import { commandAdapterFactory } from './jsonrpc-adapter.ts';
import { peerCaseFile } from './peer-cases.ts';
import { hangBound } from '../testing/hang-bound.ts';

const BROKEN = join(PACKAGE_ROOT, 'fixtures', 'adapters', 'broken-peer.mjs');

/** Feeds `chunks` to readLines and collects what it reports. */
async function framed(chunks: (string | Buffer)[], maxChars?: number): Promise<{ lines: string[]; overflows: number[] }> {
  const stream = new PassThrough();
  const lines: string[] = [];
  const overflows: number[] = [];
  readLines(stream, (line) => lines.push(line), (chars) => overflows.push(chars), maxChars);
  for (const chunk of chunks) stream.write(chunk);
  stream.end();
  await new Promise((resolve) => stream.on('end', resolve));
  return { lines, overflows };
}

describe('line framing', () => {
  it('PROD-1: lines split across chunks, several in one chunk, CRLF and empty lines come out whole; a torn last line is dropped', async () => {
    const { lines, overflows } = await framed(['{"a"', ':1}\n{"b":2}\r', '\n\n{"c"', ':', '3}\n{"torn"']);
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '', '{"c":3}']);
    expect(overflows).toEqual([]);
  });

  it('PROD-1: a UTF-8 character cut between two chunks is decoded whole', async () => {
    const bytes = Buffer.from('{"é":"ü"}\n', 'utf8');
    const { lines } = await framed([bytes.subarray(0, 3), bytes.subarray(3)]);
    expect(lines).toEqual(['{"é":"ü"}']);
  });

  it('PROD-1: a line at the limit passes; one character more is reported once, with its length, and nothing after it', async () => {
    expect((await framed(['x'.repeat(10), '\n'], 10)).lines).toEqual(['x'.repeat(10)]);
    const over = await framed(['x'.repeat(6), 'x'.repeat(5), 'y\n{"after":1}\n'], 10);
    expect(over.overflows).toEqual([11]);
    expect(over.lines).toEqual([]);
  });

  it('PROD-1: the documented limit is 64 Mi characters', () => {
    expect(MAX_LINE_CHARS).toBe(64 * 1024 * 1024);
  });
});

describe('long lines from an implementation', () => {
  it('PROD-1: a 50 MB answer is one line that is framed and judged; a line past the limit errors its case naming the limit', async () => {
    // The bounds are roomy on purpose: this checks what happens, not how fast (bench/framing.bench.ts).
    const factory = commandAdapterFactory({ command: process.execPath, args: [BROKEN] }, { silenceMs: 60_000 });
    const suite = await runSuite(loadCaseFile(peerCaseFile(['huge-line', 'endless-line', 'ok'])), factory, { timeoutMs: 60_000 });
    const [huge, endless, after] = suite.cases;
    expect({ status: huge?.status, reason: huge?.reason }).toEqual({ status: 'pass', reason: undefined });
    expect(endless?.status).toBe('errored');
    expect(endless?.reason).toContain(`a line longer than the protocol allows`);
    expect(endless?.reason).toContain(`the limit is ${MAX_LINE_CHARS}`);
    expect(endless?.reason).not.toContain('sent nothing');
    expect(after?.status).toBe('pass');
  }, hangBound(120_000));
});

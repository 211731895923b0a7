/**
 * The case-file size limit: a file over it is refused at once, at file level, before it is read or
 * parsed; one at the limit is parsed as usual.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CaseFileError, loadCaseFile, loadCaseText, MAX_CASE_FILE_BYTES } from './load.ts';

/** A YAML comment padding a file to exactly `bytes` bytes (the content after it is never reached if too big). */
const padded = (bytes: number, head = 'format_version: 1\n'): string => `${head}#${'x'.repeat(bytes - head.length - 2)}\n`;

function problemsOf(load: () => unknown): CaseFileError['problems'] {
  try {
    load();
  } catch (error) {
    if (error instanceof CaseFileError) return error.problems;
    throw error;
  }
  throw new Error('it loaded');
}

describe('case file size limit', () => {
  it('a 20 MB case file is refused at file level, with its size and the limit', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'cantrip-big-')), 'tests.yaml');
    writeFileSync(file, padded(20 * 1024 * 1024));
    expect(problemsOf(() => loadCaseFile(file, 'big.yaml'))).toEqual([
      { file: 'big.yaml', line: 0, column: 0, pointer: '', message: 'the file is 20.0 MiB; case files are limited to 4.0 MiB (split it into several files)' },
    ]);
  });

  it('text one byte over the limit is refused the same way; text at the limit is parsed (and judged on its content)', () => {
    expect(problemsOf(() => loadCaseText(padded(MAX_CASE_FILE_BYTES + 1), 'over.yaml'))[0]?.message).toContain('case files are limited to 4.0 MiB');
    const atLimit = problemsOf(() => loadCaseText(padded(MAX_CASE_FILE_BYTES), 'limit.yaml'));
    expect(atLimit[0]?.message).not.toContain('limited to');
  });
});

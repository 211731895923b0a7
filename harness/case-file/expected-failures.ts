/**
 * Reads an expected-failures list: one case id per line, `#` starts a comment. Listed cases that fail
 * are reported `xfail`; listed cases that pass are stale and fail the run (so the list cannot rot).
 */
import { readFileSync } from 'node:fs';

export function parseExpectedFailures(text: string, file = 'expected-failures'): Set<string> {
  const ids = new Set<string>();
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/#.*$/, '').trim();
    if (line === '') return;
    if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(line)) throw new Error(`${file}:${i + 1}:1: '${line}' is not a case id`);
    ids.add(line);
  });
  return ids;
}

export function loadExpectedFailures(file: string): Set<string> {
  return parseExpectedFailures(readFileSync(file, 'utf8'), file);
}

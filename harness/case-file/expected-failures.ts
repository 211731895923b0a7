/**
 * Reads an expected-failures list: one case id or property id per line, `#` starts a comment. Listed
 * cases and properties that fail are reported `xfail`; listed ones that pass are stale and fail the run
 * (so the list cannot rot). An id that names neither is refused with the line it is on.
 */
import { readFileSync } from 'node:fs';

/** A problem with the list itself (its syntax, or an id it names): the command exits 2. */
export class ExpectedFailuresError extends Error {
  override readonly name = 'ExpectedFailuresError';
}

/** The ids of a list, each with the line it is on (1-based). */
export interface ExpectedFailureList {
  file: string;
  /** Id → line. */
  lines: ReadonlyMap<string, number>;
  ids: ReadonlySet<string>;
}

export function parseExpectedFailureList(text: string, file = 'expected-failures'): ExpectedFailureList {
  const lines = new Map<string, number>();
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/#.*$/, '').trim();
    if (line === '') return;
    if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(line)) throw new ExpectedFailuresError(`${file}:${i + 1}:1: '${line}' is not a case or property id`);
    if (!lines.has(line)) lines.set(line, i + 1);
  });
  return { file, lines, ids: new Set(lines.keys()) };
}

/** The ids of a list (kept for callers that need only the set). */
export function parseExpectedFailures(text: string, file = 'expected-failures'): Set<string> {
  return new Set(parseExpectedFailureList(text, file).ids);
}

export function loadExpectedFailures(file: string): ExpectedFailureList {
  return parseExpectedFailureList(readFileSync(file, 'utf8'), file);
}

/**
 * Throws {@link ExpectedFailuresError} with `file:line:1` for each listed id that is neither a case of
 * the case file nor a property of the kit.
 */
export function checkExpectedFailureIds(list: ExpectedFailureList, caseIds: Iterable<string>, propertyIds: Iterable<string>): void {
  const known = new Set([...caseIds, ...propertyIds]);
  const unknown = [...list.lines].filter(([id]) => !known.has(id));
  if (unknown.length > 0) {
    throw new ExpectedFailuresError(unknown.map(([id, line]) => `${list.file}:${line}:1: '${id}' is neither a case id of the case file nor a property id`).join('\n'));
  }
}

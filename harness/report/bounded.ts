/**
 * What a report keeps of one case, bounded (issue 32, item 3): however much an implementation says
 * (a stderr tail, a 100,000-turn loom quoted in a failure, thousands of problems), each text, value and
 * list of a case result is cut at a fixed size and says so with "truncated after N", so report.json and
 * the files rendered from it stay readable and small whatever the implementation sends.
 */
import type { CaseResult } from '../run/index.ts';

/** Characters kept of one text (a reason, a problem, an invariant's detail). */
export const MAX_TEXT_CHARS = 8_000;
/** Characters kept of one value's JSON (a failed expectation's expected or actual). */
export const MAX_VALUE_CHARS = 4_000;
/** Entries kept of one list (problems, failed expectations, invariants). */
export const MAX_LIST_ITEMS = 200;

/** `text`, or its first {@link MAX_TEXT_CHARS} characters and a note saying how many there were. */
export function boundText(text: string, max = MAX_TEXT_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)} … [truncated after ${max} of ${text.length} characters]`;
}

/** `value`, or, when its JSON is longer than {@link MAX_VALUE_CHARS}, a text holding the start of that JSON and a note. */
export function boundValue(value: unknown, max = MAX_VALUE_CHARS): unknown {
  if (value === undefined || value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string') return boundText(value, max);
  const json = JSON.stringify(value);
  if (json === undefined || json.length <= max) return value;
  return `${json.slice(0, max)} … [truncated after ${max} of ${json.length} characters of JSON]`;
}

/** The first {@link MAX_LIST_ITEMS} of `items`, and how many were left out (0 when none). */
function boundList<T>(items: readonly T[]): { kept: T[]; left: number } {
  return { kept: items.slice(0, MAX_LIST_ITEMS), left: Math.max(0, items.length - MAX_LIST_ITEMS) };
}

/** A case result with every text, value and list bounded; lists cut short end with a note of how many were left out. */
export function boundCaseResult(c: CaseResult): CaseResult {
  const problems = boundList(c.problems);
  const failures = boundList(c.failures);
  const invariants = boundList(c.invariants);
  const notes = [
    ...(problems.left > 0 ? [`[truncated after ${MAX_LIST_ITEMS} problems: ${problems.left} more not kept]`] : []),
    ...(failures.left > 0 ? [`[truncated after ${MAX_LIST_ITEMS} failed expectations: ${failures.left} more not kept]`] : []),
    ...(invariants.left > 0 ? [`[truncated after ${MAX_LIST_ITEMS} invariants: ${invariants.left} more not kept]`] : []),
  ];
  return {
    ...c,
    ...(c.reason !== undefined && { reason: boundText(c.reason) }),
    problems: [...problems.kept.map((p) => boundText(p)), ...notes],
    failures: failures.kept.map((f) => ({
      ...f,
      expected: boundValue(f.expected),
      ...(f.actual !== undefined && { actual: boundValue(f.actual) }),
      ...(f.why !== undefined && { why: boundText(f.why) }),
    })),
    invariants: invariants.kept.map((i) => ({ ...i, ...(i.detail !== undefined && { detail: boundText(i.detail) }), ...(i.cause !== undefined && { cause: boundText(i.cause) }) })),
  };
}

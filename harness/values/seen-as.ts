/**
 * A value as the entity saw it. A gate's result reaches the entity's context as text (CIRCLE-4), and an
 * implementation may keep in its loom the value or the text it rendered (`"1"` for 1, `'["a","b"]'` for
 * a list): the spec's records show a result but no rule makes its stored form a MUST. Two values are
 * the same as seen when they are equal once every string that is JSON text is read as the value it
 * renders. Text that is not JSON stays text, so `"a"` and `"b"` still differ, and so do 1 and 2.
 */
import { deepEqual } from './equality.ts';

/** `value` with every string that parses as JSON replaced by what it parses to, at any depth. */
export function asSeen(value: unknown): unknown {
  if (typeof value === 'string') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      return value;
    }
    // A JSON string literal (`"\"a\""`) reads as a shorter string, so this ends.
    return asSeen(parsed);
  }
  if (Array.isArray(value)) return value.map(asSeen);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asSeen(v)]));
  return value;
}

/** Whether `actual` is `expected` or the text that renders it, as the entity would have seen either. */
export function sameAsSeen(actual: unknown, expected: unknown): boolean {
  return deepEqual(asSeen(actual), asSeen(expected));
}

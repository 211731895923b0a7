/**
 * The closed list of matchers an expectation may use (docs/INTERPRETING.md, "Matchers"). None accepts
 * everything: existence matchers assert existence, and array matchers fail on an empty array.
 */
import { validate, formatProblems } from '../../schemas/loader.ts';
import type { Matcher } from '../case-file/index.ts';
import { batchShows, deepEqual, isType, jsonType, like, sameAsSeen, type BatchExpectation } from '../values/index.ts';

export const MATCHER_NAMES = [
  'equals', 'seen_as', 'batch_results', 'not_equals', 'like', 'contains', 'not_contains', 'length', 'one_of', 'greater_than', 'less_than',
  'at_least', 'at_most', 'absent', 'present', 'type', 'same_as', 'every', 'unique', 'increasing',
  'schema', 'any_of', 'contains_text_at', 'holds', 'holds_value_at', 'some', 'none',
] as const;
export type MatcherName = (typeof MATCHER_NAMES)[number];

export type Verdict = { ok: true } | { ok: false; why: string; expected: unknown };

/** Looks a path up in the same run record, for `same_as`. */
export type Lookup = (path: string) => unknown;

const PASS: Verdict = { ok: true };

/** The single matcher key of a matcher object. */
export function matcherName(m: Matcher): MatcherName {
  const name = MATCHER_NAMES.find((n) => Object.hasOwn(m, n));
  if (!name) throw new Error(`no matcher in ${JSON.stringify(m)}`);
  return name;
}

/** Applies one matcher to `actual`. */
export function applyMatcher(m: Matcher, actual: unknown, lookup: Lookup): Verdict {
  const name = matcherName(m);
  const expected = (m as Record<string, unknown>)[name];
  const fail = (why: string, shown: unknown = expected): Verdict => ({ ok: false, why, expected: { [name]: shown } });
  if (name === 'any_of') return anyOf(expected as Alternative[], actual, lookup, fail);
  if (name !== 'absent' && actual === undefined) return fail('nothing at this path');
  switch (name) {
    case 'equals':
      return deepEqual(actual, expected) ? PASS : fail('values differ');
    // The value, or the text rendering it (harness/values/seen-as.ts): a loom may keep either.
    case 'seen_as':
      return sameAsSeen(actual, expected) ? PASS : fail('neither the value nor text rendering it');
    // A batch's results as a list or as text of the implementation's making (harness/values/batch-slots.ts).
    case 'batch_results': {
      const verdict = batchShows(actual, expected as BatchExpectation);
      return verdict.ok ? PASS : fail(verdict.why);
    }
    case 'not_equals':
      return deepEqual(actual, expected) ? fail('values are equal') : PASS;
    case 'like':
      return like(actual, expected) ? PASS : fail('does not match the pattern');
    case 'contains':
    case 'not_contains': {
      let found: boolean;
      if (typeof actual === 'string' && typeof expected === 'string') found = actual.includes(expected);
      else if (Array.isArray(actual)) found = actual.some((x) => like(x, expected));
      else return fail(`expected an array or a string, got ${jsonType(actual)}`);
      return found === (name === 'contains') ? PASS : fail(found ? 'an element matches' : 'no element matches');
    }
    case 'length': {
      if (typeof actual !== 'string' && !Array.isArray(actual)) return fail(`expected an array or a string, got ${jsonType(actual)}`);
      if (typeof expected === 'number') return actual.length === expected ? PASS : fail(`length ${actual.length}, expected ${expected}`);
      const [comparison, bound] = Object.entries(expected as Record<string, number>)[0] as [Comparison, number];
      return compare(comparison, actual.length, bound) ? PASS : fail(`length ${actual.length}, expected ${comparison.replace(/_/g, ' ')} ${bound}`);
    }
    case 'one_of':
      return (expected as unknown[]).some((v) => deepEqual(actual, v)) ? PASS : fail('equals none of the values');
    case 'greater_than':
    case 'less_than':
    case 'at_least':
    case 'at_most': {
      if (typeof actual !== 'number') return fail(`expected a number, got ${jsonType(actual)}`);
      return compare(name, actual, expected as number) ? PASS : fail('comparison does not hold');
    }
    case 'absent':
      return actual === undefined ? PASS : fail('a value is present');
    case 'present':
      return actual === null ? fail('the value is null') : PASS;
    case 'type':
      return isType(actual, expected as string) ? PASS : fail(`type is ${jsonType(actual)}`);
    case 'contains_text_at': {
      // A string containing the text found at another path, or an array with such a string.
      const text = lookup(expected as string);
      if (typeof text !== 'string') return fail(`no text at ${String(expected)}`);
      const found = typeof actual === 'string' ? actual.includes(text) : Array.isArray(actual) && actual.some((x) => typeof x === 'string' && x.includes(text));
      return found ? PASS : fail(`does not contain ${JSON.stringify(text)}`, text);
    }
    case 'holds':
      return holdsValue(actual, expected) ? PASS : fail('holds no such value under any key');
    case 'holds_value_at': {
      // A record the spec asks for without naming its field: any value inside, under any key, will do.
      const wanted = lookup(expected as string);
      if (wanted === undefined) return fail(`nothing at ${String(expected)}`);
      return holdsValue(actual, wanted) ? PASS : fail(`holds no value equal to ${JSON.stringify(wanted)}`, wanted);
    }
    case 'same_as': {
      const other = lookup(expected as string);
      if (other === undefined) return fail(`nothing at ${String(expected)}`);
      return deepEqual(actual, other) ? PASS : fail(`differs from ${String(expected)}`, other);
    }
    case 'every': {
      if (!Array.isArray(actual)) return fail(`expected an array, got ${jsonType(actual)}`);
      if (actual.length === 0) return fail('the array is empty');
      for (const [i, x] of actual.entries()) {
        const inner = applyMatcher(expected as Matcher, x, lookup);
        if (!inner.ok) return fail(`element [${i}]: ${inner.why}`);
      }
      return PASS;
    }
    case 'some':
    case 'none': {
      if (!Array.isArray(actual)) return fail(`expected an array, got ${jsonType(actual)}`);
      if (actual.length === 0) return fail('the array is empty');
      const hit = actual.findIndex((x) => applyMatcher(expected as Matcher, x, lookup).ok);
      if (name === 'some') return hit >= 0 ? PASS : fail('no element satisfies the matcher');
      return hit < 0 ? PASS : fail(`element [${hit}] satisfies the matcher`);
    }
    case 'unique': {
      if (!Array.isArray(actual) || actual.length === 0) return fail('expected a non-empty array');
      const dup = actual.findIndex((x, i) => actual.findIndex((y) => deepEqual(x, y)) !== i);
      return dup < 0 ? PASS : fail(`element [${dup}] repeats an earlier one`);
    }
    case 'increasing': {
      if (!Array.isArray(actual) || actual.length === 0) return fail('expected a non-empty array');
      if (!actual.every((x) => typeof x === 'number')) return fail('not all elements are numbers');
      const bad = actual.findIndex((x, i) => i > 0 && !((x as number) > (actual[i - 1] as number)));
      return bad < 0 ? PASS : fail(`element [${bad}] does not rise`);
    }
    case 'schema': {
      const result = validate(expected as string, actual);
      return result.ok ? PASS : fail(`does not match schema:\n${formatProblems(result.problems)}`);
    }
  }
}

/** One alternative of `any_of`: a matcher, optionally with its own path. */
type Alternative = Matcher & { path?: string };

function anyOf(alternatives: Alternative[], actual: unknown, lookup: Lookup, fail: (why: string) => Verdict): Verdict {
  const whys: string[] = [];
  for (const { path, ...matcher } of alternatives) {
    const verdict = applyMatcher(matcher, path === undefined ? actual : lookup(path), lookup);
    if (verdict.ok) return PASS;
    whys.push(`${path ?? 'this path'}: ${verdict.why}`);
  }
  return fail(`no alternative holds (${whys.join('; ')})`);
}

type Comparison = 'greater_than' | 'less_than' | 'at_least' | 'at_most';

function compare(name: Comparison, a: number, b: number): boolean {
  if (name === 'greater_than') return a > b;
  if (name === 'less_than') return a < b;
  if (name === 'at_least') return a >= b;
  return a <= b;
}

/** Whether `value` is, or holds at any depth (object values, array elements), a value deep-equal to `wanted`. */
function holdsValue(value: unknown, wanted: unknown): boolean {
  if (deepEqual(value, wanted)) return true;
  if (Array.isArray(value)) return value.some((v) => holdsValue(v, wanted));
  if (value !== null && typeof value === 'object') return Object.values(value).some((v) => holdsValue(v, wanted));
  return false;
}

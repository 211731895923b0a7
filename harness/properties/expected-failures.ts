/**
 * Expected failures for properties, as for cases: a listed property that fails or errors is `xfail`, a
 * listed one that passes is stale (and fails the run); one cut off by a time limit or an interruption stays
 * errored, since it shows neither. Since the properties run on a fixed seed by
 * default, a listed failure stays a failure from one run to the next.
 */
import type { PropertyResult } from './run-properties.ts';

export function applyExpectedPropertyFailures(results: readonly PropertyResult[], expected: ReadonlySet<string> | undefined): PropertyResult[] {
  return results.map((result) => {
    if (!expected?.has(result.id)) return result;
    // A property cut off by a time limit or an interruption confirms nothing: it stays errored (incomplete).
    if (result.status === 'errored' && (result.timed_out === true || result.interrupted === true)) return result;
    if (result.status === 'fail' || result.status === 'errored') return { ...result, status: 'xfail' };
    if (result.status === 'pass') return { ...result, stale: true };
    return result;
  });
}

/**
 * Checks a case's own expectations against its run record. Each result carries the path, what was
 * expected and what was found, for the report.
 */
import type { Expectation, Matcher } from './case-types.ts';
import type { DriveResult } from './drive.ts';
import { applyMatcher, matcherName } from './matchers.ts';
import { parsePath, resolvePath, type HelperResolver } from './paths.ts';

export interface ExpectationResult {
  path: string;
  matcher: string;
  ok: boolean;
  expected: unknown;
  /** The value found (undefined when the path found nothing). */
  actual?: unknown;
  why?: string;
}

/**
 * The loom helpers of paths: `loom.entity(x)`, `loom.cast(x)`, `loom.appended(x)`. The first two give
 * the entity's own turns without its call turn: whether a call turn belongs to each entity or is shared
 * by the cantrip is the implementation's choice (CALL-4, LOOM-12), so no count or index may include it.
 */
export function loomHelpers(drive: DriveResult): HelperResolver {
  return (helper, arg) => {
    const turns = drive.record.loom.turns;
    if (helper === 'entity') {
      const id = drive.record.entities[arg];
      return id === undefined ? undefined : turns.filter((t) => t.entity_id === id && t.role !== 'call');
    }
    const trace = drive.actions.get(arg);
    if (!trace?.appended) return undefined;
    // Show each appended turn as the loom holds it now (a reward may have been set since).
    const current = new Map(turns.map((t) => [t.id, t]));
    const appended = trace.appended.map((t) => current.get(t.id) ?? t);
    if (helper === 'appended') return appended;
    return appended.filter((t) => t.entity_id === trace.entity && t.role !== 'call');
  };
}

/** Reads a path of the run record. */
export function lookup(drive: DriveResult, path: string): unknown {
  return resolvePath(drive.record, parsePath(path), loomHelpers(drive));
}

export function checkExpectations(expect: Expectation[], drive: DriveResult): ExpectationResult[] {
  return expect.map((e) => {
    const { path, ...rest } = e;
    const matcher = rest as Matcher;
    const actual = lookup(drive, path);
    const verdict = applyMatcher(matcher, actual, (p) => lookup(drive, p));
    const name = matcherName(matcher);
    const expected = { [name]: (matcher as Record<string, unknown>)[name] };
    return verdict.ok
      ? { path, matcher: name, ok: true, expected, actual }
      : { path, matcher: name, ok: false, expected: verdict.expected, actual, why: verdict.why };
  });
}

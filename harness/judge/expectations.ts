/**
 * Checks a case's own expectations against its run record. Each result carries the path, what was
 * expected and what was found, for the report.
 */
import type { Turn } from '../../schemas/records.ts';
import type { Expectation, Matcher } from '../case-file/index.ts';
import type { DriveResult } from '../drive/index.ts';
import { applyMatcher, matcherName } from './matchers.ts';
import { parsePath } from '../case-file/index.ts';
import { resolvePath, type HelperResolver } from './paths.ts';
import { asSeen } from '../values/index.ts';

export interface ExpectationResult {
  path: string;
  matcher: string;
  ok: boolean;
  expected: unknown;
  /** The value found (undefined when the path found nothing). */
  actual?: unknown;
  why?: string;
  /** The rule the expectation checks (its `rule`, or the case's only rule); absent when the case names none. */
  rule?: string;
  /** The level a failure of it counts at in the judged draft; absent: the case's level. */
  level?: 'MUST' | 'SHOULD' | 'MAY';
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
    if (helper === 'spawned') return spawnedEntities(appended, trace.entity, turns);
    return appended.filter((t) => t.entity_id === trace.entity && t.role !== 'call');
  };
}

/** One entity an action's entity delegated to (directly or further down), as `loom.spawned(x)` shows it. */
export interface SpawnedEntity {
  entity_id: string;
  /** The nearest ancestor of its first turn that is not a call turn: the turn its subtree hangs from (COMP-5). */
  spawned_from: string | null;
  /** Its own turns, call turns left out (whether a child has its own call turn is open, CALL-4). */
  turns: Turn[];
}

/**
 * The entities other than the action's own that gained turns during it, in order of first appearance.
 * Children are found by the loom's structure, not by fields the spec does not define (the child's intent
 * is not a turn field), and a child's call turn, present or not, is looked through.
 */
function spawnedEntities(appended: Turn[], own: string | undefined, all: Turn[]): SpawnedEntity[] {
  const byId = new Map(all.map((t) => [t.id, t]));
  const order: string[] = [];
  const turnsOf = new Map<string, Turn[]>();
  for (const t of appended) {
    if (t.entity_id === null || t.entity_id === own || t.role === 'call') continue;
    if (!turnsOf.has(t.entity_id)) {
      order.push(t.entity_id);
      turnsOf.set(t.entity_id, []);
    }
    turnsOf.get(t.entity_id)?.push(t);
  }
  return order.map((entity) => {
    const turns = turnsOf.get(entity) ?? [];
    let at = turns[0]?.parent_id === null || turns[0] === undefined ? undefined : byId.get(turns[0].parent_id);
    while (at && at.role === 'call') at = at.parent_id === null ? undefined : byId.get(at.parent_id);
    return { entity_id: entity, spawned_from: at?.id ?? null, turns };
  });
}

/** Reads a path of the run record. */
export function lookup(drive: DriveResult, path: string): unknown {
  return resolvePath(drive.record, parsePath(path), loomHelpers(drive));
}

/** The rule an expectation checks: its own `rule`, else the case's rule when the case has exactly one. */
export function ruleOfExpectation(e: Expectation, caseRules: readonly string[]): string | undefined {
  return e.rule ?? (caseRules.length === 1 ? caseRules[0] : undefined);
}

/** Checks each expectation; `caseRules` (the case's rules) gives an untagged expectation of a one-rule case its rule. */
export function checkExpectations(expect: Expectation[], drive: DriveResult, caseRules: readonly string[] = []): ExpectationResult[] {
  return expect.map((e) => {
    const { path, rule: _tag, as_seen: asSeenFirst, level, ...rest } = e;
    const matcher = rest as Matcher;
    // `as_seen`: a stored gate result may be the text the entity was shown (harness/values/seen-as.ts).
    const actual = asSeenFirst === true ? asSeen(resolvePath(drive.record, parsePath(path), loomHelpers(drive), true)) : lookup(drive, path);
    const verdict = applyMatcher(matcher, actual, (p) => lookup(drive, p));
    const name = matcherName(matcher);
    const expected = { [name]: (matcher as Record<string, unknown>)[name] };
    const rule = ruleOfExpectation(e, caseRules);
    // The level its failure counts at: a planned case gives each expectation the judged draft's (one string).
    const tag = { ...(rule !== undefined && { rule }), ...(typeof level === 'string' && { level }) };
    return verdict.ok
      ? { path, matcher: name, ok: true, expected, actual, ...tag }
      : { path, matcher: name, ok: false, expected: verdict.expected, actual, why: verdict.why, ...tag };
  });
}

/**
 * Follows a path parsed by the case file (case-file/path-syntax.ts) through a run's record; judging
 * reads every expected value this way.
 */
import { asSeen, deepEqual } from '../values/index.ts';
import type { LoomHelper, Segment } from '../case-file/index.ts';

/** Resolves the helpers `loom.entity(x)` etc.; returns undefined when `x` names nothing. */
export type HelperResolver = (helper: LoomHelper, arg: string) => unknown[] | undefined;

/** Follows a parsed path through `root`; a step that finds nothing yields undefined. */
export function resolvePath(root: unknown, segments: Segment[], helpers: HelperResolver, asSeenOnTheWay = false): unknown {
  return walk(root, segments, 0, helpers, asSeenOnTheWay);
}

/**
 * `seen`: a string met before the path ends is read as the value it renders when it is JSON text
 * (an `as_seen` expectation stepping into a result kept as the text the entity was shown).
 */
function walk(value: unknown, segments: Segment[], i: number, helpers: HelperResolver, seen = false): unknown {
  const segment = segments[i];
  if (!segment) return value;
  if (seen && typeof value === 'string') value = asSeen(value);
  if (seen) return walkSeen(value, segment, segments, i, helpers);
  switch (segment.kind) {
    case 'helper':
      return walk(helpers(segment.name, segment.arg), segments, i + 1, helpers);
    case 'key': {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
      if (!Object.hasOwn(value, segment.name)) return undefined;
      return walk((value as Record<string, unknown>)[segment.name], segments, i + 1, helpers);
    }
    case 'index': {
      if (!Array.isArray(value)) return undefined;
      const at = segment.index < 0 ? value.length + segment.index : segment.index;
      return at >= 0 && at < value.length ? walk(value[at], segments, i + 1, helpers) : undefined;
    }
    case 'all':
      return Array.isArray(value) ? value.map((v) => walk(v, segments, i + 1, helpers)) : undefined;
    case 'filter': {
      if (!Array.isArray(value)) return undefined;
      const kept = value.filter(
        (v) => v !== null && typeof v === 'object' && deepEqual((v as Record<string, unknown>)[segment.field], segment.value),
      );
      return walk(kept, segments, i + 1, helpers);
    }
  }
}

/** One step of an `as_seen` walk: as {@link walk}, carrying the reading on. */
function walkSeen(value: unknown, segment: Segment, segments: Segment[], i: number, helpers: HelperResolver): unknown {
  const next = (v: unknown): unknown => walk(v, segments, i + 1, helpers, true);
  switch (segment.kind) {
    case 'helper':
      return next(helpers(segment.name, segment.arg));
    case 'key':
      if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.hasOwn(value, segment.name)) return undefined;
      return next((value as Record<string, unknown>)[segment.name]);
    case 'index': {
      if (!Array.isArray(value)) return undefined;
      const at = segment.index < 0 ? value.length + segment.index : segment.index;
      return at >= 0 && at < value.length ? next(value[at]) : undefined;
    }
    case 'all':
      return Array.isArray(value) ? value.map(next) : undefined;
    case 'filter':
      if (!Array.isArray(value)) return undefined;
      return next(value.filter((v) => v !== null && typeof v === 'object' && deepEqual((v as Record<string, unknown>)[segment.field], segment.value)));
  }
}

/**
 * Paths into the run record (docs/INTERPRETING.md, "Paths"): `a.b[0][-1][*][field=value]` and the loom
 * helpers `loom.entity(x)`, `loom.cast(x)`, `loom.appended(x)`, `loom.spawned(x)`. Parsing happens at load time so a bad
 * path is reported with its line, before anything runs.
 */
import { deepEqual } from '../values/equality.ts';

export type Segment =
  | { kind: 'key'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'all' }
  | { kind: 'filter'; field: string; value: unknown }
  | { kind: 'helper'; name: LoomHelper; arg: string };

export const RECORD_ROOTS = [
  'description', 'conventions', 'cantrips', 'outcomes', 'errors', 'failures', 'entities', 'forks', 'mutations', 'threads', 'snapshots',
  'requests', 'replies', 'after_outcome', 'wire_problems', 'wire_waits', 'concurrency', 'gates', 'gate_log', 'sleeps', 'events', 'backpressure', 'files', 'loom',
] as const;

export const LOOM_HELPERS = ['entity', 'cast', 'appended', 'spawned'] as const;
export type LoomHelper = (typeof LOOM_HELPERS)[number];

export class PathError extends Error {
  override readonly name = 'PathError';
}

const IDENT = /^[A-Za-z0-9_-]+/;

/** Parses a path; throws {@link PathError} saying what is wrong and where. */
export function parsePath(path: string): Segment[] {
  const segments: Segment[] = [];
  let rest = path;
  let first = true;
  while (rest.length > 0) {
    if (!first && rest.startsWith('.')) rest = rest.slice(1);
    else if (!first && !rest.startsWith('[')) throw new PathError(`path '${path}': expected '.' or '[' at '${rest}'`);
    first = false;
    if (rest.startsWith('[')) {
      const end = rest.indexOf(']');
      if (end < 0) throw new PathError(`path '${path}': '[' without ']'`);
      segments.push(bracket(path, rest.slice(1, end)));
      rest = rest.slice(end + 1);
      continue;
    }
    const ident = IDENT.exec(rest)?.[0];
    if (!ident) throw new PathError(`path '${path}': expected a name at '${rest}'`);
    rest = rest.slice(ident.length);
    if (rest.startsWith('(')) {
      const end = rest.indexOf(')');
      if (end < 0) throw new PathError(`path '${path}': '(' without ')'`);
      const arg = rest.slice(1, end);
      if (!(LOOM_HELPERS as readonly string[]).includes(ident)) {
        throw new PathError(`path '${path}': unknown helper '${ident}()' (known: ${LOOM_HELPERS.join(', ')})`);
      }
      if (!IDENT.test(arg)) throw new PathError(`path '${path}': helper '${ident}' needs a name`);
      segments.push({ kind: 'helper', name: ident as LoomHelper, arg });
      rest = rest.slice(end + 1);
    } else {
      segments.push({ kind: 'key', name: ident });
    }
  }
  checkShape(path, segments);
  return segments;
}

function bracket(path: string, inner: string): Segment {
  if (inner === '*') return { kind: 'all' };
  if (/^-?\d+$/.test(inner)) return { kind: 'index', index: Number(inner) };
  const eq = inner.indexOf('=');
  if (eq > 0) {
    const field = inner.slice(0, eq);
    const raw = inner.slice(eq + 1);
    if (!IDENT.test(field)) throw new PathError(`path '${path}': bad filter field '${field}'`);
    return { kind: 'filter', field, value: parseLiteral(raw) };
  }
  throw new PathError(`path '${path}': '[${inner}]' is not an index, [*] or [field=value]`);
}

function parseLiteral(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function checkShape(path: string, segments: Segment[]): void {
  const root = segments[0];
  if (!root || root.kind !== 'key' || !(RECORD_ROOTS as readonly string[]).includes(root.name)) {
    throw new PathError(`path '${path}': must start with one of ${RECORD_ROOTS.join(', ')}`);
  }
  segments.forEach((s, i) => {
    if (s.kind === 'helper' && !(i === 1 && root.name === 'loom')) {
      throw new PathError(`path '${path}': helper '${s.name}()' is only allowed right after 'loom'`);
    }
  });
}

/** Resolves the helpers `loom.entity(x)` etc.; returns undefined when `x` names nothing. */
export type HelperResolver = (helper: LoomHelper, arg: string) => unknown[] | undefined;

/** Follows a parsed path through `root`; a step that finds nothing yields undefined. */
export function resolvePath(root: unknown, segments: Segment[], helpers: HelperResolver): unknown {
  return walk(root, segments, 0, helpers);
}

function walk(value: unknown, segments: Segment[], i: number, helpers: HelperResolver): unknown {
  const segment = segments[i];
  if (!segment) return value;
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

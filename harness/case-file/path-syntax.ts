/**
 * The syntax of paths into the run record (docs/INTERPRETING.md, "Paths"): `a.b[0][-1][*][field=value]`
 * and the loom helpers `loom.entity(x)`, `loom.cast(x)`, `loom.appended(x)`, `loom.spawned(x)`. A path is
 * parsed when the case file loads, so a bad one is reported with its line before anything runs; judging
 * follows the parsed path through a run's record (judge/paths.ts).
 */
export type Segment =
  | { kind: 'key'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'all' }
  | { kind: 'filter'; field: string; value: unknown }
  | { kind: 'helper'; name: LoomHelper; arg: string };

export const RECORD_ROOTS = [
  'description', 'conventions', 'cantrips', 'outcomes', 'errors', 'failures', 'entities', 'forks', 'mutations', 'threads', 'snapshots',
  'requests', 'replies', 'after_outcome', 'wire_problems', 'wire_waits', 'concurrency', 'gates', 'gate_log', 'sleeps', 'events', 'backpressure', 'files', 'loom',
  'acp', 'acp_sessions', 'acp_prompts', 'credential', 'exports', 'logs',
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

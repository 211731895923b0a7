/** JSON-style comparisons shared by the matchers and the invariants. */

/** Deep equality of JSON values; object key order is ignored and a key holding `undefined` counts as absent. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') {
    return typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b);
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((x, i) => deepEqual(x, other[i]));
  }
  const ka = definedKeys(a as Record<string, unknown>);
  const kb = definedKeys(b as Record<string, unknown>);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b as object, k) && deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/**
 * Partial match: every key the pattern lists must match recursively; arrays need the same length and
 * match element by element; anything else must be deep-equal.
 */
export function like(actual: unknown, pattern: unknown): boolean {
  if (Array.isArray(pattern)) {
    return Array.isArray(actual) && actual.length === pattern.length && pattern.every((p, i) => like(actual[i], p));
  }
  if (pattern !== null && typeof pattern === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
    return Object.entries(pattern).every(([k, p]) => like((actual as Record<string, unknown>)[k], p));
  }
  return deepEqual(actual, pattern);
}

/** The JSON type name of a value (`integer` is reported as `number`; see {@link isType}). */
export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (value === undefined) return 'absent';
  return typeof value;
}

export function isType(value: unknown, type: string): boolean {
  if (type === 'integer') return Number.isInteger(value);
  return jsonType(value) === type;
}

function definedKeys(o: Record<string, unknown>): string[] {
  return Object.keys(o).filter((k) => o[k] !== undefined);
}

/**
 * A detached copy of a JSON value received from an implementation. JSON round-tripping (not
 * structuredClone) because an implementation may hand over proxies or frozen views; what crosses the
 * adapter boundary is JSON by contract.
 */
export function jsonCopy<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

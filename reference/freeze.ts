/**
 * Freezes `value` and everything reachable from it, in place, and returns it. The reference seals
 * whatever must never change after creation this way (the call, CALL-1; stored turns, LOOM-3; the
 * message log, INTENT-3): a write to a sealed object throws a TypeError in strict-mode code, which
 * every ES module is, instead of silently rewriting history.
 */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  // Plain data only (what the reference seals is JSON-like), so index and for-in loops suffice; they
  // are much cheaper than listing own keys, and this runs on every stored turn.
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) deepFreeze(value[index]);
  } else {
    for (const key in value) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return Object.freeze(value);
}

/** How deep {@link sealedCopy} follows nesting before it assumes a cycle. */
const MAX_DEPTH = 256;

/**
 * A deep, frozen copy of `value` as JSON would carry it: what a JSON round trip gives back, without
 * building and parsing the text (several times cheaper, and the loom seals every turn this way).
 * `toJSON` is honoured, `undefined`, functions and symbols are dropped from objects (and become null in
 * arrays), non-finite numbers become null, and a BigInt, a cycle or absurd nesting throws a TypeError,
 * as JSON.stringify would.
 */
export function sealedCopy<T>(value: T): T {
  return copy(value, '', 0) as T;
}

function copy(value: unknown, key: string, depth: number): unknown {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON(key: string): unknown }).toJSON(key);
  }
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? (value === 0 ? 0 : value) : null; // JSON writes -0 as 0
    case 'bigint':
      throw new TypeError('a BigInt cannot be stored as JSON');
    case 'object':
      break;
    default:
      return undefined;
  }
  if (value === null) return null;
  if (depth >= MAX_DEPTH) throw new TypeError('value is cyclic or nested too deeply to store as JSON');
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let index = 0; index < value.length; index++) {
      const item = copy(value[index], String(index), depth + 1);
      out[index] = item === undefined ? null : item;
    }
    return Object.freeze(out);
  }
  const out: Record<string, unknown> = {};
  for (const name in value) {
    if (!Object.prototype.hasOwnProperty.call(value, name)) continue;
    const item = copy((value as Record<string, unknown>)[name], name, depth + 1);
    if (item === undefined) continue;
    // A key named "__proto__" must stay an own key, as JSON.parse keeps it; assignment would set the prototype.
    if (name === '__proto__') Object.defineProperty(out, name, { value: item, enumerable: true, writable: true, configurable: true });
    else out[name] = item;
  }
  return Object.freeze(out);
}

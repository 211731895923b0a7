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

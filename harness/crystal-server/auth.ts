/** Comparing a presented API key with the run's key without leaking timing or the key itself. */
import { createHash, timingSafeEqual } from 'node:crypto';

export function sameKey(presented: string, key: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(key).digest();
  return timingSafeEqual(a, b);
}

/** Reads one header value (the first, if repeated). */
export function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

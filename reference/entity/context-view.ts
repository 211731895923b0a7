import type { Message } from '../../schemas/index.ts';
import { deepFreeze } from '../freeze.ts';

/**
 * A read-only snapshot of the working context, made in constant time.
 *
 * The loop sends the whole history on every query (LOOP-5). Copying it each turn would make a cast of
 * n turns cost O(n^2); instead each query gets a fixed-length view over the entity's append-only,
 * deep-frozen message log. The view behaves as an array (indexing, iteration, array methods,
 * JSON.stringify) but refuses writes, and its length is fixed when it is made, so messages the loop
 * appends later never appear in an earlier request.
 *
 * `head` comes first (the call, then e.g. a fold summary), then `log` from index `from` on, where
 * `overrides` stand in for some log entries (trimmed ephemeral results, PROD-5).
 */
export function contextView(
  head: readonly Message[],
  log: readonly Message[],
  from = 0,
  overrides: ReadonlyMap<number, Message> = new Map(),
): Message[] {
  const length = head.length + log.length - from;
  const fromLog = (index: number): Message | undefined => overrides.get(index) ?? log[index];
  const at = (index: number): Message | undefined =>
    index < head.length ? head[index] : index < length ? fromLog(from + index - head.length) : undefined;
  const refuse = (): never => {
    throw new TypeError('a request context is read-only');
  };
  return new Proxy([] as Message[], {
    get(target, key, receiver) {
      if (key === 'length') return length;
      const index = toIndex(key);
      if (index !== undefined) return at(index);
      return Reflect.get(target, key, receiver);
    },
    has(target, key) {
      const index = toIndex(key);
      return index !== undefined ? index < length : Reflect.has(target, key);
    },
    ownKeys() {
      return [...Array.from({ length }, (_, index) => String(index)), 'length'];
    },
    getOwnPropertyDescriptor(target, key) {
      if (key === 'length') return { value: length, writable: true, enumerable: false, configurable: false };
      const index = toIndex(key);
      if (index !== undefined && index < length) return { value: at(index), writable: false, enumerable: true, configurable: true };
      return Reflect.getOwnPropertyDescriptor(target, key);
    },
    set: refuse,
    defineProperty: refuse,
    deleteProperty: refuse,
    setPrototypeOf: refuse,
  });
}

function toIndex(key: string | symbol): number | undefined {
  if (typeof key !== 'string') return undefined;
  const index = Number(key);
  return Number.isInteger(index) && index >= 0 && String(index) === key ? index : undefined;
}

/**
 * Freezes a message and everything in it, so no holder of a view can alter the log (INTENT-3). The
 * message must be the caller's own, fresh object (the loop builds every message it remembers).
 */
export function sealMessage(message: Message): Message {
  return deepFreeze(message);
}

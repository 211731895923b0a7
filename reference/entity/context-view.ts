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
  overrides: ReadonlyMap<number, Message> = NO_OVERRIDES,
): Message[] {
  return new Proxy([] as Message[], new ReadOnlyView(head, log, from, overrides));
}

const NO_OVERRIDES: ReadonlyMap<number, Message> = new Map();

/**
 * The proxy handler behind {@link contextView}: it holds what the view shows and answers every read
 * from it. One object per view, its traps shared on the class's prototype, so making a view each turn
 * costs two small objects and the proxy.
 */
class ReadOnlyView implements ProxyHandler<Message[]> {
  readonly length: number;

  constructor(
    private readonly head: readonly Message[],
    private readonly log: readonly Message[],
    private readonly from: number,
    private readonly overrides: ReadonlyMap<number, Message>,
  ) {
    this.length = head.length + log.length - from;
  }

  /** The message at position `index` of the view, or undefined past its end. */
  at(index: number): Message | undefined {
    if (index < this.head.length) return this.head[index];
    if (index >= this.length) return undefined;
    const inLog = this.from + index - this.head.length;
    return this.overrides.get(inLog) ?? this.log[inLog];
  }

  get(target: Message[], key: string | symbol, receiver: unknown): unknown {
    if (key === 'length') return this.length;
    const index = toIndex(key);
    if (index !== undefined) return this.at(index);
    return Reflect.get(target, key, receiver);
  }

  has(target: Message[], key: string | symbol): boolean {
    const index = toIndex(key);
    return index !== undefined ? index < this.length : Reflect.has(target, key);
  }

  ownKeys(): string[] {
    const keys: string[] = [];
    for (let index = 0; index < this.length; index++) keys.push(String(index));
    keys.push('length');
    return keys;
  }

  getOwnPropertyDescriptor(target: Message[], key: string | symbol): PropertyDescriptor | undefined {
    if (key === 'length') return { value: this.length, writable: true, enumerable: false, configurable: false };
    const index = toIndex(key);
    if (index !== undefined && index < this.length) return { value: this.at(index), writable: false, enumerable: true, configurable: true };
    return Reflect.getOwnPropertyDescriptor(target, key);
  }

  set(): never {
    return refuse();
  }

  defineProperty(): never {
    return refuse();
  }

  deleteProperty(): never {
    return refuse();
  }

  setPrototypeOf(): never {
    return refuse();
  }
}

function refuse(): never {
  throw new TypeError('a request context is read-only');
}

/** The array index a property key names, if it names one ("0", "12"; not "01", "-1", "length" or a symbol). */
function toIndex(key: string | symbol): number | undefined {
  if (typeof key !== 'string') return undefined;
  const first = key.charCodeAt(0);
  if (!(first >= 48 && first <= 57)) return undefined; // no digit first: a method or other name, decided without parsing
  const index = Number(key);
  return Number.isInteger(index) && String(index) === key ? index : undefined;
}

/**
 * Freezes a message and everything in it, so no holder of a view can alter the log (INTENT-3). The
 * message must be the caller's own, fresh object (the loop builds every message it remembers).
 */
export function sealMessage(message: Message): Message {
  return deepFreeze(message);
}

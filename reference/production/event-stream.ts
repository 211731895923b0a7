import type { StreamEvent } from '../../schemas/index.ts';
import type { EventDelivery, EventSink } from './events.ts';

/** The bound when none is given: small, so a stalled consumer holds back the loop within a turn or two. */
export const DEFAULT_EVENT_BOUND = 8;

/**
 * A consumer of streaming events. Returning a promise makes it a slow consumer: the event counts as
 * buffered until the promise settles (its acknowledgement). Returning nothing acknowledges at once.
 */
export type EventConsumer = (event: StreamEvent) => void | PromiseLike<unknown>;

/** An {@link EventSink} with a bound on unacknowledged events, and what it has seen so far. */
export interface BoundedEventSink extends EventSink {
  (event: StreamEvent, delivery?: EventDelivery): Promise<void>;
  readonly bound: number;
  /** Events handed to the consumer and not yet acknowledged. Never more than {@link bound}. */
  readonly unacknowledged: number;
  /** The most events ever unacknowledged at once. */
  readonly peak: number;
  /** Events given up because the caller's signal ended the wait for room (a stalled consumer). */
  readonly dropped: number;
}

/**
 * Backpressure for streaming (the idea comes from the Elixir runtime's stream barriers, seed 000):
 * at most `bound` events are handed to the consumer and not yet acknowledged. Emitting one more waits
 * until the consumer acknowledges an earlier one, so the loop, which awaits each emission, runs no
 * further ahead of a slow consumer than `bound` events, and nothing piles up in memory.
 *
 * Never a hang: the wait for room ends when the caller's signal aborts. The loop passes its cast's
 * signal, which the cast's wards abort (the timeout ward, a parent ending, LOOP-2, CIRCLE-6); the
 * event is then dropped, counted in {@link BoundedEventSink.dropped}, and the cast ends as the ward
 * says. The loom still holds every turn (LOOM-1): events are an observation channel, never the record.
 * A consumer that throws or whose acknowledgement fails is treated as having acknowledged.
 */
export function boundedEvents(consumer: EventConsumer, options: { bound?: number } = {}): BoundedEventSink {
  const bound = options.bound ?? DEFAULT_EVENT_BOUND;
  if (!Number.isInteger(bound) || bound < 1) throw new RangeError(`the event bound must be a positive integer, not ${String(bound)}`);
  let unacknowledged = 0;
  let peak = 0;
  let dropped = 0;
  /** Emitters waiting for room, woken all at once when an acknowledgement arrives; each checks again. */
  let waiting: (() => void)[] = [];

  const acknowledge = (): void => {
    unacknowledged -= 1;
    const woken = waiting;
    waiting = [];
    for (const wake of woken) wake();
  };

  const sink = async (event: StreamEvent, delivery: EventDelivery = {}): Promise<void> => {
    const { signal } = delivery;
    while (unacknowledged >= bound) {
      if (signal?.aborted) {
        dropped += 1;
        return;
      }
      await roomOrAbort(signal, (wake) => waiting.push(wake));
    }
    unacknowledged += 1;
    peak = Math.max(peak, unacknowledged);
    let ack: void | PromiseLike<unknown>;
    try {
      ack = consumer(event);
    } catch {
      ack = undefined;
    }
    if (ack && typeof ack.then === 'function') ack.then(acknowledge, acknowledge);
    else acknowledge();
  };

  return Object.defineProperties(sink, {
    bound: { value: bound, enumerable: true },
    unacknowledged: { get: () => unacknowledged, enumerable: true },
    peak: { get: () => peak, enumerable: true },
    dropped: { get: () => dropped, enumerable: true },
  }) as BoundedEventSink;
}

/** Resolves when woken or when `signal` aborts, whichever is first; leaves no listener behind. */
function roomOrAbort(signal: AbortSignal | undefined, register: (wake: () => void) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      signal?.removeEventListener('abort', done);
      resolve();
    };
    register(done);
    signal?.addEventListener('abort', done, { once: true });
  });
}

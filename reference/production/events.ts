import type { StreamEvent } from '../../schemas/index.ts';

/** What the loop hands a listener with each event: the signal that bounds any wait it imposes. */
export interface EventDelivery {
  /** Aborted when the cast must stop (its wards, its parent); a listener must not hold the loop past it. */
  signal?: AbortSignal;
}

/**
 * A listener for the loop's streaming events. It may return a promise: the loop then waits for it
 * before going on, which is how a bounded stream slows the loop down (production/event-stream.ts).
 */
export type EventSink = (event: StreamEvent, delivery?: EventDelivery) => void | PromiseLike<unknown>;

/**
 * Delivers an event without letting the listener disturb the loop: streaming is an observation
 * channel, never a control channel (§7.4), so a listener that throws is ignored.
 */
export function emit(sink: EventSink | undefined, event: StreamEvent): void {
  if (!sink) return;
  try {
    const pending = sink(event);
    if (pending && typeof pending.then === 'function') pending.then(undefined, ignore);
  } catch {
    // A broken listener must not change what the entity does.
  }
}

/**
 * Delivers an event and waits as long as the listener asks (a bounded stream waiting for room), never
 * past `signal`. A listener that throws or fails is ignored, as in {@link emit}: only the wait is felt.
 */
export async function deliver(sink: EventSink | undefined, event: StreamEvent, signal: AbortSignal): Promise<void> {
  if (!sink) return;
  let pending: void | PromiseLike<unknown>;
  try {
    pending = sink(event, { signal });
  } catch {
    return;
  }
  if (pending && typeof pending.then === 'function') await Promise.resolve(pending).then(undefined, ignore);
}

const ignore = (): void => {};

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
// Stryker disable all: equivalent under the conformance suite (docs/mutation.md): a helper for hosts that embed the library; the loop delivers through deliver(), so no case reaches it.
export function emit(sink: EventSink | undefined, event: StreamEvent): void {
  if (!sink) return;
  try {
    const pending = sink(event);
    if (pending && typeof pending.then === 'function') pending.then(undefined, ignore);
  } catch {
    // A broken listener must not change what the entity does.
  }
}
// Stryker restore all

/**
 * Delivers an event and waits as long as the listener asks (a bounded stream waiting for room), never
 * past `signal`. A listener that throws or fails is ignored, as in {@link emit}: only the wait is felt.
 */
export async function deliver(sink: EventSink | undefined, event: StreamEvent, signal: AbortSignal): Promise<void> {
  // Stryker disable next-line ConditionalExpression: equivalent (docs/mutation.md): without the early return, calling no sink throws inside the try below and returns all the same.
  if (!sink) return;
  let pending: void | PromiseLike<unknown>;
  try {
    // Stryker disable next-line ObjectLiteral: equivalent under the conformance suite (docs/mutation.md): the loop races this delivery with its cast's bound (cast.bound.wait), which ends the wait on the same signal.
    pending = sink(event, { signal });
    // Stryker disable next-line BlockStatement: equivalent (docs/mutation.md): after a throw pending is unset, and the check below returns all the same.
  } catch {
    return;
  }
  // Stryker disable next-line ConditionalExpression,LogicalOperator: equivalent under the conformance suite (docs/mutation.md): the adapter's sink is an async function, so pending is always a promise.
  if (pending && typeof pending.then === 'function') await Promise.resolve(pending).then(undefined, ignore);
}

const ignore = (): void => {};

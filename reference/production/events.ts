import type { StreamEvent } from '../../schemas/index.ts';

/** A listener for the loop's streaming events. */
export type EventSink = (event: StreamEvent) => void;

/**
 * Delivers an event without letting the listener disturb the loop: streaming is an observation
 * channel, never a control channel (§7.4), so a listener that throws is ignored.
 */
export function emit(sink: EventSink | undefined, event: StreamEvent): void {
  if (!sink) return;
  try {
    sink(event);
  } catch {
    // A broken listener must not change what the entity does.
  }
}

/**
 * The harness as a consumer of streamed events (feature `bounded-events`), and the check that an
 * implementation never runs further ahead of it than the bound it declared. The verdict never depends
 * on speed: it compares counts at moments the implementation itself creates (an event arriving, a
 * crystal query, a test-gate call) with the acknowledgements the harness had given by then.
 *
 * Why the check is sound. The contract (schemas/adapter.ts, `Host.event`) says an implementation never
 * has more than `bound` events handed over and unacknowledged, and emits a turn's `gate_result` and
 * `usage` events before that entity's next crystal query. The harness counts an acknowledgement when
 * it gives it, which is no later than when the implementation learns of it. So when event n arrives,
 * at least n - bound had been acknowledged; and at a crystal query, the events the earlier turns of the
 * action must have produced (one `usage` per turn, one `gate_result` per gate call) are at most the
 * acknowledged ones plus the bound. A correct implementation passes however fast or slow either side
 * runs; one that buffers without bound is caught as soon as it gets ahead.
 */
import type { EventConsumerScript } from '../case-file/index.ts';

/** What the run record shows under `backpressure`. */
export interface BackpressureRecord {
  /** The bound the case ran under: `setup.event_buffer`, else `describe().event_buffer`; null when neither gives one. */
  bound: number | null;
  /** Events the implementation handed over. */
  delivered: number;
  /** The most events it was ever found ahead of the harness's acknowledgements (see the module comment). */
  peak_ahead: number;
  /** How far `peak_ahead` went past the bound: 0 when it never did; null when no bound is known. */
  overrun: number | null;
}

export class EventConsumer {
  private delivered = 0;
  private acknowledged = 0;
  private peakAhead = 0;
  private readonly held: (() => void)[] = [];
  private pumping = false;
  private released = false;

  constructor(
    private readonly script: EventConsumerScript | undefined,
    private readonly bound: number | null,
    /** Waits between acknowledgements of a `delay_ms` consumer. */
    private readonly wait: (ms: number) => Promise<void>,
  ) {}

  /** The body of `host.event`: nothing to wait for when acknowledging at once, else the acknowledgement. */
  receive(): void | Promise<void> {
    this.delivered += 1;
    this.note(this.delivered - this.acknowledged);
    if (this.script === undefined || this.released) {
      this.acknowledged += 1;
      return;
    }
    return new Promise<void>((resolve) => {
      this.held.push(() => {
        this.acknowledged += 1;
        resolve();
      });
      if ('delay_ms' in this.script!) void this.pump(this.script.delay_ms);
    });
  }

  /**
   * At a crystal query or test-gate call, by which the implementation must have emitted `required`
   * events: how far ahead of the acknowledgements that puts it. Taken on arrival, noted once the
   * harness knows the moment counts (a summary query after the cast's outcome does not).
   */
  aheadAt(required: number): number {
    return required - this.acknowledged;
  }

  /** The actions are over: everything still held is acknowledged, and later events are at once. */
  release(): void {
    this.released = true;
    for (const ack of this.held.splice(0)) ack();
  }

  record(): BackpressureRecord {
    return {
      bound: this.bound,
      delivered: this.delivered,
      peak_ahead: this.peakAhead,
      overrun: this.bound === null ? null : Math.max(0, this.peakAhead - this.bound),
    };
  }

  /** Keeps the largest lead seen. */
  note(ahead: number): void {
    this.peakAhead = Math.max(this.peakAhead, ahead);
  }

  /** A slow reader: one acknowledgement per `ms`, oldest first, while anything is held. */
  private async pump(ms: number): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.held.length > 0 && !this.released) {
        await this.wait(ms);
        this.held.shift()?.();
      }
    } finally {
      this.pumping = false;
    }
  }
}

/**
 * The events an implementation must have emitted before the next query or gate call of the entity
 * whose earlier replies these are: one `usage` per turn and one `gate_result` per gate call.
 */
export function requiredEvents(replies: readonly { tool_calls?: readonly unknown[] | undefined }[]): number {
  return replies.reduce((sum, reply) => sum + 1 + (reply.tool_calls?.length ?? 0), 0);
}

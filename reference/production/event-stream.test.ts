import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../schemas/index.ts';
import { gateCall } from '../crystal/scripted.ts';
import { echoGate, scriptedCantrip } from '../testing/kit.ts';
import { doneGate } from '../circle/done.ts';

import { boundedEvents } from './event-stream.ts';

const event = (n: number): StreamEvent => ({ type: 'text', entity_id: 'e', data: n });

/** A consumer that acknowledges only when told: the test holds each acknowledgement in its hand. */
function heldConsumer() {
  const held: (() => void)[] = [];
  const seen: unknown[] = [];
  return {
    seen,
    held,
    consume: (e: StreamEvent) =>
      new Promise<void>((resolve) => {
        seen.push(e.data);
        held.push(resolve);
      }),
    ackOne: () => held.shift()?.(),
  };
}

const echo = echoGate();

describe('bounded event stream (feature bounded-events)', () => {
  it('PROD-1: never more than the bound unacknowledged; the next emission waits for an acknowledgement', async () => {
    const consumer = heldConsumer();
    const sink = boundedEvents(consumer.consume, { bound: 2 });
    await sink(event(1));
    await sink(event(2));
    let third = false;
    const pending = sink(event(3)).then(() => (third = true));
    await Promise.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect(third).toBe(false);
    expect(sink.unacknowledged).toBe(2);
    consumer.ackOne();
    await pending;
    expect(consumer.seen).toEqual([1, 2, 3]);
    expect(sink.peak).toBe(2);
  });

  it('LOOP-2: a wait for room ends with the caller\'s signal and the event is dropped, never delivered later', async () => {
    const consumer = heldConsumer();
    const sink = boundedEvents(consumer.consume, { bound: 1 });
    await sink(event(1));
    const stop = new AbortController();
    const waiting = sink(event(2), { signal: stop.signal });
    stop.abort();
    await waiting;
    await sink(event(3), { signal: stop.signal });
    expect(sink.dropped).toBe(2);
    consumer.ackOne();
    await new Promise((resolve) => setImmediate(resolve));
    expect(consumer.seen).toEqual([1]);
  });

  it('PROD-1: a consumer that acknowledges at once or throws never holds anything back', async () => {
    const sink = boundedEvents(() => {
      throw new Error('broken consumer');
    }, { bound: 1 });
    for (let i = 0; i < 5; i++) await sink(event(i));
    expect(sink.unacknowledged).toBe(0);
    expect(() => boundedEvents(() => undefined, { bound: 0 })).toThrow(RangeError);
  });

  it('LOOP-2, LOOP-4: a stalled consumer holds the loop within the bound, and the timeout ward still ends the cast', async () => {
    const consumer = heldConsumer();
    const sink = boundedEvents(consumer.consume, { bound: 3 });
    const script = Array.from({ length: 6 }, (_, i) => ({ tool_calls: [gateCall('echo', { text: `t${i}` })] }));
    const { crystal, cantrip } = scriptedCantrip([...script, { tool_calls: [gateCall('done', { answer: 'all' })] }], {
      gates: [doneGate(), echo],
      wards: { maxTurns: 10, timeoutMs: 300 },
      extra: { onEvent: sink },
    });
    const result = await cantrip.cast('stream into a stalled consumer');
    expect(result.status).toBe('truncated');
    expect(result.truncationCause).toBe('timeout');
    // Each turn streams gate_call, gate_result, usage, turn_end: the third event fills the bound in turn 1,
    // so however fast the machine, no second query is made (a slow one may be cut off even earlier).
    expect(crystal.requests.length).toBeLessThanOrEqual(1);
    expect(consumer.seen.length).toBeLessThanOrEqual(3);
    expect(sink.peak).toBeLessThanOrEqual(3);
    expect(result.turns.at(-1)?.truncated).toBe(true);
  });

  it('PROD-1: a slow consumer slows the cast but every event arrives, in order, and the cast ends as scripted', async () => {
    const seen: StreamEvent[] = [];
    // Acknowledges each event a macrotask later: slower than the loop, never stalled.
    const sink = boundedEvents((e) => {
      seen.push(e);
      return new Promise<void>((resolve) => setImmediate(resolve));
    }, { bound: 2 });
    const script = Array.from({ length: 4 }, (_, i) => ({ tool_calls: [gateCall('echo', { text: `t${i}` })] }));
    const { cantrip } = scriptedCantrip([...script, { tool_calls: [gateCall('done', { answer: 'all' })] }], {
      gates: [doneGate(), echo],
      extra: { onEvent: sink },
    });
    const result = await cantrip.cast('stream slowly');
    expect(result.status).toBe('terminated');
    expect(result.result).toBe('all');
    expect(seen.filter((e) => e.type === 'usage')).toHaveLength(5);
    expect(seen.filter((e) => e.type === 'gate_result')).toHaveLength(5);
    expect(sink.peak).toBeLessThanOrEqual(2);
    expect(sink.dropped).toBe(0);
  });
});

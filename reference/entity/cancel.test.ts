import { describe, expect, it } from 'vitest';
import { defineGate } from '../circle/gate.ts';
import { doneGate } from '../circle/done.ts';
import { gateCall } from '../crystal/scripted.ts';
import { echoGate, scriptedCantrip } from '../testing/kit.ts';
import { CANCELLED } from './loop.ts';

/**
 * A caller's cancel of one cast (what an ACP client's `session/cancel` becomes, PROD-6): the cast ends
 * truncated with `cancelled`, its turn is recorded (LOOM-1), and the entity takes its next intent with
 * the cancelled exchange still in its context (ENTITY-5, PROD-7).
 */
describe('cancelling one cast', () => {
  it('ENTITY-5, LOOM-1: a cancel during a gate call truncates the cast with cancelled, and the entity casts again afterwards', async () => {
    let entered: () => void = () => {};
    const inGate = new Promise<void>((resolve) => (entered = resolve));
    const hang = defineGate({ name: 'hang', description: 'never returns', parameters: { type: 'object' } }, () => {
      entered();
      return new Promise(() => {});
    });
    const { crystal, cantrip } = scriptedCantrip([{ tool_calls: [gateCall('hang')] }, { tool_calls: [gateCall('done', { answer: 'second' })] }], {
      gates: [doneGate(), echoGate(), hang],
    });
    const entity = cantrip.invoke();
    const controller = new AbortController();
    const first = entity.cast('wait in the gate', { signal: controller.signal });
    await inGate;
    controller.abort();
    const cancelled = await first;
    expect(cancelled).toMatchObject({ status: 'truncated', truncationCause: CANCELLED });
    expect(cancelled.turns).toHaveLength(1);
    expect(cancelled.turns[0]).toMatchObject({ truncated: true, terminated: false, truncation_cause: CANCELLED });

    const second = await entity.cast('now finish');
    expect(second).toMatchObject({ status: 'terminated', result: 'second' });
    // The second cast's query carries the first intent and the interrupted gate call's answer.
    const contents = crystal.requests[1]!.messages.map((message) => message.content);
    expect(contents).toContain('wait in the gate');
    expect(contents).toContain('now finish');
    expect(crystal.requests[1]!.messages.filter((message) => message.role === 'tool')).toHaveLength(1);
  });

  it('a signal already aborted when the cast starts asks the crystal nothing and ends cancelled', async () => {
    const { crystal, cantrip } = scriptedCantrip([{ tool_calls: [gateCall('done', { answer: 1 })] }]);
    const result = await cantrip.invoke().cast('too late', { signal: AbortSignal.abort() });
    expect(result).toMatchObject({ status: 'truncated', truncationCause: CANCELLED });
    expect(crystal.requests).toHaveLength(0);
  });

  it('a signal that is never aborted changes nothing', async () => {
    const { cantrip } = scriptedCantrip([{ tool_calls: [gateCall('done', { answer: 'ok' })] }]);
    const result = await cantrip.invoke().cast('finish', { signal: new AbortController().signal });
    expect(result).toMatchObject({ status: 'terminated', result: 'ok' });
  });
});

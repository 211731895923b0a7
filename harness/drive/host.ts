/**
 * The host an implementation calls back into during a case (schemas/adapter.ts, Host): the scripted
 * crystals, the test gates, sleeps and events, each noted in the drive's record.
 */
import type { Host } from '../../schemas/adapter.ts';
import { jsonCopy } from '../values/index.ts';
import type { DriveState } from './drive-state.ts';
import { requiredEvents } from './event-consumer.ts';

export function buildHost(state: DriveState): Host {
  const { crystals, consumer, gates, record } = state;
  /** Replies of this action's turns so far: their events must be out before the next query (schemas/adapter.ts, Host.event). */
  const answered = () =>
    crystals.queries.filter((q) => q.action === state.currentAction && q.after_outcome === undefined && q.reply.ok).map((q) => (q.reply as { ok: true; response: { tool_calls?: unknown[] } }).response);
  return {
    queryCrystal: async (crystal, request) => {
      // Over a wire transport the crystals are reached over HTTP only: a query through the callback means the declared transport went unused.
      if (state.wire) {
        state.misrouted ??= `the crystals are served over HTTP in this run (crystal_endpoints), yet '${crystal}' was queried through host.queryCrystal: the implementation declares the transport but does not use it`;
        return { ok: false, error: { message: state.misrouted } };
      }
      const ahead = consumer.aheadAt(requiredEvents(answered()));
      const at = crystals.queries.length;
      const reply = await crystals.query(crystal, request);
      if (crystals.queries[at]?.after_outcome === undefined) consumer.note(ahead);
      return reply;
    },
    callGate: (gate, args, context) => {
      // The turn making this call has its own reply answered already; its events may still be to come.
      consumer.note(consumer.aheadAt(requiredEvents(answered().slice(0, -1))));
      return gates.call(gate, args, context);
    },
    sleep: async (ms) => {
      record.sleeps.push(ms);
    },
    event: (event) => {
      record.events.push(jsonCopy(event));
      return consumer.receive();
    },
  };
}

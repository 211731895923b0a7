/**
 * PROD-8 and CIRCLE-10 in the reference's adapter: a test gate built with a credential (feature
 * gate-credentials) gets it back on every call and on no other gate's, and the cantrip treats it as a
 * secret: a gate reply that repeats it reaches neither the observation, the loom, the events nor the result.
 */
import { describe, it, expect } from 'vitest';
import type { GateCallContext, Host, StreamEvent } from '../../schemas/adapter.ts';
import type { CrystalRequest } from '../../schemas/records.ts';
import { Loom } from '../loom/loom.ts';
import { buildCantrip } from './setup.ts';

const CREDENTIAL = 'kit-gate-credential-0123456789abcdef0123456789abcdef';
const GATE = { name: 'billing', description: 'Looks up an invoice.', parameters: { type: 'object', properties: {} } };

describe('a gate built with a credential (PROD-8, CIRCLE-10)', () => {
  it('gets the credential back on each of its calls, and the cast shows it nowhere', async () => {
    const contexts: [string, GateCallContext][] = [];
    const requests: CrystalRequest[] = [];
    const events: StreamEvent[] = [];
    const replies = [
      { tool_calls: [{ id: 'c1', gate: 'billing', arguments: '{}' }, { id: 'c2', gate: 'plain', arguments: '{}' }] },
      { tool_calls: [{ id: 'c3', gate: 'done', arguments: JSON.stringify({ answer: 'done' }) }] },
    ];
    const host: Host = {
      queryCrystal: async (_crystal, request) => {
        requests.push(JSON.parse(JSON.stringify(request)) as CrystalRequest);
        const next = replies.shift();
        return next ? { ok: true, response: { content: null, ...next, usage: { prompt: 1, completion: 1, cached: 0 } } } : { ok: false, error: { message: 'script over' } };
      },
      callGate: async (gate, _args, context) => {
        contexts.push([gate, context]);
        return gate === 'billing' ? { ok: false, error: { name: 'AuthError', message: `401: token ${CREDENTIAL} refused` } } : { ok: true, result: 'plain' };
      },
      sleep: async () => {},
      event: (event) => void events.push(JSON.parse(JSON.stringify(event)) as StreamEvent),
    };
    const loom = new Loom();
    const cantrip = buildCantrip(
      {
        draft: '0.3.1',
        crystal: { name: 'parent' },
        call: {},
        circle: { medium: 'conversation', gates: [{ name: 'done' }, { name: 'billing', test: GATE, credential: CREDENTIAL }, { name: 'plain', test: { ...GATE, name: 'plain' } }], wards: { max_turns: 3 } },
      },
      host,
      loom,
    );
    const outcome = await cantrip.cast('look up the invoice');
    expect(contexts.map(([gate, context]) => [gate, context.credential])).toEqual([
      ['billing', CREDENTIAL],
      ['plain', undefined],
    ]);
    expect(JSON.stringify(requests[1])).toContain('401: token');
    for (const [where, value] of Object.entries({ requests, events, loom: loom.turns(), outcome })) expect([where, JSON.stringify(value).includes(CREDENTIAL)]).toEqual([where, false]);
  });
});

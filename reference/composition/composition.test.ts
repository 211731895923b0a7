import { describe, expect, it, vi } from 'vitest';
import type { CrystalRequest, CrystalResponse } from '../../schemas/index.ts';
import { createCall } from '../call/call.ts';
import { createCircle } from '../circle/circle.ts';
import { doneGate } from '../circle/done.ts';
import { CallbackCrystal } from '../crystal/callback.ts';
import { gateCall, ScriptedCrystal } from '../crystal/scripted.ts';
import { createCantrip } from '../entity/cantrip.ts';
import { echoGate, failGate } from '../testing/kit.ts';
import { callEntityBatchGate } from './call-entity-batch.ts';
import { callEntityGate } from './call-entity.ts';

const reply = (gate: string, args: Record<string, unknown>) => ({ tool_calls: [gateCall(gate, args)] });

/** A promise with its resolve function outside, for a test to wait on an event of the code under test. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Resolves after every microtask queued so far has run (a released child has taken its next step). */
const nextMacrotask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function family(options: {
  parent: ConstructorParameters<typeof ScriptedCrystal>[0];
  child: CallbackCrystal | ScriptedCrystal;
  wards?: Parameters<typeof createCircle>[0]['wards'];
  batch?: { maxConcurrency?: number };
  gates?: 'with-fail';
}) {
  const parent = new ScriptedCrystal(options.parent, 'parent');
  const cantrip = createCantrip({
    crystal: parent,
    call: createCall({ systemPrompt: 'You are the parent.' }),
    circle: createCircle({
      gates: [
        doneGate(),
        echoGate(),
        ...(options.gates === 'with-fail' ? [failGate()] : []),
        callEntityGate({ crystal: options.child }),
        callEntityBatchGate({ crystal: options.child }, options.batch ?? {}),
      ],
      wards: options.wards ?? { maxTurns: 5 },
    }),
  });
  return { parent, cantrip };
}

/** A child crystal that answers each intent with done(<intent upper-cased>) after `delay(intent)` ms. */
const shoutingChild = (delay: (intent: string) => number = () => 0) =>
  new CallbackCrystal(async (request: CrystalRequest): Promise<CrystalResponse> => {
    const intent = String(request.messages.find((message) => message.role === 'user')!.content);
    await new Promise((resolve) => setTimeout(resolve, delay(intent)));
    return { content: null, tool_calls: [gateCall('done', { answer: intent.toUpperCase() })], usage: { prompt: 1, completion: 1, cached: 0 } };
  }, 'child');

describe('composition (chapter 5)', () => {
  it('COMP-2, COMP-7: call_entity blocks until the child is done and returns its answer; the child may use its own crystal', async () => {
    const child = shoutingChild(() => 20);
    const { parent, cantrip } = family({ parent: [reply('call_entity', { intent: 'summarize' }), reply('done', { answer: 'ok' })], child });
    const result = await cantrip.cast('delegate');
    expect(result.turns[0]!.gate_calls[0]).toMatchObject({ gate: 'call_entity', ok: true, result: 'SUMMARIZE' });
    expect(child.requests).toHaveLength(1);
    expect(parent.requests[1]!.messages.at(-1)!.content).toBe('"SUMMARIZE"');
  });

  it('COMP-4: the child starts fresh: only its own call and intent, nothing of the parent history', async () => {
    const child = shoutingChild();
    const { cantrip } = family({
      parent: [reply('echo', { text: 'parent secret' }), reply('call_entity', { intent: 'sub task', context: { n: 3 } }), reply('done', { answer: 1 })],
      child,
    });
    await cantrip.cast('parent intent');
    const seen = JSON.stringify(child.requests[0]!.messages);
    expect(seen).not.toContain('parent secret');
    expect(seen).not.toContain('parent intent');
    expect(child.requests[0]!.messages[1]).toEqual({ role: 'user', content: 'sub task' });
    expect(String(child.requests[0]!.messages[2]!.content)).toContain('{"n":3}');
  });

  it('COMP-1: a child cannot be granted a gate its parent lacks, and gets only the gates asked for', async () => {
    const child = shoutingChild();
    const { cantrip } = family({
      parent: [reply('call_entity', { intent: 'x', gates: ['fetch'] }), reply('call_entity', { intent: 'y', gates: ['echo'] }), reply('done', { answer: 1 })],
      child,
    });
    const result = await cantrip.cast('go');
    expect(result.turns[0]!.gate_calls[0]).toMatchObject({ ok: false, error: { code: 'gate_not_granted' } });
    expect(child.requests[0]!.tools!.map((tool) => tool.name).sort()).toEqual(['done', 'echo']);
  });

  it('COMP-6: with the default depth of 1 a child has no composition gates, and calling one fails with gate_unavailable', async () => {
    const child = new ScriptedCrystal([reply('call_entity', { intent: 'grandchild' }), reply('done', { answer: 'child done' })], 'child');
    const { cantrip } = family({ parent: [reply('call_entity', { intent: 'child' }), reply('done', { answer: 1 })], child });
    await cantrip.cast('go');
    const childTools = child.requests[0]!.tools!.map((tool) => tool.name);
    expect(childTools).not.toContain('call_entity');
    expect(childTools).not.toContain('call_entity_batch');
    const childTurns = cantrip.loom.turns().filter((turn) => turn.role === 'crystal' && turn.gate_calls[0]?.gate === 'call_entity' && !turn.gate_calls[0].ok);
    expect(childTurns[0]!.gate_calls[0]!.error!.code).toBe('gate_unavailable');
  });

  it('COMP-6: max_depth 0 removes the composition gates from the circle itself', () => {
    const circle = createCircle({ gates: [doneGate(), callEntityGate(), callEntityBatchGate()], wards: { maxTurns: 3, maxDepth: 0 } });
    expect([...circle.gates.keys()]).toEqual(['done']);
  });

  it('COMP-3: batch children run concurrently and results come back in request order', async () => {
    // Each child holds until all three are running at once, which only concurrent children can reach,
    // whatever the machine's speed; then the test lets them finish in the reverse of request order.
    const release: Record<string, () => void> = {};
    const allRunning = deferred();
    const finished: string[] = [];
    const child = new CallbackCrystal(async (request) => {
      const intent = String(request.messages[1]!.content);
      await new Promise<void>((resolve) => {
        release[intent] = resolve;
        if (Object.keys(release).length === 3) allRunning.resolve();
      });
      finished.push(intent);
      return { content: null, tool_calls: [gateCall('done', { answer: intent })], usage: { prompt: 1, completion: 1, cached: 0 } };
    }, 'child');
    const { cantrip } = family({
      parent: [reply('call_entity_batch', { intents: [{ intent: 'slow' }, { intent: 'medium' }, { intent: 'fast' }] }), reply('done', { answer: 1 })],
      child,
    });
    const casting = cantrip.cast('go');
    await allRunning.promise;
    for (const intent of ['fast', 'medium', 'slow']) {
      release[intent]!();
      await nextMacrotask();
    }
    const result = await casting;
    expect(finished).toEqual(['fast', 'medium', 'slow']);
    expect(result.turns[0]!.gate_calls[0]!.result).toEqual(['slow', 'medium', 'fast']);
  });

  it('COMP-3: a max_concurrency ward caps how many children of one batch run at once', async () => {
    const intents = Array.from({ length: 6 }, (_, index) => ({ intent: `task ${index}` }));
    let started = 0;
    let running = 0;
    let peak = 0;
    const held: (() => void)[] = [];
    const child = new CallbackCrystal(async () => {
      started += 1;
      running += 1;
      peak = Math.max(peak, running);
      // Hold each child until a second one runs beside it (or no other will start), so the peak shows
      // the cap rather than how quickly this machine starts the next child.
      await new Promise<void>((resolve) => {
        held.push(resolve);
        if (running === 2 || started === intents.length) for (const go of held.splice(0)) go();
      });
      running -= 1;
      return { content: null, tool_calls: [gateCall('done', { answer: 1 })], usage: { prompt: 1, completion: 1, cached: 0 } };
    }, 'child');
    const { cantrip } = family({ parent: [reply('call_entity_batch', { intents }), reply('done', { answer: 1 })], child, batch: { maxConcurrency: 2 } });
    await cantrip.cast('go');
    expect(started).toBe(6);
    expect(peak).toBe(2);
  });

  it('COMP-8: a failing child is an error the parent sees, and the parent carries on', async () => {
    const child = new ScriptedCrystal([{ content: null }], 'child'); // an invalid response ends the child
    const { cantrip } = family({ parent: [reply('call_entity', { intent: 'doomed' }), reply('done', { answer: 'recovered' })], child });
    const result = await cantrip.cast('go');
    expect(result.turns[0]!.gate_calls[0]).toMatchObject({ ok: false, error: { code: 'child_failed' } });
    expect(result).toMatchObject({ status: 'terminated', result: 'recovered' });
  });

  it('COMP-8: in a batch one failing child leaves the others results intact', async () => {
    const child = new CallbackCrystal(async (request) => {
      const intent = String(request.messages[1]!.content);
      return intent === 'bad'
        ? { content: null, usage: { prompt: 0, completion: 0, cached: 0 } }
        : { content: null, tool_calls: [gateCall('done', { answer: intent })], usage: { prompt: 1, completion: 1, cached: 0 } };
    }, 'child');
    const { cantrip } = family({ parent: [reply('call_entity_batch', { intents: [{ intent: 'good' }, { intent: 'bad' }] }), reply('done', { answer: 1 })], child });
    const result = await cantrip.cast('go');
    const entries = result.turns[0]!.gate_calls[0]!.result as unknown[];
    expect(entries[0]).toEqual('good');
    expect(entries[1]).toMatchObject({ error: { code: 'child_failed' } });
  });

  it('COMP-9: when the parent is cut off, its running child is truncated with parent_terminated and keeps its turns', async () => {
    // The parent's 100 ms ward runs on fake timers: it fires when the test advances the clock, once the
    // child is in its second query, never earlier because the machine is slow.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      const inSecondQuery = deferred();
      let childQueries = 0;
      const child = new CallbackCrystal(async () => {
        childQueries += 1;
        if (childQueries > 1) {
          inSecondQuery.resolve();
          await new Promise<never>(() => {});
        }
        return { content: null, tool_calls: [gateCall('echo', { text: 'working' })], usage: { prompt: 1, completion: 1, cached: 0 } };
      }, 'child');
      const { cantrip } = family({ parent: [reply('call_entity', { intent: 'long job' })], child, wards: { maxTurns: 5, timeoutMs: 100 } });
      const casting = cantrip.cast('go');
      await inSecondQuery.promise;
      await vi.advanceTimersByTimeAsync(100);
      const result = await casting;
      expect(result).toMatchObject({ status: 'truncated', truncationCause: 'timeout' });
      const childTurns = cantrip.loom.turns().filter((turn) => turn.role === 'crystal' && turn.entity_id !== result.entityId);
      expect(childTurns).toHaveLength(2);
      expect(childTurns[0]).toMatchObject({ truncated: false, gate_calls: [{ gate: 'echo', ok: true }] });
      expect(childTurns[1]).toMatchObject({ truncated: true, truncation_cause: 'parent_terminated' });
    } finally {
      vi.useRealTimers();
    }
  });

  it('COMP-9: an entity stopped by its parent mid-query records parent_terminated, not a failure', async () => {
    const queried = deferred();
    const hanging = new CallbackCrystal(() => {
      queried.resolve();
      return new Promise<CrystalResponse>(() => {});
    }, 'hanging');
    const { cantrip } = family({ parent: [], child: hanging });
    const entity = createCantrip({ crystal: hanging, call: cantrip.call, circle: cantrip.circle }).invoke();
    const running = entity.cast('wait');
    await queried.promise;
    entity.stop('parent_terminated');
    const result = await running;
    expect(result).toMatchObject({ status: 'truncated', truncationCause: 'parent_terminated' });
    expect(result.error).toBeUndefined();
  });

  it('COMP-5, LOOM-8, LOOM-12: the child subtree hangs from the spawning turn and the parent thread continues past it', async () => {
    const child = new ScriptedCrystal([reply('echo', { text: 'c1' }), reply('done', { answer: 'c' })], 'child');
    const { cantrip } = family({ parent: [reply('echo', { text: 'p1' }), reply('call_entity', { intent: 'sub' }), reply('done', { answer: 'p' })], child });
    const result = await cantrip.cast('go');
    const [first, spawning, last] = result.turns;
    const loom = cantrip.loom;
    const childCall = loom.children(spawning!.id).find((turn) => turn.role === 'call')!;
    expect(childCall).toBeDefined();
    const childTurns = loom.children(childCall.id);
    expect(childTurns[0]).toMatchObject({ role: 'crystal', sequence: 1 });
    expect(last!.parent_id).toBe(spawning!.id);
    expect(spawning!.parent_id).toBe(first!.id);
    // One tree: the child's thread passes through the parent's turns up to the same root.
    const childLeaf = loom.children(childTurns[0]!.id)[0]!;
    const path = loom.thread(childLeaf.id);
    expect(path[0]!.parent_id).toBeNull();
    expect(path.map((turn) => turn.id)).toContain(spawning!.id);
    expect(loom.roots()).toHaveLength(1);
  });

  it('WARD-1: a child asking for more turns than its parent allows gets the parent limit', async () => {
    const child = new ScriptedCrystal(Array.from({ length: 10 }, () => reply('echo', { text: 'loop' })), 'child');
    const { cantrip } = family({ parent: [reply('call_entity', { intent: 'spin', max_turns: 50 }), reply('done', { answer: 1 })], child, wards: { maxTurns: 3 } });
    await cantrip.cast('go');
    expect(child.requests).toHaveLength(3);
  });
});

/**
 * Drives one case through an adapter: construct `main`, run the actions in order, read the loom, and
 * fill the run record. It never judges; `check.ts` and `invariants.ts` do. Adapter exceptions are
 * left to propagate, so the runner can mark the case errored.
 */
import type { Adapter, CrystalEndpoint, CrystalSetup, CrystalTransport, Description, Host, OverlayDecision, Result } from '../../schemas/adapter.ts';
import { startCrystalServer, type CrystalServer, type WireFormat } from '../crystal-server/index.ts';
import type { Turn } from '../../schemas/records.ts';
import type { Action, LoadedCase, TurnRef, Verb } from '../case-file/index.ts';
import { jsonCopy } from '../values/index.ts';
import { MockCrystals, type CrystalFault, type QueryRecord } from './mock-crystal.ts';
import { emptyRecord, type ActionTrace, type RunRecord } from './run-record.ts';
import { prepareSetup, type PreparedSetup } from './setup.ts';
import { materializeFiles, readCaseFiles } from './case-files.ts';
import { EventConsumer, requiredEvents } from './event-consumer.ts';
import { TestGates } from './test-gates.ts';
import { OutcomeWatch, watchedCase } from './outcome-watch.ts';

export interface DriveResult {
  record: RunRecord;
  actions: Map<string, ActionTrace>;
  prepared: PreparedSetup;
  /** Failures found while driving (a script ran out, a reference found nothing...). */
  faults: CrystalFault[];
  /** False when `loom()` was refused: loom checks are then skipped. */
  loomAvailable: boolean;
  /** Every crystal query with the index of the action it happened in. */
  queries: QueryRecord[];
  /** Whether the crystals were served over a wire transport. */
  wire: boolean;
}

/** Thrown inside the driver when the case cannot go on; becomes a failing fault. */
class Stop extends Error {}

/**
 * Waits at least `ms` as performance.now() measures it: a timer may fire up to a millisecond early by
 * that clock, and cases compare gate and crystal timings against the delays they scripted.
 */
const realWait = async (ms: number): Promise<void> => {
  const until = performance.now() + ms;
  for (let left = ms; left > 0; left = until - performance.now()) {
    await new Promise((resolve) => setTimeout(resolve, Math.ceil(left)));
  }
};

/**
 * Real waits of one case (scripted crystal delays, the delay gate) that end with it. A hold the case no
 * longer needs (a ward cut the query it delayed) is dropped when the case is over: its timer is cleared
 * and the reply never comes, as from a provider that went silent. Without this, a 16 s hold would keep
 * the process alive long after the run finished.
 */
class CaseWaits {
  private readonly timers = new Set<NodeJS.Timeout>();
  private ended = false;

  readonly wait = async (ms: number): Promise<void> => {
    const until = performance.now() + ms;
    for (let left = ms; left > 0; left = until - performance.now()) {
      if (this.ended) return new Promise<void>(() => undefined);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          resolve();
        }, Math.ceil(left));
        this.timers.add(timer);
      });
    }
  };

  end(): void {
    this.ended = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}

/**
 * The entity an action ran, from the turns it added: the one whose subtree does not hang from another
 * entity's turn added in the same action (its children's do). Undefined when it added no turns.
 */
export function topEntity(appended: readonly Turn[], all: readonly Turn[]): string | undefined {
  const byId = new Map(all.map((t) => [t.id, t]));
  const fresh = new Set(appended.map((t) => t.id));
  for (const t of appended) {
    if (t.entity_id === null) continue;
    let at = t.parent_id === null ? undefined : byId.get(t.parent_id);
    while (at && (at.role === 'call' || at.entity_id === t.entity_id)) at = at.parent_id === null ? undefined : byId.get(at.parent_id);
    if (!at || !fresh.has(at.id)) return t.entity_id;
  }
  return undefined;
}

/**
 * `transport`: how the scripted crystals reach the implementation. Over a wire transport the crystal
 * server serves them on loopback for this case only, and is closed whatever happens: when the drive
 * ends, and also through `closers` (given the server's close as soon as it listens), so a runner that
 * stops waiting for a hung case (a timeout) closes the port without waiting for the drive to end.
 */
export async function driveCase(c: LoadedCase, adapter: Adapter, description: Description, transport: CrystalTransport = 'callback', closers?: Array<() => Promise<void>>): Promise<DriveResult> {
  const files = c.setup.files || c.setup.links ? await materializeFiles(c.setup.files, c.setup.links) : undefined;
  try {
    const result = await driveIn(c, adapter, description, files?.dir, transport, closers);
    // The case directory as the actions left it: an accepted overlay shows here, a rejected one does not.
    if (files) result.record.files = await readCaseFiles(files.dir);
    return result;
  } finally {
    await files?.cleanup();
  }
}

/** The wire format and streaming of a transport other than the callback. */
function wireOf(transport: CrystalTransport): { format: WireFormat; stream: boolean } | undefined {
  if (transport === 'callback') return undefined;
  const format: WireFormat = transport.startsWith('anthropic') ? 'anthropic' : transport.startsWith('gemini') ? 'gemini' : 'openai';
  return { format, stream: transport.endsWith('-stream') };
}

async function driveIn(c: LoadedCase, adapter: Adapter, description: Description, filesDir: string | undefined, transport: CrystalTransport, closers: Array<() => Promise<void>> | undefined): Promise<DriveResult> {
  const wire = wireOf(transport);
  let server: CrystalServer | undefined;
  try {
    return await driveWith(c, adapter, description, filesDir, async (crystals) => {
      if (!wire) return undefined;
      server = await startCrystalServer({ answer: (crystal, request) => crystals.serve(crystal, request), crystals: Object.keys(c.crystals ?? {}) });
      const started = server;
      closers?.push(() => started.close());
      const endpoints: Record<string, CrystalEndpoint> = {};
      for (const name of Object.keys(c.crystals ?? {})) endpoints[name] = { ...wire, base_url: server.baseUrl(wire.format), model: name, api_key: server.apiKey };
      return { endpoints, server };
    });
  } finally {
    await server?.close();
  }
}

/** What a wire transport adds to a case: the endpoints `construct` receives, and the server to read problems from. */
type Wire = { endpoints: Record<string, CrystalEndpoint>; server: CrystalServer } | undefined;

async function driveWith(c: LoadedCase, adapter: Adapter, description: Description, filesDir: string | undefined, serve: (crystals: MockCrystals) => Promise<Wire>): Promise<DriveResult> {
  const started = performance.now();
  const now = (): number => Math.round((performance.now() - started) * 1000) / 1000;
  const prepared = prepareSetup(c, filesDir);
  const watch = new OutcomeWatch(watchedCase(c, prepared.childCrystals), now);
  const waits = new CaseWaits();
  try {
    return await driveWithin(c, adapter, description, prepared, watch, now, waits, serve);
  } finally {
    waits.end();
  }
}

async function driveWithin(
  c: LoadedCase,
  adapter: Adapter,
  description: Description,
  prepared: ReturnType<typeof prepareSetup>,
  watch: OutcomeWatch,
  now: () => number,
  waits: CaseWaits,
  serve: (crystals: MockCrystals) => Promise<Wire>,
): Promise<DriveResult> {
  const record = emptyRecord(description);
  const crystals = new MockCrystals(c.crystals ?? {}, description, waits.wait, watch);
  const wire = await serve(crystals);
  if (wire) prepared.setup.crystal_endpoints = wire.endpoints;
  const gates = new TestGates(prepared.testGates, now, async (ms) => {
    const ended = watch.noteWait(ms);
    try {
      await waits.wait(ms);
    } finally {
      ended();
    }
  });
  // bounded-events: the harness as the event consumer, and how far the implementation runs ahead of it.
  const consumer = new EventConsumer(c.setup.consumer, c.setup.event_buffer ?? description.event_buffer ?? null, realWait);
  let currentAction = -1;
  /** Replies of this action's turns so far: their events must be out before the next query (schemas/adapter.ts, Host.event). */
  const answered = () =>
    crystals.queries.filter((q) => q.action === currentAction && q.after_outcome === undefined && q.reply.ok).map((q) => (q.reply as { ok: true; response: { tool_calls?: unknown[] } }).response);
  /** Over a wire transport the crystals are reached over HTTP only: a query through the callback means the declared transport went unused. */
  let misrouted: string | undefined;
  const host: Host = {
    queryCrystal: async (crystal, request) => {
      if (wire) {
        misrouted ??= `the crystals are served over HTTP in this run (crystal_endpoints), yet '${crystal}' was queried through host.queryCrystal: the implementation declares the transport but does not use it`;
        return { ok: false, error: { message: misrouted } };
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
  const actions = new Map<string, ActionTrace>();
  const faults: CrystalFault[] = [];
  let loomAvailable = true;
  let known = new Set<string>();

  const readLoom = async (): Promise<Turn[] | undefined> => {
    const result = await adapter.loom();
    if (!result.ok) {
      loomAvailable = false;
      return undefined;
    }
    record.loom.turns = jsonCopy(result.value.turns);
    return record.loom.turns;
  };
  const appendedSinceLast = async (): Promise<Turn[] | undefined> => {
    const turns = await readLoom();
    if (!turns) return undefined;
    const fresh = turns.filter((t) => !known.has(t.id));
    known = new Set(turns.map((t) => t.id));
    return fresh;
  };
  const store = <T>(name: string, result: Result<T>, onOk: (value: T) => void): void => {
    if (result.ok) onOk(jsonCopy(result.value));
    else record.errors[name] = jsonCopy(result.error);
  };
  const cantrip = (name: string | undefined): string => {
    const key = name ?? 'main';
    const handle = record.cantrips[key];
    if (handle === undefined) throw new Stop(`cantrip '${key}' was not constructed${record.errors[key] ? ` (${record.errors[key].code})` : ''}`);
    return handle;
  };
  const entity = (name: string): string => {
    const id = record.entities[name];
    if (id === undefined) throw new Stop(`'${name}' produced no entity${record.errors[name] ? ` (${record.errors[name].code})` : ''}`);
    return id;
  };
  const turnId = (ref: TurnRef): string => {
    if ('turn_id' in ref) return ref.turn_id;
    const owner = entity(ref.of);
    let found: Turn | undefined;
    // By position among the crystal turns the action added, never by sequence number (its numbering is open).
    const own = (actions.get(ref.of)?.appended ?? []).filter((t) => t.entity_id === owner && t.role === 'crystal');
    if ('nth' in ref) found = own[ref.nth - 1];
    else found = 'last' in ref ? own.at(-1) : own[0];
    if (!found) throw new Stop(`no turn matches ${JSON.stringify(ref)}`);
    return found.id;
  };

  /** A declared crystal as the adapter receives it (a swap in `construct`, or a fork's crystal). */
  const crystalSetup = (name: string): CrystalSetup => {
    const declared = c.crystals?.[name];
    return {
      name,
      ...(declared?.context_window !== undefined && { context_window: declared.context_window }),
      ...(declared?.forces_tool_use !== undefined && { forces_tool_use: declared.forces_tool_use }),
    };
  };

  const counters = new Map<Verb, number>();
  const run = async (action: Action, index: number): Promise<void> => {
    const verb = Object.keys(action)[0] as Verb;
    const body = (action as Record<string, Record<string, unknown>>)[verb] ?? {};
    const n = (counters.get(verb) ?? 0) + 1;
    counters.set(verb, n);
    const name = typeof body.as === 'string' ? body.as : `${verb}${n}`;
    const trace: ActionTrace = { index, verb, name };
    actions.set(name, trace);
    crystals.beginAction(index);
    currentAction = index;
    switch (verb) {
      case 'construct': {
        const setup = structuredClone(prepared.setup);
        if (typeof body.crystal === 'string') setup.crystal = crystalSetup(body.crystal);
        const result = await adapter.construct(setup, host);
        store(name, result, (v) => (record.cantrips[name] = v.cantrip));
        trace.appended = await appendedSinceLast();
        return;
      }
      case 'cast':
      case 'send': {
        const hasIntent = Object.hasOwn(body, 'intent');
        const intent = body.intent as string | undefined;
        trace.intent = hasIntent ? (intent ?? null) : undefined;
        const result =
          verb === 'cast'
            ? await (hasIntent ? adapter.cast(cantrip(body.cantrip as string | undefined), intent) : adapter.cast(cantrip(body.cantrip as string | undefined)))
            : await (hasIntent ? adapter.send(entity(body.entity as string), intent) : adapter.send(entity(body.entity as string)));
        store(name, result, (v) => {
          record.outcomes[name] = v;
          record.entities[name] = v.entity_id;
          trace.entity = v.entity_id;
          if (v.error) record.failures[name] = jsonCopy(v.error);
        });
        if (!result.ok) record.failures[name] = jsonCopy(result.error);
        if (verb === 'send' && !result.ok) trace.entity = entity(body.entity as string);
        trace.appended = await appendedSinceLast();
        // A cast refused part-way (a crystal failure reported as an error) names no entity: find it in the loom.
        if (trace.entity === undefined && trace.appended) trace.entity = topEntity(trace.appended, record.loom.turns);
        return;
      }
      case 'invoke': {
        const chosen = typeof body.entity_id === 'string' ? { entity_id: body.entity_id } : undefined;
        const result = await (chosen ? adapter.invoke(cantrip(body.cantrip as string | undefined), chosen) : adapter.invoke(cantrip(body.cantrip as string | undefined)));
        store(name, result, (v) => {
          record.entities[name] = v.entity;
          trace.entity = v.entity;
        });
        trace.appended = await appendedSinceLast();
        return;
      }
      case 'fork': {
        const from = turnId(body.from as TurnRef);
        const intent = body.intent as string | undefined;
        trace.intent = intent;
        // With `crystal` the fork continues on another declared crystal (LOOM-4 with the swap of spec 2.2).
        const result =
          typeof body.crystal === 'string'
            ? await adapter.fork(from, intent, { crystal: crystalSetup(body.crystal) })
            : intent === undefined
              ? await adapter.fork(from)
              : await adapter.fork(from, intent);
        store(name, result, (v) => {
          record.outcomes[name] = v.outcome;
          record.entities[name] = v.entity;
          record.forks[name] = { entity: v.entity, strategy: v.strategy };
          trace.entity = v.entity;
          if (v.outcome.error) record.failures[name] = jsonCopy(v.outcome.error);
        });
        if (!result.ok) record.failures[name] = jsonCopy(result.error);
        trace.appended = await appendedSinceLast();
        return;
      }
      case 'annotate_reward': {
        const result = await adapter.mutate({ target: 'reward', turn_id: turnId(body.turn as TurnRef), reward: body.reward as number | null });
        store(name, result, () => (record.mutations[name] = {}));
        return;
      }
      case 'mutate': {
        const result =
          body.target === 'delete'
            ? await adapter.mutate({ target: 'delete', turn_id: turnId(body.turn as TurnRef) })
            : body.target === 'call'
            ? await adapter.mutate({ target: 'call', cantrip: cantrip(body.cantrip as string | undefined), system_prompt: (body.system_prompt as string | undefined) ?? 'changed' })
            : await adapter.mutate({
                target: 'turn',
                turn_id: turnId(body.turn as TurnRef),
                field: (body.field as string | undefined) ?? 'utterance',
                value: Object.hasOwn(body, 'value') ? body.value : 'changed',
              });
        store(name, result, () => (record.mutations[name] = {}));
        return;
      }
      case 'thread': {
        const result = await adapter.thread(turnId(body.leaf as TurnRef));
        store(name, result, (v) => (record.threads[name] = v.turns));
        return;
      }
      case 'reopen': {
        if (!adapter.reopen) throw new Stop('the adapter offers no reopen() (an in-process adapter declaring persistence must have it)');
        store(name, await adapter.reopen(), () => (record.mutations[name] = {}));
        return;
      }
      case 'snapshot_loom': {
        const turns = await readLoom();
        if (turns) record.snapshots[name] = jsonCopy(turns);
        return;
      }
      case 'overlay': {
        if (!adapter.overlay) throw new Stop('the adapter offers no overlay() (an in-process adapter declaring overlay-file-gates must have it)');
        const result = await adapter.overlay(entity(body.entity as string), body.decision as OverlayDecision);
        store(name, result, () => (record.mutations[name] = {}));
        return;
      }
    }
  };

  try {
    await run({ construct: { as: 'main' } }, -1);
    // The implicit construct is not an action of the case; forget its counter.
    counters.delete('construct');
    for (const [i, action] of c.act.entries()) await run(action, i);
  } catch (error) {
    if (!(error instanceof Stop)) throw error;
    faults.push({ kind: 'fail', message: `act: ${error.message}` });
  } finally {
    // The actions are over: a held-back consumer lets go, so nothing waits on it any longer.
    consumer.release();
  }
  record.backpressure = consumer.record();
  await readLoom();
  for (const [crystal, peak] of crystals.peakInFlight) record.concurrency[crystal] = peak;
  for (const q of crystals.queries) {
    // A query after the outcome (a summary, LOOP-4) is not one of the cast's turns: kept apart.
    if (q.after_outcome !== undefined) (record.after_outcome[q.crystal] ??= []).push(q.request);
    else {
      (record.requests[q.crystal] ??= []).push(q.request);
      (record.replies[q.crystal] ??= []).push(q.reply);
    }
  }
  for (const entry of gates.log) (record.gates[entry.gate] ??= { calls: [] }).calls.push(entry);
  record.gate_log = gates.log;
  if (wire) {
    record.wire_problems = wire.server.exchanges.flatMap((e) => e.problems.map((p) => ({ seq: e.seq, crystal: e.crystal ?? null, ...p })));
    record.wire_waits = wireWaits(wire.server);
  }
  faults.unshift(...crystals.faults);
  if (misrouted) faults.unshift({ kind: 'error', message: misrouted });
  return { record, actions, prepared, faults, loomAvailable, queries: crystals.queries, wire: wire !== undefined };
}

/**
 * Per crystal, the wait before each request after the first: from the end of the answer before (as
 * the server wrote it) to the arrival of this request. Requests that overlapped give a negative wait.
 */
function wireWaits(server: CrystalServer): Record<string, number[]> {
  const waits: Record<string, number[]> = {};
  const lastEnd = new Map<string, number>();
  for (const e of server.exchanges) {
    if (e.crystal === undefined || e.format === 'unknown') continue;
    const before = lastEnd.get(e.crystal);
    if (before !== undefined) (waits[e.crystal] ??= []).push(Math.round((e.at_ms - before) * 1000) / 1000);
    lastEnd.set(e.crystal, e.ended_ms ?? e.at_ms);
  }
  return waits;
}

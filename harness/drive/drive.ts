/**
 * Drives one case through an adapter: construct `main`, run the actions in order, read the loom, and
 * fill the run record. It never judges; the judging stage does. Adapter exceptions are
 * left to propagate, so the runner can mark the case errored.
 */
import type { Adapter, CrystalEndpoint, CrystalTransport, Description } from '../../schemas/adapter.ts';
import { startCrystalServer, type CrystalServer } from '../crystal-server/index.ts';
import type { LoadedCase } from '../case-file/index.ts';
import { endAcp } from './acp-steps.ts';
import { runAction } from './actions.ts';
import { materializeFiles, readCaseFiles } from './case-files.ts';
import { CaseWaits, realWait } from './case-waits.ts';
import { DriveState, Stop } from './drive-state.ts';
import { EventConsumer } from './event-consumer.ts';
import { buildHost } from './host.ts';
import { MockCrystals, type CrystalFault, type QueryRecord } from './mock-crystal.ts';
import { snapshotMidCast } from './mid-cast-snapshot.ts';
import { OutcomeWatch, watchedCase } from './outcome-watch.ts';
import type { ActionTrace, RunRecord } from './run-record.ts';
import { prepareSetup, type PreparedSetup } from './setup.ts';
import { NotRun, RequiredSetupRefused } from './refused-setup.ts';
import { EntityLanes } from './entity-lanes.ts';
import { TestGates } from './test-gates.ts';
import { noteServerLimits, wireOf, wireWaits, type Wire } from './wire.ts';
import { withDraftRoles } from './draft-roles.ts';
import { withDraftFieldWords } from './draft-field-words.ts';
import { chooseDraft } from '../plan/index.ts';
import { credentialRecord, credentialUnused } from './credential-search.ts';
import type { KitLimitReached } from './kit-limits.ts';

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
  /** The kit's bounds the case reached (drive/kit-limits.ts); [] when none. */
  limits: KitLimitReached[];
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
    // The loom is read in the kit's role words whatever the judged draft calls its turns (draft-roles.ts),
    // and its truncation cause and root record likewise (draft-field-words.ts).
    const draft = c.judged_draft ?? judgedDraftOf(description);
    const result = await driveIn(c, withDraftFieldWords(withDraftRoles(adapter, draft), draft), description, files?.dir, transport, closers);
    // The case directory as the actions left it: an accepted overlay shows here, a rejected one does not.
    if (files) result.record.files = await readCaseFiles(files.dir);
    return result;
  } finally {
    await files?.cleanup();
  }
}

/** The draft a case not planned for one is judged at: the run's choice, or the seed when none can be made. */
function judgedDraftOf(description: Description): string | undefined {
  try {
    return chooseDraft(description);
  } catch {
    return undefined;
  }
}

async function driveIn(c: LoadedCase, adapter: Adapter, description: Description, filesDir: string | undefined, transport: CrystalTransport, closers: Array<() => Promise<void>> | undefined): Promise<DriveResult> {
  const wire = wireOf(transport);
  let server: CrystalServer | undefined;
  try {
    return await driveWith(c, adapter, description, filesDir, closers, async (crystals) => {
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

async function driveWith(c: LoadedCase, adapter: Adapter, description: Description, filesDir: string | undefined, closers: Array<() => Promise<void>> | undefined, serve: (crystals: MockCrystals) => Promise<Wire>): Promise<DriveResult> {
  const started = performance.now();
  const now = (): number => Math.round((performance.now() - started) * 1000) / 1000;
  const prepared = prepareSetup(c, filesDir);
  const watch = new OutcomeWatch(watchedCase(c, prepared.childCrystals), now);
  const waits = new CaseWaits();
  try {
    const crystals = new MockCrystals(c.crystals ?? {}, description, waits.wait, watch, new EntityLanes(c));
    const wire = await serve(crystals);
    if (wire) prepared.setup.crystal_endpoints = wire.endpoints;
    const gates = new TestGates(
      prepared.testGates,
      now,
      async (ms) => {
        const ended = watch.noteWait(ms);
        try {
          await waits.wait(ms);
        } finally {
          ended();
        }
      },
      prepared.credential,
    );
    // bounded-events: the harness as the event consumer, and how far the implementation runs ahead of it.
    const consumer = new EventConsumer(c.setup.consumer, c.setup.event_buffer ?? description.event_buffer ?? null, realWait);
    const state = new DriveState({ case: c, adapter, description, prepared, crystals, gates, consumer, wire, ...(closers && { closers }) });
    crystals.snapshotLoom = (name) => snapshotMidCast(state, name);
    await act(state);
    return await finish(state);
  } finally {
    waits.end();
  }
}

/** Constructs `main`, then runs the case's actions in order; a drive that cannot go on becomes a fault. */
async function act(state: DriveState): Promise<void> {
  const host = buildHost(state);
  try {
    await runAction(state, host, { construct: { as: 'main' } }, -1);
    state.forgetCount('construct');
    for (const [i, action] of state.case.act.entries()) await runAction(state, host, action, i);
  } catch (error) {
    // A refused construction the case does not judge: not run, with the implementation's reason.
    if (error instanceof NotRun) state.faults.push({ kind: 'skip', message: error.message });
    // The sentence broken (§4.5) has no rule id in any draft: the case fails, blaming none of its own rules.
    else if (error instanceof RequiredSetupRefused) state.faults.push({ kind: 'fail', message: error.message, unnumbered: '§4.5' });
    else if (!(error instanceof Stop)) throw error;
    else state.faults.push({ kind: 'fail', message: `act: ${error.message}` });
  } finally {
    // The actions are over: a held-back consumer lets go, so nothing waits on it any longer.
    state.consumer.release();
    await endAcp(state);
  }
}

/** The roles of the turn that records the call (`call`; `identity` in 0.3.1's words). */
const CALL_TURN_ROLES: ReadonlySet<string> = new Set(['call', 'identity']);

/**
 * CALL-4: a loom that holds turns of a cast but no call turn at all keeps no call as its root. Found once,
 * it departs only what reads that call turn (a path filtered on its role, a thread from its root): those
 * expectations are its consequences, not failures of CALL-3 or LOOM-2 through a turn that is not there.
 */
function callTurnMissing(state: DriveState): CrystalFault | undefined {
  const turns = state.record.loom.turns;
  if (!state.loomAvailable || turns.length === 0 || turns.some((t) => CALL_TURN_ROLES.has(t.role as string))) return undefined;
  return { kind: 'fail', message: `the loom holds ${turns.length} turns and no call turn: the call is not kept as the loom's root`, rules: ['CALL-4'], departs: ['call-turn'] };
}

/** Reads the loom a last time and files the crystals' requests and the gates' calls into the record. */
async function finish(state: DriveState): Promise<DriveResult> {
  const { record, crystals, gates, wire } = state;
  record.backpressure = state.consumer.record();
  await state.readLoom();
  for (const [lane, peak] of crystals.peakInFlight) record.concurrency[lane] = peak;
  // Filed by lane: a crystal's own name, or the lane of a shared crystal whose script answered (drive/entity-lanes.ts).
  for (const q of crystals.queries) {
    // A query after the outcome (a summary, LOOP-4) is not one of the cast's turns: kept apart.
    if (q.after_outcome !== undefined) (record.after_outcome[q.lane] ??= []).push(q.request);
    else {
      (record.requests[q.lane] ??= []).push(q.request);
      (record.replies[q.lane] ??= []).push(q.reply);
    }
  }
  for (const entry of gates.log) (record.gates[entry.gate] ??= { calls: [] }).calls.push(entry);
  record.gate_log = gates.log;
  if (wire) {
    record.wire_problems = wire.server.exchanges.flatMap((e) => e.problems.map((p) => ({ seq: e.seq, crystal: e.crystal ?? null, ...p })));
    record.wire_waits = wireWaits(wire.server);
    noteServerLimits(state, wire.server);
  }
  if (state.prepared.credential) {
    // PROD-8: where the gate's credential showed; a case whose cast never used it shows nothing (skipped).
    record.credential = credentialRecord(record, state.prepared.credential, gates.log);
    const unused = credentialUnused(record.credential);
    if (unused !== undefined) state.faults.push({ kind: 'skip', message: unused });
  }
  const rootless = callTurnMissing(state);
  if (rootless) state.faults.push(rootless);
  state.limits.push(...crystals.limits);
  const faults = [...crystals.faults, ...state.faults];
  if (state.misrouted) faults.unshift({ kind: 'error', message: state.misrouted });
  return { record, actions: state.actions, prepared: state.prepared, faults, loomAvailable: state.loomAvailable, queries: crystals.queries, wire: wire !== undefined, limits: state.limits };
}

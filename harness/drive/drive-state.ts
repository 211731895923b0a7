/**
 * The state of one case's drive, shared by the action verbs (drive/actions.ts): the run record being
 * filled, the traces of the actions so far, the scripted crystals and test gates, and the lookups an
 * action needs (a constructed cantrip, an action's entity, a turn a reference names).
 */
import type { Adapter, CrystalSetup, Description, Result } from '../../schemas/adapter.ts';
import type { Turn } from '../../schemas/records.ts';
import type { LoadedCase, TurnRef, Verb } from '../case-file/index.ts';
import { jsonCopy } from '../values/index.ts';
import type { EventConsumer } from './event-consumer.ts';
import type { KitLimitReached } from './kit-limits.ts';
import type { CrystalFault, MockCrystals } from './mock-crystal.ts';
import { emptyRecord, type ActionTrace, type RunRecord } from './run-record.ts';
import type { PreparedSetup } from './setup.ts';
import type { TestGates } from './test-gates.ts';
import type { Wire } from './wire.ts';
import { refusedCantripReason, skippedEntityReason, SkippedAfterRefusal } from './after-refusal.ts';

/** Thrown inside the drive when the case cannot go on; becomes a failing fault. */
export class Stop extends Error {}

/** Turns of an implementation's loom the kit keeps per case; far beyond any case's own (a few dozen). */
export const MAX_LOOM_TURNS_KEPT = 10_000;

export interface DriveParts {
  case: LoadedCase;
  adapter: Adapter;
  description: Description;
  prepared: PreparedSetup;
  crystals: MockCrystals;
  gates: TestGates;
  consumer: EventConsumer;
  wire: Wire;
  /** Where to put the close of anything the drive starts later (an ACP agent), so a runner that stops waiting can close it. */
  closers?: Array<() => Promise<void>>;
}

export class DriveState {
  readonly case: LoadedCase;
  readonly adapter: Adapter;
  readonly prepared: PreparedSetup;
  readonly crystals: MockCrystals;
  readonly gates: TestGates;
  readonly consumer: EventConsumer;
  readonly wire: Wire;
  readonly closers: Array<() => Promise<void>> | undefined;
  readonly record: RunRecord;
  readonly actions = new Map<string, ActionTrace>();
  readonly faults: CrystalFault[] = [];
  /** The kit's bounds this case reached (drive/kit-limits.ts), for the report. */
  readonly limits: KitLimitReached[] = [];
  /** False once `loom()` was refused: loom checks are then skipped. */
  loomAvailable = true;
  /** The index of the action running now (-1: the implicit construct of `main`). */
  currentAction = -1;
  /** Set when a crystal was queried through the callback although the run serves them over HTTP. */
  misrouted: string | undefined;
  /** Constructs refused in a case that judges their error: actions on them are skipped (drive/after-refusal.ts). */
  readonly refused = new Set<string>();
  private known = new Set<string>();
  private readonly counters = new Map<Verb, number>();

  constructor(parts: DriveParts) {
    this.case = parts.case;
    this.adapter = parts.adapter;
    this.prepared = parts.prepared;
    this.crystals = parts.crystals;
    this.gates = parts.gates;
    this.consumer = parts.consumer;
    this.wire = parts.wire;
    this.closers = parts.closers;
    this.record = emptyRecord(parts.description);
  }

  /** Starts the trace of an action; an action without `as` is named by its verb and count (`cast2`). */
  beginAction(verb: Verb, as: unknown, index: number): ActionTrace {
    const n = (this.counters.get(verb) ?? 0) + 1;
    this.counters.set(verb, n);
    const name = typeof as === 'string' ? as : `${verb}${n}`;
    const trace: ActionTrace = { index, verb, name };
    this.actions.set(name, trace);
    this.crystals.beginAction(index);
    this.currentAction = index;
    return trace;
  }

  /** The implicit construct of `main` is not an action of the case: its count is forgotten. */
  forgetCount(verb: Verb): void {
    this.counters.delete(verb);
  }

  /** Reads the whole loom into the record; undefined (and loom checks skipped) when it is refused. */
  async readLoom(): Promise<Turn[] | undefined> {
    const result = await this.adapter.loom();
    if (!result.ok) {
      this.loomAvailable = false;
      return undefined;
    }
    const turns = result.value.turns;
    if (turns.length > MAX_LOOM_TURNS_KEPT) {
      // The kit's memory stays bounded whatever the implementation answers: a loom this long is kept in
      // part, and a case judged on part of its loom would judge nothing reliably, so it errors (incomplete).
      if (!this.loomCut) {
        this.faults.push({ kind: 'error', message: `the implementation's loom has ${turns.length} turns; the kit keeps at most ${MAX_LOOM_TURNS_KEPT} per case (truncated after ${MAX_LOOM_TURNS_KEPT}), so the case is not judged` });
        this.limits.push({ kind: 'loom_turns', bound: MAX_LOOM_TURNS_KEPT, seen: turns.length, judged: false });
      }
      this.loomCut = true;
    }
    this.record.loom.turns = jsonCopy(turns.length > MAX_LOOM_TURNS_KEPT ? turns.slice(0, MAX_LOOM_TURNS_KEPT) : turns);
    return this.record.loom.turns;
  }

  /** Set once a loom read was cut at {@link MAX_LOOM_TURNS_KEPT}. */
  private loomCut = false;

  /** The turns the loom gained since the last read. */
  async appendedSinceLast(): Promise<Turn[] | undefined> {
    const turns = await this.readLoom();
    if (!turns) return undefined;
    const fresh = turns.filter((t) => !this.known.has(t.id));
    this.known = new Set(turns.map((t) => t.id));
    return fresh;
  }

  /** Keeps a result's value through `onOk`, or its error under the action's name in `errors`. */
  store<T>(name: string, result: Result<T>, onOk: (value: T) => void): void {
    if (result.ok) onOk(jsonCopy(result.value));
    else this.record.errors[name] = jsonCopy(result.error);
  }

  /** The handle of a constructed cantrip (`main` when unnamed). */
  cantrip(name: string | undefined): string {
    const key = name ?? 'main';
    const handle = this.record.cantrips[key];
    if (handle === undefined && this.refused.has(key)) throw new SkippedAfterRefusal(refusedCantripReason(key));
    if (handle === undefined) throw new Stop(`cantrip '${key}' was not constructed${this.record.errors[key] ? ` (${this.record.errors[key].code})` : ''}`);
    return handle;
  }

  /** The entity an earlier action produced. */
  entity(name: string): string {
    const id = this.record.entities[name];
    if (id === undefined && this.actions.get(name)?.skipped !== undefined) throw new SkippedAfterRefusal(skippedEntityReason(name));
    if (id === undefined) throw new Stop(`'${name}' produced no entity${this.record.errors[name] ? ` (${this.record.errors[name].code})` : ''}`);
    return id;
  }

  /** The id of the turn a reference names. */
  turnId(ref: TurnRef): string {
    if ('turn_id' in ref) return ref.turn_id;
    const owner = this.entity(ref.of);
    // By position among the crystal turns the action added, never by sequence number (its numbering is open).
    const own = (this.actions.get(ref.of)?.appended ?? []).filter((t) => t.entity_id === owner && t.role === 'crystal');
    const found = 'nth' in ref ? own[ref.nth - 1] : 'last' in ref ? own.at(-1) : own[0];
    if (!found) throw new Stop(`no turn matches ${JSON.stringify(ref)}`);
    return found.id;
  }

  /** A declared crystal as the adapter receives it (a swap in `construct`, or a fork's crystal). */
  crystalSetup(name: string): CrystalSetup {
    const declared = this.case.crystals?.[name];
    return {
      name,
      ...(declared?.context_window !== undefined && { context_window: declared.context_window }),
      ...(declared?.forces_tool_use !== undefined && { forces_tool_use: declared.forces_tool_use }),
    };
  }
}

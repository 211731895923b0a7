import type { Message, Turn, Usage } from '../../schemas/index.ts';
import type { MediumSession } from '../circle/medium/medium.ts';
import { CantripError } from '../errors.ts';
import { emptyUsage } from '../production/usage.ts';
import { callMessages } from '../call/call.ts';
import { WorkingContext } from './working-context.ts';
import { uniqueId } from '../unique-id.ts';
import type { CantripParts } from './cantrip-parts.ts';
import type { CastResult, CastStart } from './cast-result.ts';

/** A fresh, globally unique entity id (ENTITY-2): `entity_` and a unique suffix (`uniqueId` in reference/unique-id.ts). */
export function newEntityId(): string {
  return uniqueId('entity');
}

/**
 * How an entity runs one cast: the loop (loop.ts), handed in by the cantrip that makes the entity
 * (ENTITY-1), since the loop reads the entity it runs and so cannot also be imported by it.
 */
export type CastLoop = (entity: Entity, start: CastStart) => Promise<CastResult>;

/** Where an entity's first turn hangs in the loom, and the sequence it continues from. */
export interface EntityOrigin {
  parentTurnId: string;
  sequence: number;
  messages?: Message[];
  /** For a forked entity: recorded on its first turn (LOOM-4). */
  fork?: Turn['fork'];
  /** For a forked entity: the recorded path its medium state is rebuilt from. */
  restoreFrom?: readonly Turn[];
  /** For a child entity: its parent's wall-clock deadline (epoch ms), which bounds the child's too. */
  parentDeadline?: number;
}

/**
 * A running instance of a cantrip (§1.4): what exists between invocation and disposal.
 *
 * It owns the working context (its messages), its medium session (e.g. a sandbox), its usage so far,
 * and its place in the loom. Created only by a cantrip (ENTITY-1). Each cast adds to the same state
 * (ENTITY-5), which only grows (ENTITY-3); its turns stay in the loom after it is gone (ENTITY-4).
 */
export class Entity {
  /** What the crystal is shown: the call, then the history, trimmed by folding and ephemeral gates. */
  readonly context: WorkingContext;
  usage: Usage = emptyUsage();
  /** Set until the first turn of a forked entity has been recorded. */
  forkedFrom: Turn['fork'] | undefined;
  /** A child's parent's deadline: the child is cut off with `parent_terminated` when it passes. */
  readonly parentDeadline: number | undefined;
  private lastTurnId: string;
  private sequence: number;
  private mediumSession: MediumSession | undefined;
  private restoreFrom: readonly Turn[] | undefined;
  private casting = false;
  private stopped: string | undefined;
  private readonly stopListeners = new Set<() => void>();
  /** Casts of child entities still running, so a finished parent can wait for them to wind down (COMP-9). */
  private readonly children = new Set<Promise<unknown>>();

  constructor(
    readonly cantrip: CantripParts,
    readonly id: string,
    private readonly castLoop: CastLoop,
    origin: EntityOrigin,
  ) {
    this.lastTurnId = origin.parentTurnId;
    this.sequence = origin.sequence;
    this.context = new WorkingContext(callMessages(cantrip.call), origin.messages ?? []);
    this.forkedFrom = origin.fork;
    this.restoreFrom = origin.restoreFrom;
    this.parentDeadline = origin.parentDeadline;
  }

  /**
   * Runs one intent to its end (ENTITY-5). The intent is required (INTENT-1) and fixed for the whole
   * cast (INTENT-3: it is copied into the context once and nothing rewrites it).
   *
   * `options.signal` cancels this one cast from outside (a protocol client's cancel, PROD-6): the cast
   * ends truncated with cause `cancelled`, and the entity stays usable for its next intent (ENTITY-5),
   * unlike {@link stop}, which ends the entity's work for good.
   */
  async cast(intent: string, options: { signal?: AbortSignal } = {}): Promise<CastResult> {
    if (typeof intent !== 'string' || intent.trim() === '') {
      throw new CantripError('missing_intent', 'a cast needs a non-empty intent');
    }
    return this.run(options.signal === undefined ? { intent } : { intent, signal: options.signal });
  }

  /** Carries on the thread without a new intent: how a forked entity continues from its fork point (LOOM-4). */
  async resume(): Promise<CastResult> {
    return this.run({ intent: null });
  }

  private async run(start: CastStart): Promise<CastResult> {
    if (this.casting) throw new CantripError('unsupported', `entity ${this.id} is already running a cast`);
    this.casting = true;
    try {
      return await this.castLoop(this, start);
    } finally {
      this.casting = false;
    }
  }

  /** Everything the entity has said and seen, oldest first (read-only, never trimmed). */
  get messages(): readonly Message[] {
    return this.context.log;
  }

  /** The id of the entity's latest turn in the loom (or the turn it hangs from, before its first). */
  get lastTurn(): string {
    return this.lastTurnId;
  }

  /** The sequence the entity's next turn will have. */
  get nextSequence(): number {
    return this.sequence + 1;
  }

  /** The medium session, opened on first use and kept for the entity's life (CIRCLE-9). */
  async session(): Promise<MediumSession> {
    this.mediumSession ??= await this.cantrip.circle.medium.open(this.cantrip.circle.gates, {
      ...(this.cantrip.context === undefined ? {} : { globals: { context: this.cantrip.context } }),
      ...(this.cantrip.exposeLoom ? { thread: () => this.cantrip.loom.pathTo(this.lastTurnId) } : {}),
      ...(this.cantrip.circle.verifiers.length > 0 ? { verifiers: this.cantrip.circle.verifiers } : {}),
    });
    if (this.restoreFrom) {
      const path = this.restoreFrom;
      this.restoreFrom = undefined;
      await this.mediumSession.restore?.(path);
    }
    return this.mediumSession;
  }

  /** Appends the next turn of this entity to the loom, chained to the previous one (LOOM-1, LOOM-2). */
  record(fields: Omit<Turn, 'parent_id' | 'cantrip_id' | 'entity_id' | 'sequence'>): Turn {
    // One literal with every key in a fixed order: a stable object shape keeps sealing it cheap.
    // Absent optional fields are undefined here and vanish when the loom seals the turn as JSON.
    const turn: Turn = {
      id: fields.id,
      parent_id: this.lastTurnId,
      cantrip_id: this.cantrip.id,
      entity_id: this.id,
      role: fields.role,
      sequence: this.sequence + 1,
      utterance: fields.utterance,
      observation: fields.observation,
      gate_calls: fields.gate_calls,
      metadata: fields.metadata,
      reward: fields.reward,
      terminated: fields.terminated,
      truncated: fields.truncated,
      truncation_cause: fields.truncation_cause ?? null,
      intent: fields.intent,
      call: fields.call,
      fork: fields.fork,
      fold: fields.fold,
      result: fields.result,
      files_changed: fields.files_changed,
    };
    const stored = this.cantrip.loom.append(turn);
    this.lastTurnId = stored.id;
    this.sequence = stored.sequence;
    this.forkedFrom = undefined;
    return stored;
  }


  /** Follows a child's cast until it settles. */
  track(child: Promise<unknown>): void {
    this.children.add(child);
    const forget = () => this.children.delete(child);
    child.then(forget, forget);
  }

  /** Whether a child's cast is still running (COMP-9: it must be stopped when this entity's cast ends). */
  hasRunningChildren(): boolean {
    return this.children.size > 0;
  }

  /**
   * Waits (at most `boundMs`) for running children to finish recording: called when this entity's cast
   * ends, after its turn was aborted, so their `parent_terminated` turns are in the loom (COMP-9).
   */
  async windDownChildren(boundMs: number): Promise<void> {
    if (this.children.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, boundMs);
    });
    await Promise.race([Promise.allSettled([...this.children]), bound]);
    clearTimeout(timer);
  }

  /** Ends a running cast from outside (a parent that finished, COMP-9); the cast records `parent_terminated`. */
  stop(reason: string): void {
    this.stopped = reason;
    for (const listener of this.stopListeners) listener();
  }

  stopReason(): string | undefined {
    return this.stopped;
  }

  onStop(listener: () => void): void {
    this.stopListeners.add(listener);
  }

  offStop(listener: () => void): void {
    this.stopListeners.delete(listener);
  }

  /** Releases the medium session (the sandbox); the entity's turns stay in the loom (ENTITY-4). */
  dispose(): void {
    this.mediumSession?.dispose();
    this.mediumSession = undefined;
  }
}

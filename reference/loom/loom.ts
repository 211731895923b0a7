/**
 * The loom: the append-only tree of every turn a cantrip produces (spec chapter 6).
 */
import type { LoomLine, Turn } from '../../schemas/records.ts';
import { CantripError } from '../errors.ts';
import { LoomLoadError } from './load-error.ts';
import { loomLineProblem, rewardProblem, turnProblem } from './loom-line.ts';
import { MemoryStorage } from './memory-storage.ts';
import type { LoomStorage, TornTail } from './storage.ts';
import { threadToJsonl } from './thread-export.ts';
import type { Redactor } from '../production/redaction.ts';
import { deepFreeze } from '../freeze.ts';
import { sealTurn } from './turn.ts';

export interface LoomOptions {
  /** Applied to string values of exported threads only; stored turns are never touched. */
  redact?: Redactor;
}

/** What the constructor found in storage. */
export interface LoomLoadReport {
  /** How many lines (turns and reward annotations) were loaded. */
  lines: number;
  /** A record cut off by a crash, skipped on load (see JsonlStorage). */
  torn?: TornTail;
  /**
   * Turns whose parent never reached storage: a child subtree whose spawning turn was the torn record.
   * They are kept (every complete line is), but a path through them stops at the missing parent.
   */
  orphans?: string[];
}

/**
 * An append-only tree of {@link Turn}s over a {@link LoomStorage} (LOOM-1, LOOM-2, LOOM-3, LOOM-10).
 *
 * The shape the loop writes, which this class walks but does not police:
 * - each cantrip's call is a `role: 'call'` turn (entity_id null, sequence 0) and the first turn of every
 *   entity of that cantrip hangs from it, so every thread starts at the call (CALL-4). A top-level
 *   cantrip's call turn is a root (parent null);
 * - `crystal` turns of one entity chain by `parent_id`; a `fold` turn records a fold in the same chain
 *   without replacing anything (LOOM-5);
 * - a child entity's turns hang from the parent turn that spawned it, and the parent's next turn hangs
 *   from that same spawning turn, so the child is a side branch of one tree (COMP-5, LOOM-8, LOOM-12);
 * - a fork is a new branch from an earlier turn (LOOM-4).
 * Any root-to-leaf path is a thread.
 *
 * Stored turns are deep-frozen copies; the reward is the only value that changes after append, and it
 * changes by a new `reward` line plus a new frozen turn object (earlier returned objects keep the old
 * value).
 */
export class Loom {
  readonly loadReport: LoomLoadReport;
  readonly #storage: LoomStorage;
  readonly #redact: Redactor | undefined;
  readonly #turns = new Map<string, Turn>();
  /** Child ids by parent id: one id while a turn has one child (the common chain), a list once it branches. */
  readonly #children = new Map<string, string | string[]>();
  readonly #order: string[] = [];
  /**
   * Ids of turns still in progress that children may already hang from (see {@link reserve}): one per
   * running entity, so a short list. (A Set would do, but one that keeps emptying reallocates its
   * table on every delete, and this one gains and loses an id every turn.)
   */
  readonly #reserved: string[] = [];

  /** Loads every line already in `storage` (turns and reward annotations), in order. */
  constructor(storage: LoomStorage = new MemoryStorage(), options: LoomOptions = {}) {
    this.#storage = storage;
    this.#redact = options.redact;
    const load = storage.load();
    const awaited = new Map<string, number>();
    load.lines.forEach((line, index) => this.#replay(line, index + 1, awaited));
    const orphans = [...awaited.keys()].flatMap((parent) => this.#childIds(parent));
    if (orphans.length > 0 && !load.torn) {
      const [parent, lineNumber] = [...awaited][0]!;
      throw new LoomLoadError(storage.location ?? 'storage', lineNumber, `parent ${parent} is never stored`);
    }
    this.loadReport = {
      lines: load.lines.length,
      ...(load.torn ? { torn: load.torn } : {}),
      ...(orphans.length > 0 ? { orphans } : {}),
    };
  }

  /**
   * Announces the id of a turn that is still running, so that turns of a child entity it spawns can
   * hang from it before it is itself recorded (COMP-5): the child's turns reach the loom as they happen
   * (LOOM-1), and the spawning turn follows when its gate calls are done. In storage a child's lines may
   * therefore precede their parent's line; the loader accepts that.
   */
  reserve(id: string): void {
    if (this.#turns.has(id)) throw new CantripError('loom_append_only', `turn ${id} is already in the loom`);
    this.#reserved.push(id);
  }

  /** How many turns the loom holds. */
  get size(): number {
    return this.#order.length;
  }

  /**
   * Records a turn and returns the stored, deep-frozen copy (LOOM-1, LOOM-2). The id must be new
   * (`loom_append_only` otherwise: a turn cannot be replaced) and the parent must already be in the loom
   * or null (`unknown_turn`). The line reaches storage before the turn is indexed, so a failed write
   * leaves the loom exactly as it was, and a returned turn is already recorded.
   */
  append(turn: Turn): Turn {
    const problem = turnProblem(turn);
    if (problem !== undefined) throw new TypeError(`loom append: ${problem}`);
    if (this.#turns.has(turn.id)) {
      throw new CantripError('loom_append_only', `turn ${turn.id} is already in the loom and cannot be replaced`);
    }
    if (turn.parent_id !== null && !this.#turns.has(turn.parent_id) && !this.#reserved.includes(turn.parent_id)) {
      throw new CantripError('unknown_turn', `turn ${turn.id}: parent ${turn.parent_id} is not in the loom`);
    }
    const stored = sealTurn(turn);
    this.#storage.append(Object.freeze({ kind: 'turn', turn: stored }));
    this.#index(stored);
    this.#unreserve(stored.id);
    return stored;
  }

  /**
   * Sets or clears a turn's reward: the one change the loom allows (LOOM-3). Recorded as a new
   * `reward` line, so storage stays append-only. Returns the turn with its new reward.
   */
  annotateReward(id: string, reward: number | null): Turn {
    this.get(id);
    const problem = rewardProblem(reward);
    if (problem !== undefined) throw new TypeError(`turn ${id}: ${problem}`);
    this.#storage.append(Object.freeze({ kind: 'reward', turn_id: id, reward }));
    return this.#setReward(id, reward);
  }

  /**
   * Always refuses (LOOM-3): stored turns cannot be changed. It exists so that an attempt to edit a turn
   * fails with a code (`loom_append_only`, or `unknown_turn` for an id that is not stored) instead of
   * being impossible to express. Rewards go through {@link annotateReward}.
   */
  amend(id: string, field: string, _value: unknown): never {
    this.get(id);
    const hint = field === 'reward' ? '; use annotateReward' : '';
    throw new CantripError('loom_append_only', `turn ${id}: field ${JSON.stringify(field)} cannot be changed after append${hint}`);
  }

  /** Whether a turn with this id is stored. */
  has(id: string): boolean {
    return this.#turns.has(id);
  }

  /** The stored turn with its current reward; `unknown_turn` if absent. */
  get(id: string): Turn {
    const turn = this.#turns.get(id);
    if (!turn) throw new CantripError('unknown_turn', `turn ${id} is not in the loom`);
    return turn;
  }

  /** Every turn, in append order, with current rewards. */
  turns(): Turn[] {
    return this.#order.map((id) => this.get(id));
  }

  /** The turns whose parent is `id`, in append order. */
  children(id: string): Turn[] {
    this.get(id);
    return this.#childIds(id).map((child) => this.get(child));
  }

  /** Turns without a parent: the call turns of top-level cantrips (CALL-4). */
  roots(): Turn[] {
    return this.turns().filter((turn) => turn.parent_id === null);
  }

  /** Turns without children, in append order: where the threads end. */
  leaves(): Turn[] {
    return this.turns().filter((turn) => !this.#children.has(turn.id));
  }

  /** The path from the root down to `id`, inclusive (LOOM-4: a fork's starting context). */
  pathTo(id: string): Turn[] {
    const path: Turn[] = [];
    for (let turn: Turn | undefined = this.get(id); turn; turn = turn.parent_id === null ? undefined : this.get(turn.parent_id)) {
      path.push(turn);
    }
    return path.reverse();
  }

  /**
   * The thread ending at `leafId`: its root-to-leaf path (LOOM-10). `unknown_turn` for an id not stored;
   * a RangeError when the turn has children (use {@link pathTo} for a prefix of a thread).
   */
  thread(leafId: string): Turn[] {
    const childCount = this.#childIds(leafId).length;
    if (childCount > 0) throw new RangeError(`turn ${leafId} is not a leaf (it has ${childCount} children)`);
    return this.pathTo(leafId);
  }

  /** Every thread: one root-to-leaf path per leaf, in the leaves' append order (LOOM-10). */
  threads(): Turn[][] {
    return this.leaves().map((leaf) => this.pathTo(leaf.id));
  }

  /**
   * The default export of the whole loom (PROD-8: it carries no secret): every turn in append order as
   * JSONL, redacted when a redactor was given, like a thread's export; read back, it is a loom file.
   */
  exportAll(): string {
    return threadToJsonl(this.turns(), this.#redact);
  }

  /** The thread ending at `leafId` as JSONL, redacted when a redactor was given (LOOM-10). */
  exportThread(leafId: string): string {
    return threadToJsonl(this.thread(leafId), this.#redact);
  }

  #replay(line: LoomLine, lineNumber: number, awaited: Map<string, number>): void {
    const fail = (reason: string): never => {
      throw new LoomLoadError(this.#storage.location ?? 'storage', lineNumber, reason);
    };
    const problem = loomLineProblem(line);
    if (problem !== undefined) fail(problem);
    if (line.kind === 'reward') {
      if (!this.#turns.has(line.turn_id)) fail(`reward for turn ${line.turn_id}, which is not stored before it`);
      this.#setReward(line.turn_id, line.reward);
      return;
    }
    const { id, parent_id } = line.turn;
    if (this.#turns.has(id)) fail(`turn ${id} appears twice`);
    // A child's turns are written while its spawning turn is still running, so a parent may come later.
    if (parent_id !== null && !this.#turns.has(parent_id) && !awaited.has(parent_id)) awaited.set(parent_id, lineNumber);
    awaited.delete(id);
    this.#index(deepFreeze(line.turn));
  }

  #unreserve(id: string): void {
    const at = this.#reserved.indexOf(id);
    if (at < 0) return;
    this.#reserved[at] = this.#reserved[this.#reserved.length - 1]!;
    this.#reserved.pop();
  }

  #index(turn: Turn): void {
    this.#turns.set(turn.id, turn);
    this.#order.push(turn.id);
    if (turn.parent_id === null) return;
    const siblings = this.#children.get(turn.parent_id);
    if (siblings === undefined) this.#children.set(turn.parent_id, turn.id);
    else if (typeof siblings === 'string') this.#children.set(turn.parent_id, [siblings, turn.id]);
    else siblings.push(turn.id);
  }

  #childIds(id: string): string[] {
    const children = this.#children.get(id);
    return children === undefined ? [] : typeof children === 'string' ? [children] : children;
  }

  #setReward(id: string, reward: number | null): Turn {
    const updated = Object.freeze({ ...this.get(id), reward });
    this.#turns.set(id, updated);
    return updated;
  }
}

/**
 * Knows when a cast's outcome is already decided, so that a query the implementation makes after that
 * point (LOOP-4 lets it ask its crystal for a summary of a truncated cast) is answered without taking
 * a step of the case's script, which belongs to the turns of this or a later cast.
 *
 * Every test here is a certainty, never a guess from how fast the machine is:
 * - the turn cap: the crystal already answered `max_turns` turns of this entity in this action (for a
 *   child, the cap is the smaller of the parent's and the one its scripted request asks for, WARD-1);
 * - the token budget: the usage served to this entity in this cast already reached `max_tokens` (a
 *   budget may count the entity's whole life or each cast; only the per-cast sum is certain in both);
 * - the wall clock: a scripted wait longer than `timeout_ms` (a slow gate, a slow crystal, a slow child)
 *   is still running when the entity queries again, so the turn it belonged to was abandoned (a gate
 *   call blocks its turn, CIRCLE-3), or such a wait began longer than `timeout_ms` ago, so the
 *   implementation's deadline, which started before it, has certainly passed;
 * - refusals in a row (feature `verifier-wards`): the calls the crystal already served this entity, as
 *   the case's verifiers judge them, ended with `max_rejections` refused calls in a row.
 * One such query is a summary; a second one means the loop did not stop, and the mock crystal fails it.
 * A reply whose `done` call the implementation must accept (doneIsCertain) decides the outcome too, but
 * leaves no room for a summary: any query after it breaks LOOP-3 (and CIRCLE-8: calling done ends the loop).
 * Entities are told apart by the intent of the request (EntityLanes.entityIntent, INTENT-2) on a crystal
 * children use; on any other crystal only the action's own entity asks, whatever its messages say.
 */
import type { WardSetup } from '../../schemas/adapter.ts';
import type { ToolCall } from '../../schemas/records.ts';
import { scriptSteps, type LoadedCase, type ScriptStep } from '../case-file/index.ts';
import { EntityLanes } from './entity-lanes.ts';
import { refusalJudge, type VerdictOnCall } from './verifier-prediction.ts';

/** What the watch needs to know about the case. */
export interface WatchedCase {
  crystal: string | undefined;
  wards: WardSetup;
  /** Crystals that child entities use. */
  childCrystals: ReadonlySet<string>;
  /** For each child intent the scripts delegate, the turn cap the request asks for. */
  childTurnCaps: ReadonlyMap<string, number>;
  /** Whether the case's verifiers refuse a call; absent when the case sets none. */
  refuses?: VerdictOnCall;
  /**
   * Whether a scripted, well-formed `done` call with an answer certainly ends its cast: the circle is a
   * conversation whose setup gives done and keeps it, and nothing the case sets lets an implementation refuse it or cut the turn off before
   * it runs (no verifiers or child limits, no argument schema of the author's choosing for done, no wall-clock ward, no
   * `tool_choice: none`). A token budget the reply used up is checked per query (doneEnded).
   */
  doneIsCertain?: boolean;
}

/**
 * `childCrystals`: the crystals children query. A crystal scripted per entity (`by_entity`) is not one of
 * them here: its lanes are, since the mock crystal hands the watch a lane of a shared crystal as if it
 * were a crystal of its own (drive/entity-lanes.ts).
 */
export function watchedCase(c: LoadedCase, childCrystals: ReadonlySet<string>): WatchedCase {
  const lanes = new EntityLanes(c);
  childCrystals = new Set([...[...childCrystals].filter((k) => !lanes.isShared(k)), ...lanes.childLanes]);
  const childTurnCaps = new Map<string, number>();
  const steps: ScriptStep[] = scriptSteps(c);
  const note = (request: unknown): void => {
    if (request === null || typeof request !== 'object') return;
    const { intent, max_turns } = request as { intent?: unknown; max_turns?: unknown };
    if (typeof intent === 'string' && typeof max_turns === 'number') childTurnCaps.set(intent, max_turns);
  };
  for (const step of steps) {
    for (const call of step.tool_calls ?? []) {
      if (call.gate === 'call_entity') note(call.args);
      if (call.gate === 'call_entity_batch') for (const entry of ((call.args as { intents?: unknown[] } | undefined)?.intents ?? [])) note(entry);
    }
  }
  const circle = c.setup.circle;
  const gates = new Set((circle?.gates ?? []).map((g) => (typeof g === 'string' ? g : g.name)));
  const refuses = circle?.verifiers ? refusalJudge(circle.verifiers, gates) : undefined;
  const wards = circle?.wards ?? {};
  const doneWithSchema = (circle?.gates ?? []).some((g) => typeof g !== 'string' && g.name === 'done' && g.parameters !== undefined);
  // A setup that gives no done, or wards it off, may be built without it (CIRCLE-1 from 0.2.0 says only that done is offered): then a done call may find no gate.
  const doneGiven = gates.has('done') && !(wards.remove_gates ?? []).includes('done');
  const doneIsCertain =
    doneGiven && circle?.medium === 'conversation' && !circle.verifiers && !circle.child_limits && !doneWithSchema && wards.timeout_ms === undefined && c.setup.tool_choice !== 'none';
  return { crystal: c.setup.crystal, wards, childCrystals, childTurnCaps, ...(refuses && { refuses }), doneIsCertain };
}

export class OutcomeWatch {
  private action = -1;
  private timeoutPassedAt = Number.POSITIVE_INFINITY;
  private longWaitsRunning = 0;
  private readonly turns = new Map<string, number>();
  private readonly tokens = new Map<string, number>();
  /** Per entity: the refused calls in a row at the end of what it was served. */
  private readonly refusals = new Map<string, number>();
  private readonly afterOutcome = new Map<string, number>();
  /** Entities (turn keys) served a reply whose done call ends their cast. */
  private readonly endedByDone = new Set<string>();
  /** Entities (turn keys) served a reply that calls done at all, in this action. */
  private readonly calledDone = new Set<string>();

  constructor(
    private readonly watched: WatchedCase,
    private readonly now: () => number,
  ) {}

  /** Whether children query this crystal (or lane of a shared one). */
  isChildCrystal(crystal: string): boolean {
    return this.watched.childCrystals.has(crystal);
  }

  /** A new action began: turn counts and the wall clock start over. */
  beginAction(index: number): void {
    this.action = index;
    this.timeoutPassedAt = Number.POSITIVE_INFINITY;
  }

  /** A scripted wait (a gate's or the crystal's delay) of `ms` began now; call the result when it ends. */
  noteWait(ms: number): () => void {
    const limit = this.watched.wards.timeout_ms;
    if (limit === undefined || ms <= limit) return () => undefined;
    this.timeoutPassedAt = Math.min(this.timeoutPassedAt, this.now() + limit);
    this.longWaitsRunning++;
    let ended = false;
    return () => {
      if (!ended) this.longWaitsRunning--;
      ended = true;
    };
  }

  /** The crystal answered a turn of the entity whose intent is `intent`. */
  noteAnswer(crystal: string, intent: string | undefined, usage: { prompt: number; completion: number } | undefined, calls: readonly ToolCall[] = []): void {
    const key = this.turnKey(crystal, intent);
    this.turns.set(key, (this.turns.get(key) ?? 0) + 1);
    if (usage) this.tokens.set(key, (this.tokens.get(key) ?? 0) + usage.prompt + usage.completion);
    const refuses = this.watched.refuses;
    if (refuses) {
      let streak = this.refusals.get(key) ?? 0;
      for (const call of calls) streak = refuses(call.gate, call.arguments) ? streak + 1 : 0;
      this.refusals.set(key, streak);
    }
  }

  /** The crystal served this entity a reply that calls `done`; `certain`: one it must accept (the caller checked the reply). */
  noteDone(crystal: string, intent: string | undefined, certain: boolean): void {
    this.calledDone.add(this.turnKey(crystal, intent));
    if (certain && this.watched.doneIsCertain && this.tellsEntitiesApart(crystal)) this.endedByDone.add(this.turnKey(crystal, intent));
  }

  /** Whether this entity was served a reply that calls done in this action (not a done of an earlier cast its messages may still hold). */
  servedDone(crystal: string, intent: string | undefined): boolean {
    return this.calledDone.has(this.turnKey(crystal, intent));
  }

  /** Whether this entity's cast was already ended by a done call it had to accept: any further query breaks LOOP-3. */
  doneEnded(crystal: string, intent: string | undefined): boolean {
    const key = this.turnKey(crystal, intent);
    // A budget spent by then may have cut the turn off before done ran: the query may be a summary (LOOP-4).
    const budget = this.watched.wards.max_tokens;
    if (budget !== undefined && (this.tokens.get(key) ?? 0) >= budget) return false;
    return this.endedByDone.has(key);
  }

  /**
   * The rules a query breaks that comes after a ward decided the outcome and after the one summary
   * query LOOP-4 leaves room for: the loop did not stop (LOOP-4) and the circle did not enforce its
   * ward (CIRCLE-6). For a child held by its parent's turn cap (smaller than its own, or its only
   * one) the ward it broke is the composed one (WARD-1).
   */
  wardRules(crystal: string, intent: string | undefined): string[] {
    const main = this.watched.wards.max_turns;
    if (crystal !== this.watched.crystal && this.watched.childCrystals.has(crystal) && main !== undefined && (this.turns.get(this.turnKey(crystal, intent)) ?? 0) >= main) {
      const own = intent === undefined ? undefined : this.watched.childTurnCaps.get(intent);
      if (own === undefined || main <= own) return ['WARD-1'];
    }
    return ['LOOP-4', 'CIRCLE-6'];
  }

  /** Counts a query made after the outcome was decided; returns how many this entity made in this action. */
  takeAfterOutcome(crystal: string, intent: string | undefined): number {
    const key = this.turnKey(crystal, intent);
    const n = (this.afterOutcome.get(key) ?? 0) + 1;
    this.afterOutcome.set(key, n);
    return n;
  }

  /** Why a query of this entity now comes after its cast's outcome was decided, or undefined if it does not. */
  decided(crystal: string, intent: string | undefined): string | undefined {
    const key = this.turnKey(crystal, intent);
    const cap = this.turnCap(crystal, intent);
    if (cap !== undefined && (this.turns.get(key) ?? 0) >= cap) return `the ${cap} turns the cap allows were already answered`;
    const budget = this.watched.wards.max_tokens;
    // A child's budget is at most its parent's (WARD-1), so the same sum decides a child's cast too.
    if (budget !== undefined && this.tellsEntitiesApart(crystal) && (this.tokens.get(key) ?? 0) >= budget) return `the token budget of ${budget} was already spent in this cast`;
    // A child runs its parent's verifiers under at most its parent's bound (WARD-1), so the same count decides its cast too.
    const bound = this.watched.wards.max_rejections;
    if (bound !== undefined && this.tellsEntitiesApart(crystal) && (this.refusals.get(key) ?? 0) >= bound) return `the ${bound} refused calls in a row that max_rejections allows were already answered`;
    if (crystal === this.watched.crystal && !this.watched.childCrystals.has(crystal)) {
      if (this.longWaitsRunning > 0) return `a scripted wait longer than the ${this.watched.wards.timeout_ms} ms wall-clock ward is still running`;
      if (this.now() > this.timeoutPassedAt) return `a scripted wait outlasted the ${this.watched.wards.timeout_ms} ms wall-clock ward`;
    }
    return undefined;
  }

  /** Whether one entity's queries to this crystal can be told from another's: the main crystal unshared, or a children's crystal. */
  private tellsEntitiesApart(crystal: string): boolean {
    const shared = this.watched.childCrystals.has(crystal);
    return crystal === this.watched.crystal ? !shared : shared;
  }

  private turnCap(crystal: string, intent: string | undefined): number | undefined {
    const main = this.watched.wards.max_turns;
    if (crystal === this.watched.crystal) return this.watched.childCrystals.has(crystal) ? undefined : main;
    if (!this.watched.childCrystals.has(crystal)) return undefined;
    const asked = intent === undefined ? undefined : this.watched.childTurnCaps.get(intent);
    if (main === undefined) return asked;
    return asked === undefined ? main : Math.min(main, asked);
  }

  /** One entity's queries in this action: by crystal alone where only the action's entity asks, else by intent too. */
  private turnKey(crystal: string, intent: string | undefined): string {
    const byIntent = this.watched.childCrystals.has(crystal) || crystal !== this.watched.crystal;
    return `${this.action}\u0000${crystal}\u0000${byIntent ? (intent ?? '') : ''}`;
  }
}

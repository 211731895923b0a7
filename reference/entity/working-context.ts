import type { Message } from '../../schemas/index.ts';
import { contextView, sealMessage } from './context-view.ts';

/**
 * An entity's working context: what the crystal is shown, as opposed to what happened (the loom).
 *
 * Underneath is an append-only log of frozen messages that only grows (ENTITY-3). On top of it, two
 * views that trim without deleting: folding (§6.8) shows a marked summary in place of older turns, and
 * ephemeral gates (PROD-5) have their results replaced by a short reference one turn later. The call
 * always comes first and is never folded (LOOM-6, CALL-5); the current cast's intent is kept (LOOP-5).
 */
export class WorkingContext {
  readonly #call: readonly Message[];
  readonly #log: Message[] = [];
  readonly #overrides = new Map<number, Message>();
  /** Where each turn's messages start in the log, and that turn's sequence (parallel lists, no object per turn). */
  readonly #startIndex: number[] = [];
  readonly #startSequence: number[] = [];
  #foldedUntil = 0;
  /** What every view starts with: the call, then (after a fold) the kept intent and the summary. Only a fold changes it. */
  #head: readonly Message[];
  #intentIndex: number | undefined;
  #ephemeralPending: number[] = [];
  #ephemeralDue: { index: number; replacement: Message }[] = [];

  constructor(call: readonly Message[], history: readonly Message[] = []) {
    this.#call = call.map((message) => sealMessage({ ...message }));
    this.#head = this.#call;
    for (const message of history) this.#log.push(sealMessage(message));
  }

  /** Everything remembered, oldest first, untrimmed. */
  get log(): readonly Message[] {
    return this.#log;
  }

  /** Appends a message; returns its index in the log. */
  remember(message: Message): number {
    this.#log.push(sealMessage(message));
    return this.#log.length - 1;
  }

  /** Appends a cast's intent and keeps its place, so folding never hides it (LOOP-5, INTENT-2). */
  rememberIntent(intent: string): void {
    this.#intentIndex = this.remember({ role: 'user', content: intent });
  }

  /** Notes where the turn with this sequence begins, for folding. */
  startTurn(sequence: number): void {
    this.#startSequence.push(sequence);
    this.#startIndex.push(this.#log.length);
  }

  /** PROD-5: a message holding an ephemeral result, to be replaced by `replacement` after the next turn. */
  markEphemeral(index: number, replacement: Message): void {
    this.#ephemeralPending.push(index);
    this.#ephemeralDue.push({ index, replacement });
  }

  /**
   * Called when a turn ends: results marked ephemeral in an EARLIER turn are now trimmed from the view
   * (the entity had its next turn to read them); those from this turn wait one more turn.
   */
  endTurn(): void {
    if (this.#ephemeralDue.length === 0) return;
    const keep = new Set(this.#ephemeralPending);
    this.#ephemeralPending = [];
    this.#ephemeralDue = this.#ephemeralDue.filter(({ index, replacement }) => {
      if (keep.has(index)) return true;
      this.#overrides.set(index, sealMessage(replacement));
      return false;
    });
  }

  /** Sequences of the turns still shown in full, oldest first. */
  unfoldedTurns(): number[] {
    return this.#startSequence.filter((_, turn) => this.#startIndex[turn]! >= this.#foldedUntil);
  }

  /**
   * Folds every shown turn but the last `keepRecent` into `summary` (§6.8, LOOM-5: a view, the log is
   * untouched). Returns the folded range of sequences, or undefined when there is nothing to fold.
   */
  fold(keepRecent: number, summary: (fromSequence: number, toSequence: number) => string): { from: number; to: number } | undefined {
    const shown = this.#startIndex.flatMap((index, turn) => (index >= this.#foldedUntil ? [turn] : []));
    if (shown.length <= keepRecent) return undefined;
    const firstKept = shown[shown.length - keepRecent];
    const until = firstKept === undefined ? this.#log.length : this.#startIndex[firstKept]!;
    const from = this.#startSequence[0]!;
    const to = this.#startSequence[shown[shown.length - keepRecent - 1]!]!;
    this.#foldedUntil = until;
    const pinned = this.#intentIndex !== undefined && this.#intentIndex < until ? [this.#log[this.#intentIndex]!] : [];
    this.#head = [...this.#call, ...pinned, sealMessage({ role: 'user', content: summary(from, to) })];
    return { from, to };
  }

  /** The context for the next query, in constant time: call, fold summary, then the shown log. */
  view(): Message[] {
    return contextView(this.#head, this.#log, this.#foldedUntil, this.#overrides);
  }
}

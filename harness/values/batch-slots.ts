/**
 * A batch gate's results as the entity saw them. COMP-3 asks for one result per child in request order;
 * from 0.2.0 a gate's result is text (§4.3 `result: string`) and no draft says how a list is rendered as
 * text. So an implementation may present a batch's results as a list (or JSON text of one), or as text
 * of its own making ("1. S\n2. M", a language's own list syntax, one answer a line). The kit reads
 * either: a list slot by slot, text by finding each child's answer in it, in order.
 *
 * In text an answer is found as a whole token (not inside a longer word or number), so "a" is not found
 * in "batch". What cannot be known from text is how many slots it holds; the list form is held to its
 * length.
 */
import { asSeen, sameAsSeen } from './seen-as.ts';

/**
 * What one slot of a batch must show: a child's answer; the error of a child that failed (something
 * that is not empty and not a sibling's answer); or anything at all (a child whose result the spec
 * leaves to the implementation, such as one cut off by its cap).
 */
export type BatchSlot = { answer: unknown } | { error: true } | { any: true };

/**
 * How the slots are compared: in request order (COMP-3), or, with `any_order`, each answer anywhere and
 * an error beside them (what a child gave, whatever the order: COMP-2, COMP-8).
 */
export interface BatchExpectation {
  slots: BatchSlot[];
  any_order?: true;
}

export type BatchVerdict = { ok: true } | { ok: false; why: string };

const PASS: BatchVerdict = { ok: true };

/** Whether `actual`, a batch's results as the implementation presents them, shows `expected`. */
export function batchShows(actual: unknown, expected: BatchExpectation): BatchVerdict {
  const seen = asSeen(actual);
  if (Array.isArray(seen)) return listShows(seen, expected);
  if (actual === undefined || actual === null) return { ok: false, why: 'no results' };
  const text = typeof actual === 'string' ? actual : JSON.stringify(actual);
  return textShows(text, expected);
}

function listShows(list: unknown[], { slots, any_order }: BatchExpectation): BatchVerdict {
  if (list.length !== slots.length) return { ok: false, why: `${list.length} results, expected one per child (${slots.length})` };
  const answers = slots.flatMap((s) => ('answer' in s ? [s.answer] : []));
  if (any_order && slots.some((s) => 'error' in s) && !list.some((entry) => carriesSomething(entry, answers))) return { ok: false, why: 'no result carries an error' };
  for (const [i, slot] of slots.entries()) {
    if ('answer' in slot) {
      const found = any_order ? list.some((entry) => entryShows(entry, slot.answer)) : entryShows(list[i], slot.answer);
      if (!found) return { ok: false, why: any_order ? `no result shows ${JSON.stringify(slot.answer)}` : `result [${i}] does not show ${JSON.stringify(slot.answer)}` };
    } else if ('error' in slot && !any_order && !carriesSomething(list[i], answers)) {
      return { ok: false, why: `result [${i}] carries no error` };
    }
  }
  return PASS;
}

/** An entry shows an answer when it is the answer as seen, holds it under some key, or is text naming it. */
function entryShows(entry: unknown, answer: unknown): boolean {
  if (sameAsSeen(entry, answer)) return true;
  if (typeof entry === 'string') return tokenAt(entry, rendered(answer), 0) >= 0;
  if (Array.isArray(entry)) return entry.some((e) => entryShows(e, answer));
  if (entry !== null && typeof entry === 'object') return Object.values(entry).some((e) => entryShows(e, answer));
  return false;
}

/** A failed child's entry: present, not empty, and not the answer of a child that succeeded. */
function carriesSomething(entry: unknown, answers: unknown[]): boolean {
  if (entry === undefined || entry === null) return false;
  if (typeof entry === 'string' && !/[\p{L}\p{N}]/u.test(entry)) return false;
  return !answers.some((a) => sameAsSeen(entry, a));
}

function textShows(text: string, { slots, any_order }: BatchExpectation): BatchVerdict {
  if (any_order) {
    let rest = text;
    for (const slot of slots) {
      if (!('answer' in slot)) continue;
      const word = rendered(slot.answer);
      const at = tokenAt(rest, word, 0);
      if (at < 0) return { ok: false, why: `the text does not show ${JSON.stringify(slot.answer)}` };
      rest = `${rest.slice(0, at)} ${rest.slice(at + word.length)}`;
    }
    // An error slot: once every answer is taken out, words or digits are left.
    return slots.some((s) => 'error' in s) && !hasWords(rest) ? { ok: false, why: 'the text shows no error beside the answers' } : PASS;
  }
  // Walk the text once: each answer after the one before; an error slot needs words or digits in the
  // stretch between its neighbours' answers.
  let from = 0;
  let pendingError: number | undefined;
  for (const [i, slot] of slots.entries()) {
    if ('answer' in slot) {
      const word = rendered(slot.answer);
      const at = tokenAt(text, word, from);
      if (at < 0) return { ok: false, why: `the text does not show ${JSON.stringify(slot.answer)} after the results before it (slot ${i})` };
      if (pendingError !== undefined && !hasWords(text.slice(from, at))) return { ok: false, why: `the text shows no error in slot ${pendingError}` };
      pendingError = undefined;
      from = at + word.length;
    } else if ('error' in slot) {
      pendingError = i;
    }
  }
  if (pendingError !== undefined && !hasWords(text.slice(from))) return { ok: false, why: `the text shows no error in slot ${pendingError}` };
  return PASS;
}

const hasWords = (stretch: string): boolean => /[\p{L}\p{N}]/u.test(stretch);

/** An answer as text shows it: a string as itself, any other value as its JSON. */
const rendered = (answer: unknown): string => (typeof answer === 'string' ? answer : JSON.stringify(answer));

const isWordChar = (c: string | undefined): boolean => c !== undefined && /[\p{L}\p{N}_]/u.test(c);

/** Where `word` first occurs in `text` at or after `from` as a whole token; -1 when it does not. */
function tokenAt(text: string, word: string, from: number): number {
  // An empty answer shows nowhere and everywhere in text: it is taken as found where the search stands.
  if (word.length === 0) return from;
  for (let at = text.indexOf(word, from); at >= 0; at = text.indexOf(word, at + 1)) {
    const edgesOk = (!isWordChar(word[0]) || !isWordChar(text[at - 1])) && (!isWordChar(word[word.length - 1]) || !isWordChar(text[at + word.length]));
    if (edgesOk) return at;
  }
  return -1;
}

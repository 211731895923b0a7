/**
 * Which query a stored turn answered, read from what every draft has the turn keep of the reply: its gate
 * calls, each with the gate's name and its arguments (0.1.0 §4.3 `gate` and parsed `arguments`; 0.2.0 on
 * `gate_name` and `arguments` as text). The call ids, the results and the utterance are left out on
 * purpose: a loom need not keep ids (issue 21), a result may be kept as the text the entity saw, and how an
 * utterance renders a reply is the implementation's own. A turn that keeps no gate call (a text turn, a
 * turn stored for a failed query) answers nothing the harness can name, and is placed nowhere.
 *
 * The drive uses it to tell a turn stored under an entity nobody produced (ENTITY-1) from a child's turn:
 * each query is filed under the lane of the entity that asked it (drive/entity-lanes.ts), so a turn that
 * can only be the answer to queries of the actions' own entities is theirs, whatever entity it names.
 */
import type { Turn } from '../../schemas/records.ts';
import { deepEqual } from '../values/index.ts';
import type { QueryRecord } from './mock-crystal.ts';

/** One gate call as a reply made it or a turn kept it: the gate's name and its arguments as JSON. */
interface CallSeen {
  gate: string;
  arguments: unknown;
}

/** Arguments as JSON where they are JSON text (a reply's always are; a later draft's record keeps them as text). */
function argumentsOf(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/** The calls a turn keeps; undefined when a record names no gate, so nothing can be said of the turn. */
function keptCalls(turn: Turn): CallSeen[] | undefined {
  const records: unknown[] = Array.isArray(turn.gate_calls) ? turn.gate_calls : [];
  const calls: CallSeen[] = [];
  for (const record of records) {
    if (record === null || typeof record !== 'object') return undefined;
    const r = record as { gate?: unknown; gate_name?: unknown; arguments?: unknown };
    const gate = typeof r.gate === 'string' ? r.gate : r.gate_name;
    if (typeof gate !== 'string') return undefined;
    calls.push({ gate, arguments: argumentsOf(r.arguments) });
  }
  return calls;
}

/**
 * The calls of the reply a query was served, as they went out; undefined when it was served no reply. A raw
 * (possibly invalid) reply counts too: an implementation may still keep a turn for it, and a candidate
 * more only makes the placement less certain, never wrongly certain.
 */
function repliedCalls(q: QueryRecord): CallSeen[] | undefined {
  if (!q.reply.ok) return undefined;
  const calls: unknown = q.reply.response?.tool_calls;
  if (!Array.isArray(calls)) return [];
  return calls.flatMap((c: unknown) => {
    const call = c as { gate?: unknown; arguments?: unknown } | null;
    return typeof call?.gate === 'string' ? [{ gate: call.gate, arguments: argumentsOf(call.arguments) }] : [];
  });
}

/** Whether each kept call is a distinct call of the reply (a turn may leave out calls it skipped, LOOP-3). */
function keptFrom(kept: CallSeen[], replied: CallSeen[]): boolean {
  const left = [...replied];
  for (const call of kept) {
    // A record without arguments still names its gate; its arguments then cannot tell replies apart.
    const at = left.findIndex((r) => r.gate === call.gate && (call.arguments === undefined || deepEqual(r.arguments, call.arguments)));
    if (at < 0) return false;
    left.splice(at, 1);
  }
  return true;
}

/**
 * The queries whose reply `turn` may record: every query served a reply that made each gate call the
 * turn keeps. Empty when the turn keeps no gate call, or none that a reply made.
 */
export function queriesAnsweredBy(turn: Turn, queries: readonly QueryRecord[]): QueryRecord[] {
  const kept = keptCalls(turn);
  if (kept === undefined || kept.length === 0) return [];
  return queries.filter((q) => {
    const replied = repliedCalls(q);
    return replied !== undefined && keptFrom(kept, replied);
  });
}

/**
 * A turn, among `turns`, that can only have recorded the reply to a query of the actions' own entities:
 * some query's reply matches it and every such query was asked by an action's entity, none by a child
 * (`childLane`: the lanes children query, and the lane of requests nobody could place). Undefined when
 * there is none, or when the evidence fits a child as well: then nothing is certain.
 */
export function turnOfAnActionsQuery(turns: readonly Turn[], queries: readonly QueryRecord[], childLane: (lane: string) => boolean): { turn: Turn; query: QueryRecord } | undefined {
  for (const turn of turns) {
    const answered = queriesAnsweredBy(turn, queries);
    if (answered.length > 0 && answered.every((q) => !childLane(q.lane))) return { turn, query: answered[0]! };
  }
  return undefined;
}

/**
 * Where a run left its script, found once an action is over. The mock crystal names the rule of a query
 * it should never have been sent (after an accepted done: LOOP-3; after a ward and its one summary:
 * LOOP-4). Some departures only show when the action returns: a cast that ended on a reply that cannot
 * end it, or a loom holding entities nobody produced. Each is a fault that names the rule whose sentence
 * was broken, so what the case's expectations read afterwards (a later cast served the steps this one
 * should have used, a loom helper that finds no turns) counts as its consequence, not as a failure of
 * their own rules (harness/run/run.ts, failedRulesOf). Every test here is a certainty:
 * - **LOOP-6**: under `require_done` the cast came back `terminated` and the last reply its entity was
 *   served is text only (no gate call, non-empty text): only done may end such a cast.
 * - **CRYSTAL-5**: under `tool_choice: required` on a crystal declared unable to force tool use, the cast
 *   came back `terminated` on such a text-only reply: the forcing was not brought about.
 * - **LOOP-4, CIRCLE-6**: the cast came back `terminated` although the first `max_turns` replies its
 *   entity was served each certainly make a turn that does not end the cast (well-formed gate calls, no
 *   done among them; under require_done, non-empty text too): the turn cap had cut it off. Either
 *   reading of the cap (per cast, per entity) cuts it off there or sooner.
 * - **CANTRIP-2, ENTITY-2**: a cast came back with the entity an earlier cast, invocation or fork
 *   produced: every cast yields an entity of its own, with an id no other shares.
 * - **ENTITY-1**: the loom holds a turn, under an entity no action produced, that can only record the reply
 *   to a request an action's own entity made (harness/drive/answered-queries.ts): not a child's, whose
 *   requests are filed under the children's lanes. Or it holds more entities than the actions produced
 *   plus the children there can be:
 *   no more than the crystals' replies asked for (each `call_entity` one, each `call_entity_batch` entry
 *   one), and no more than the queries a children's crystal or lane received (a child with a turn
 *   queried at least once). Some entity then came from neither a cast nor an invocation. Not judged on a
 *   code circle, whose delegations the harness cannot count.
 * - **LOOM-7**: the loom holds more turns of a cast's entity than the queries that entity made in it, or
 *   more turns keeping nothing (no utterance, gate call record or observation) than queries answered
 *   with nothing: a turn that did not happen is stored (one more, empty, after the turn cap), so the turn
 *   that really ended the thread is not the one that says how it ended. A turn keeping only its
 *   observation happened (§6.1 makes no field of a turn required; LOOM-1 asks only that it be kept).
 * - **LOOM-1**: the loom holds fewer turns of a cast's entity than the well-formed replies it was served
 *   in it (each gate call turn and each text-only reply makes a turn): a turn was never written.
 * Conversation and code circles are judged for these: in both a reply makes one turn and its calls (or
 * the calls of the program it sends) are all the turn's. In a code circle a reply ends the cast only if
 * its program names the done function, and a text-only reply is the medium's to read, so LOOP-6 and
 * CRYSTAL-5 (text-only endings) are judged in conversation only. The last two
 * count turns against queries only where nothing else makes a turn without a reply or one turn of two
 * queries: no wall-clock ward or token budget (a cast cut off while it waits, or before it asks again,
 * stores a turn the crystal never answered), no folding, no forced tool use (a simulated forcing asks
 * again within one turn). They depart the loom only: what the case reads of the requests and outcomes is
 * still judged (harness/judge/consequences.ts).
 */
import type { CastOutcome } from '../../schemas/adapter.ts';
import { catalogOf } from '../../spec/drafts.ts';
import type { CrystalResponse, ToolCall, Turn } from '../../schemas/records.ts';
import type { DriveState } from './drive-state.ts';
import { UNPLACED_LANE, type CrystalFault, type QueryRecord } from './mock-crystal.ts';
import type { ActionTrace } from './run-record.ts';
import { turnOfAnActionsQuery } from './answered-queries.ts';

/**
 * Whether the case's circle is a conversation: named so, or naming no medium, which is a conversation
 * (MEDIUM-1 at 0.3.1; the only cases that leave the medium out are written for that draft). A circle
 * left without a medium is then checked for every departure a named conversation is.
 */
const onConversation = (state: DriveState): boolean => (state.prepared.setup.circle?.medium ?? 'conversation') === 'conversation';

/** Verbs that run an entity and come back with its outcome. */
const RUNS_AN_ENTITY = new Set(['cast', 'send', 'fork']);
const DELEGATION_GATES = new Set(['call_entity', 'call_entity_batch']);

const served = (q: QueryRecord): CrystalResponse | undefined => (q.after_outcome === undefined && q.reply.ok && !q.raw ? q.reply.response : undefined);
const callsOf = (r: CrystalResponse): ToolCall[] => r.tool_calls ?? [];
const textOnly = (r: CrystalResponse): boolean => callsOf(r).length === 0 && typeof r.content === 'string' && r.content.trim() !== '';
/** A done call with no argument at all: whatever done's answer argument is called, the call lacks it. */
function answerlessDone(c: ToolCall): boolean {
  if (c.gate !== 'done') return false;
  try {
    const args: unknown = JSON.parse(c.arguments);
    return args !== null && typeof args === 'object' && !Array.isArray(args) && Object.keys(args).length === 0;
  } catch {
    return false;
  }
}

/**
 * Whether a gate call of a reply may end the cast: `done` itself (from 0.2.0 not a done that lacks its
 * answer: LOOP-7), or, in a code circle, a program that names the done function anywhere (the kit's own
 * scripts call it by name, so one that never names it cannot call it; a program that cannot be read may).
 */
type MayEnd = (call: ToolCall) => boolean;

function mayEndIn(state: DriveState, answerlessDoneContinues: boolean): MayEnd {
  const doneEnds = (c: ToolCall): boolean => c.gate === 'done' && !(answerlessDoneContinues && answerlessDone(c));
  const sandbox = state.record.description.sandbox;
  if (state.prepared.setup.circle?.medium !== 'code' || sandbox === undefined) return doneEnds;
  const doneFunction = state.record.description.builtins?.done?.function ?? 'done';
  const names = new RegExp(`(?<![\\w$])${doneFunction.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w$])`);
  return (c) => {
    if (c.gate === 'done') return doneEnds(c);
    if (c.gate !== sandbox.tool) return false;
    try {
      const source = (JSON.parse(c.arguments) as Record<string, unknown>)[sandbox.argument];
      return typeof source !== 'string' || names.test(source);
    } catch {
      return true;
    }
  };
}

/**
 * A reply that makes a turn and does not end the cast, whatever the implementation's reading of open
 * choices. In a code circle a text-only reply is left to the medium (it may be read as code), so only
 * a program that cannot call done is certain. From 0.2.0 a done call that lacks its answer does not end
 * the cast either (LOOP-7), so a turn cap that lets such turns run past it is found there too, not left
 * to the LOOP-7 cases.
 */
function continuesForCertain(r: CrystalResponse, requireDone: boolean, mayEnd: MayEnd, code: boolean): boolean {
  const calls = callsOf(r);
  if (calls.length === 0) return !code && requireDone && textOnly(r);
  return new Set(calls.map((c) => c.id)).size === calls.length && !calls.some(mayEnd);
}

/** Whether the judged draft has the rule that a done without its answer does not terminate (LOOP-7, new at 0.2.0). */
function answerlessDoneContinuesAt(draft: string | undefined): boolean {
  return draft !== undefined && catalogOf(draft).rules.some((r) => r.id === 'LOOP-7') && !catalogOf('0.1.0').rules.some((r) => r.id === 'LOOP-7');
}

/** The circles whose turns the course is judged in: one turn per reply, a reply's calls (or its program's) all the turn's. */
const JUDGED_MEDIUMS: ReadonlySet<string> = new Set(['conversation', 'code']);

/**
 * Whether the course is judged in this circle: one medium it knows, a circle that names none being a
 * conversation (MEDIUM-1); a circle given two declarations is MEDIUM-1's case alone.
 */
function inJudgedMedium(medium: string | readonly string[] | undefined): boolean {
  const m = medium ?? 'conversation';
  return typeof m === 'string' && JUDGED_MEDIUMS.has(m);
}

/** The faults an action shows once it is over: each names the rule it breaks. */
export function courseFaults(state: DriveState, trace: ActionTrace): CrystalFault[] {
  const faults: CrystalFault[] = [];
  const outcome = state.record.outcomes[trace.name] as CastOutcome | undefined;
  if (RUNS_AN_ENTITY.has(trace.verb) && outcome?.status === 'terminated' && inJudgedMedium(state.prepared.setup.circle?.medium)) {
    const fault = endingFault(state, trace);
    if (fault) faults.push(realigned(state, trace, fault));
  }
  const composed = composedIntentFault(state, trace);
  if (composed) faults.push(composed);
  const reused = reusedEntityFault(state, trace);
  if (reused) faults.push(reused);
  const stray = strayEntityFault(state);
  if (stray) faults.push(stray);
  // After the stray entity: turns under an entity nobody produced cannot be counted per entity.
  const recorded = recordedTurnsFault(state, trace, faults);
  if (recorded) faults.push(recorded);
  return faults;
}

/**
 * A cast that ended before its script did leaves the rest of its steps unserved: moved past them, the
 * script answers the next action from its own steps, so what later actions come back with is still
 * judged, and the departure is that action's (harness/judge/consequences.ts). Only where the cast's own
 * queries all went to one lane and its remaining steps end within its turn cap.
 */
function realigned(state: DriveState, trace: ActionTrace, fault: CrystalFault): CrystalFault {
  const own = state.crystals.queries.filter((q) => q.action === trace.index && !state.crystals.childCrystal(q.lane) && q.after_outcome === undefined);
  const lanes = new Set(own.map((q) => q.lane));
  const cap = state.prepared.setup.circle?.wards?.max_turns;
  if (lanes.size !== 1 || cap === undefined) return fault;
  const lane = [...lanes][0]!;
  if (!state.crystals.realignAfter(lane, cap - own.length)) return fault;
  const through = state.crystals.queries.filter((q) => q.lane === lane && q.after_outcome === undefined && q.action <= trace.index).length - 1;
  return { ...fault, departs: [{ action: trace.name, lane, through }] };
}

/** A terminated cast that its replies could not have ended (LOOP-6, CRYSTAL-5, LOOP-4 / CIRCLE-6). */
function endingFault(state: DriveState, trace: ActionTrace): CrystalFault | undefined {
  const setup = state.prepared.setup;
  // The action's own entity: queries answered from its crystal's own script, not a children's crystal or lane.
  const own = state.crystals.queries.filter((q) => q.action === trace.index && !state.crystals.childCrystal(q.lane));
  const replies = own.flatMap((q) => {
    const r = served(q);
    return r ? [r] : [];
  });
  const last = own.at(-1);
  const lastReply = last ? served(last) : undefined;
  const code = setup.circle?.medium === 'code';
  // A text-only reply in a code circle is the medium's to read (it may run it as code): LOOP-6 and CRYSTAL-5 are judged in conversation only.
  if (!code && lastReply && textOnly(lastReply)) {
    if (setup.require_done === true) {
      return { kind: 'fail', message: `'${trace.name}' came back terminated on a text-only reply although require_done is set: only done may end the cast`, rules: ['LOOP-6'] };
    }
    const crystal = last ? state.case.crystals?.[last.crystal] : undefined;
    if (setup.tool_choice === 'required' && crystal?.forces_tool_use === false) {
      return { kind: 'fail', message: `'${trace.name}' came back terminated on a text-only reply although tool_choice is required and crystal '${last?.crystal}' cannot force tool use: the forcing was not brought about`, rules: ['CRYSTAL-5'] };
    }
  }
  const cap = setup.circle?.wards?.max_turns;
  if (cap === undefined || setup.folding !== undefined || replies.length < cap) return undefined;
  const mayEnd = mayEndIn(state, answerlessDoneContinuesAt(state.case.judged_draft));
  if (!replies.slice(0, cap).every((r) => continuesForCertain(r, setup.require_done === true, mayEnd, code))) return undefined;
  return { kind: 'fail', message: `'${trace.name}' came back terminated although its first ${cap} replies each made a turn that does not end the cast: the max_turns ward of ${cap} had cut it off`, rules: ['LOOP-4', 'CIRCLE-6'] };
}

/** The roles of a turn that records a crystal's reply: `crystal` until 0.2.0, `turn` at 0.3.1 (§6.1). */
const CRYSTAL_TURN_ROLES: ReadonlySet<string> = new Set(['crystal', 'turn']);

/** A well-formed reply, which makes a turn whatever the implementation reads into it: named gate calls with distinct ids, or text alone. */
function makesATurn(r: CrystalResponse): boolean {
  const calls = callsOf(r);
  if (calls.length === 0) return textOnly(r);
  return new Set(calls.map((c) => c.id)).size === calls.length && calls.every((c) => typeof c.gate === 'string' && c.gate !== '');
}

/** The turns the action stored for its entity against the queries that entity made (LOOM-7: one too many; LOOM-1: one missing). */
function recordedTurnsFault(state: DriveState, trace: ActionTrace, found: readonly CrystalFault[]): CrystalFault | undefined {
  const setup = state.prepared.setup;
  const circle = setup.circle;
  // An empty loom says nothing to count against: an implementation may answer loom() with no turns rather than refuse it.
  if (!RUNS_AN_ENTITY.has(trace.verb) || !inJudgedMedium(circle?.medium) || trace.entity === undefined || !trace.appended || !state.loomAvailable || state.record.loom.turns.length === 0) return undefined;
  if (circle?.wards?.timeout_ms !== undefined || circle?.wards?.max_tokens !== undefined || setup.folding !== undefined || setup.tool_choice === 'required') return undefined;
  // Turns under an entity nobody produced cannot be counted per entity (ENTITY-1 says what went wrong).
  if ([...state.faults, ...found].some((f) => f.rules?.includes('ENTITY-1') === true)) return undefined;
  const mine = state.crystals.queries.filter((q) => q.action === trace.index);
  const crystalTurns = trace.appended.filter((t) => CRYSTAL_TURN_ROLES.has(t.role as string));
  // A turn that keeps nothing (no utterance, no gate call, no observation) can stand only for a query that got no reply,
  // or an empty one, whichever entity of the action (its children too) it belongs to. A turn that keeps only its
  // observation (the gate results the circle returned, kept there rather than in gate_calls) is a turn that
  // happened, recorded thinly: §6.1 lists the fields of a turn but no rule makes the utterance or the records
  // required, and LOOM-1 asks only that the turn be kept, so it is never read as a turn that did not happen.
  const isEmpty = (t: Turn): boolean => (t.utterance ?? '') === '' && (t.gate_calls?.length ?? 0) === 0 && !keepsSomething((t as { observation?: unknown }).observation);
  // A failed query, a raw (possibly invalid, CRYSTAL-3/4) reply or an empty one may be stored as a turn that keeps nothing.
  const answeredWithNothing = (qs: readonly QueryRecord[]): number =>
    qs.filter((q) => !q.reply.ok || q.raw === true || !makesATurn(q.reply.response) || (callsOf(q.reply.response).length === 0 && (q.reply.response.content ?? '') === '')).length;
  const emptyTurns = crystalTurns.filter(isEmpty).length;
  const emptyable = answeredWithNothing(mine);
  if (emptyTurns > emptyable) return extraTurn(trace, `${emptyTurns} empty turns, but only ${emptyable} of its ${mine.length} queries were answered with nothing`);
  // Where children share the cast's crystal unscripted per entity, or a request went unplaced, the entity's own queries cannot be told apart.
  const main = state.case.setup.crystal;
  if (mine.some((q) => q.lane === UNPLACED_LANE || (q.lane === main && state.crystals.childCrystal(q.lane)))) return undefined;
  const own = mine.filter((q) => !state.crystals.childCrystal(q.lane));
  const turns = crystalTurns.filter((t) => t.entity_id === trace.entity);
  if (turns.length > own.length) return extraTurn(trace, `${turns.length} turns for its entity, which queried its crystal ${own.length} times`);
  const made = own.filter((q) => {
    const r = served(q);
    return r !== undefined && makesATurn(r);
  }).length;
  if (turns.length >= made) return undefined;
  return {
    kind: 'fail',
    message: `'${trace.name}' stored ${turns.length} turns for its entity, but the entity was served ${made} replies that each make a turn: a turn was never written to the loom`,
    rules: ['LOOM-1'],
    departs: ['loom'],
  };
}

/**
 * INTENT-2: a send whose intent reached the crystal only inside a user message that also holds an earlier
 * intent of the same entity (the sends composed into one), never as a message of its own. Departs the
 * requests only: what the case reads of their messages is its consequence (ENTITY-5's earlier context,
 * INTENT-3's fixed intent and LOOP-5's intent on every turn are read there), the outcomes are still judged.
 */
function composedIntentFault(state: DriveState, trace: ActionTrace): CrystalFault | undefined {
  const intent = trace.intent;
  if (trace.verb !== 'send' || typeof intent !== 'string' || intent === '') return undefined;
  const earlier = [...state.actions.values()].filter((t) => t.index < trace.index && t.entity !== undefined && t.entity === trace.entity && typeof t.intent === 'string' && t.intent !== '' && !t.intent.includes(intent) && !intent.includes(t.intent)).map((t) => t.intent as string);
  if (earlier.length === 0) return undefined;
  const own = state.crystals.queries.filter((q) => q.action === trace.index && !state.crystals.childCrystal(q.lane) && q.after_outcome === undefined);
  const users = (q: QueryRecord): string[] => (q.request.messages ?? []).flatMap((m) => (m.role === 'user' && typeof m.content === 'string' ? [m.content] : []));
  const at = own.findIndex((q) => {
    const texts = users(q);
    return !texts.includes(intent) && texts.some((t) => t.includes(intent) && earlier.some((e) => t.includes(e)));
  });
  if (at < 0) return undefined;
  return {
    kind: 'fail',
    message: `'${trace.name}' sent its intent to the crystal only composed with an earlier intent of the same entity in one user message, never as a message of its own (request ${at} of the send)`,
    rules: ['INTENT-2'],
    departs: ['requests'],
  };
}

/** Whether a stored field holds anything: non-blank text, a non-empty list or record (an observation may be either from 0.2.0, §4.3). */
function keepsSomething(value: unknown): boolean {
  if (typeof value === 'string') return value.trim() !== '' && value.trim() !== '[]';
  if (Array.isArray(value)) return value.length > 0;
  return value !== null && typeof value === 'object' && Object.keys(value).length > 0;
}

/** LOOM-7: the action stored a turn that did not happen. */
function extraTurn(trace: ActionTrace, counts: string): CrystalFault {
  return { kind: 'fail', message: `'${trace.name}' stored ${counts}: the loom holds a turn that did not happen`, rules: ['LOOM-7'], departs: ['loom'] };
}

/** A cast that came back with an entity an earlier action produced (CANTRIP-2, ENTITY-2); reported once. */
function reusedEntityFault(state: DriveState, trace: ActionTrace): CrystalFault | undefined {
  if (trace.verb !== 'cast' || trace.entity === undefined || state.faults.some((f) => f.rules?.includes('CANTRIP-2') === true)) return undefined;
  const earlier = [...state.actions.values()].find((t) => t !== trace && t.index < trace.index && t.entity === trace.entity);
  if (!earlier) return undefined;
  return { kind: 'fail', message: `cast '${trace.name}' came back with the entity of '${earlier.name}': a cast yields an entity of its own`, rules: ['CANTRIP-2', 'ENTITY-2'] };
}

/** More entities in the loom than the actions and the scripted delegations account for (ENTITY-1); reported once. */
function strayEntityFault(state: DriveState): CrystalFault | undefined {
  if (!onConversation(state) || state.faults.some((f) => f.rules?.includes('ENTITY-1'))) return undefined;
  const produced = new Set<string>([...Object.values(state.record.entities), ...[...state.actions.values()].flatMap((t) => (t.entity === undefined ? [] : [t.entity]))]);
  const strays = state.record.loom.turns.filter((t) => t.role === 'crystal' && t.entity_id !== null && !produced.has(t.entity_id));
  const others = new Set(strays.map((t) => t.entity_id as string));
  // A turn that can only record the reply to an action's own entity, under an entity no action produced:
  // certain whatever the children did (one that failed before storing a turn leaves the count below no wiser).
  const placed = turnOfAnActionsQuery(strays, state.crystals.queries, (lane) => state.crystals.childCrystal(lane));
  if (placed) {
    return {
      kind: 'fail',
      message: `loom turn ${placed.turn.id} records the reply to a request of '${placed.query.lane}', which only the actions' own entities query, but names entity ${String(placed.turn.entity_id)}, which no action produced: an entity came from neither a cast nor an invocation`,
      rules: ['ENTITY-1'],
    };
  }
  let delegated = 0;
  for (const q of state.crystals.queries) {
    const r = served(q);
    for (const call of r ? callsOf(r) : []) {
      if (!DELEGATION_GATES.has(call.gate)) continue;
      const args = parsed(call.arguments);
      const entries = call.gate === 'call_entity_batch' ? Object.values(args ?? {}).find(Array.isArray) : undefined;
      // A batch whose list cannot be read counts as unbounded: nothing can then be said.
      if (call.gate === 'call_entity_batch' && entries === undefined) return undefined;
      delegated += entries === undefined ? 1 : entries.length;
    }
  }
  // A child with a turn queried at least once, on a crystal or lane children use (its turn may record a failed query, LOOM-1),
  // unless it was cut off before its first query (a parent's timeout, COMP-9): then its only turns record the cut,
  // truncated with no gate call, and it needs a delegation but no query.
  const childQueries = state.crystals.queries.filter((q) => q.lane !== UNPLACED_LANE && state.crystals.childCrystal(q.lane)).length;
  const cutBeforeQuerying = [...others].filter((id) => strays.every((t) => t.entity_id !== id || (t.truncated === true && (t.gate_calls?.length ?? 0) === 0))).length;
  if (others.size <= delegated && others.size - cutBeforeQuerying <= Math.min(delegated, childQueries)) return undefined;
  return {
    kind: 'fail',
    message: `the loom holds turns of ${others.size} entities that no action produced (${cutBeforeQuerying} of them cut off before a query), but the crystals' replies asked for ${delegated} children and children queried ${childQueries} times: some entity came from neither a cast nor an invocation (${[...others].slice(0, 4).join(', ')})`,
    rules: ['ENTITY-1'],
  };
}

function parsed(text: string | undefined): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text ?? '');
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

import type { CrystalRequest, CrystalResponse, StreamEvent, ToolDefinition, Turn, TruncationCause, Usage } from '../../schemas/index.ts';
import type { ChildOutcome, ChildRequest } from '../circle/gate.ts';
import { NO_GATE_CALLED, type Action, type ActContext } from '../circle/medium/medium.ts';
import { validateResponse } from '../crystal/validate.ts';
import { CantripError } from '../errors.ts';
import { newTurnId, usageMetadata } from '../loom/turn.ts';
import { deliver } from '../production/events.ts';
import { fileChangingGates, filesChangedIn } from '../circle/overlay-file-gates.ts';
import { addUsage, billedTokens } from '../production/usage.ts';
import { boundCast, DeadlinePassed, type CastBound } from './deadline.ts';
import type { CastResult, CastStart } from './cast-result.ts';
import type { Entity } from './entity.ts';
import { truncationSummary } from './truncation-summary.ts';
import { DEFAULT_KEEP_RECENT_TURNS, digestTurns, foldMarker, shouldFold, type FoldingOptions } from '../loom/fold.ts';
import type { QueryOptions } from '../crystal/contract.ts';
import { rejectionStreak } from '../circle/verifiers.ts';
import { recordsForDraft } from '../drafts/gate-call-records.ts';
import { redactValue } from '../production/redaction.ts';

/** How long a parent waits for its children to record their truncation after it ends (COMP-9). */
export const CHILD_WIND_DOWN_MS = 2000;

/**
 * Runs one child entity for a composition gate call of `parent`, inside its turn `spawningTurnId`
 * (COMP-2, COMP-5): composition/spawn.ts's `spawnChild`. The loop receives it with its inputs: the
 * spawner builds the child's cantrip, whose entity runs this loop, so the loop cannot import it.
 */
export type ChildSpawner = (
  parent: Entity,
  spawningTurnId: string,
  signal: AbortSignal,
  request: ChildRequest,
  parentDeadline: number | undefined,
) => Promise<ChildOutcome>;

/** The truncation cause of a cast its caller cancelled (the reference's own word, like `max_turns`). */
export const CANCELLED = 'cancelled';

/** The reason a cast's bound is aborted when its caller cancels it; never escapes the loop. */
class CastCancelled extends Error {
  override readonly name = 'CastCancelled';
}

/**
 * Runs one cast: turn after turn until the entity calls `done`, stops talking (when `done` is not
 * required), or a ward cuts it off.
 *
 * One turn is: assemble the context (call first, CALL-2; gate definitions as tools, CIRCLE-11, CALL-3;
 * then intent and history, LOOP-5, INTENT-2), query the crystal once (retries live inside the crystal,
 * PROD-2), check the response (CRYSTAL-3/4), let the circle act on it (CIRCLE-3/4/5/7), and record the
 * turn in the loom before the next one starts (LOOM-1). Utterance and observation strictly alternate
 * (LOOP-1). Wards are checked by the loop, never left to the entity (CIRCLE-6): turn cap and token
 * budget after each turn, the wall clock around every wait (LOOP-2, LOOP-4), and the run of gate calls
 * the circle's verifiers refused in a row (LOOP-4, `maxRejections`). Children of its composition gate
 * calls are run by `spawn` (COMP-2).
 */
export async function runCast(entity: Entity, start: CastStart, spawn: ChildSpawner): Promise<CastResult> {
  const { call, circle } = entity.cantrip;
  // A child's clock never runs past its parent's: reaching the parent's deadline means the parent ended (COMP-9).
  const own = circle.wards.timeoutMs === undefined ? undefined : Date.now() + circle.wards.timeoutMs;
  const inherited = entity.parentDeadline;
  const deadline = own === undefined ? inherited : inherited === undefined ? own : Math.min(own, inherited);
  const timeoutCause = (): TruncationCause => (inherited !== undefined && deadline === inherited ? 'parent_terminated' : 'timeout');
  const bound = boundCast(deadline);
  const cast: CastControl = { bound, queryOptions: { signal: bound.signal }, deadline, timeoutCause };
  const stopOnParent = () => bound.abort(entity.stopReason());
  entity.onStop(stopOnParent);
  const cancel = () => bound.abort(new CastCancelled('cast cancelled by its caller'));
  if (start.signal?.aborted) cancel();
  else start.signal?.addEventListener('abort', cancel, { once: true });
  const cancelled = (): TruncationCause | undefined => (start.signal?.aborted ? CANCELLED : undefined);
  const firstCast = entity.messages.length === 0;
  if (start.intent !== null) entity.context.rememberIntent(start.intent);
  // A child's data follows its intent, once, so the intent stays the first user message (INTENT-2).
  if (firstCast && start.intent !== null && entity.cantrip.context !== undefined) {
    entity.context.remember({ role: 'user', content: `Context data:\n${JSON.stringify(entity.cantrip.context)}` });
  }
  const turns: Turn[] = [];
  const fileGates = fileChangingGates(circle.gates);
  let rejections = 0;
  try {
    for (let turnInCast = 1; ; turnInCast++) {
      const began = Date.now();
      const turnId = newTurnId();
      // Children spawned during this turn hang from it before it is recorded (COMP-5).
      entity.cantrip.loom.reserve(turnId);
      entity.context.startTurn(entity.nextSequence);
      const request: CrystalRequest = {
        messages: entity.context.view(),
        tools: circle.tools as ToolDefinition[],
        tool_choice: entity.cantrip.toolChoice,
        hyperparameters: call.hyperparameters,
      };
      const { response, action, failure, cause: cutBy } = await exchange(entity, request, turnId, cast, spawn);
      let cause = cutBy;
      const usage = response?.usage ?? NO_USAGE;
      entity.usage = addUsage(entity.usage, usage);
      const textOnly = response !== undefined && !response.tool_calls?.length;
      const terminated = cause === undefined && (action?.done !== undefined || (textOnly && !entity.cantrip.requireDone));
      rejections = rejectionStreak(rejections, action?.gateCalls ?? []);
      if (!terminated && cause === undefined) cause = cancelled() ?? wardThatFired(entity, turnInCast, deadline, timeoutCause, rejections);
      if (textOnly && !terminated && cause === undefined) entity.context.remember({ role: 'user', content: NO_GATE_CALLED });

      const turn = entity.record({
        id: turnId,
        role: 'crystal',
        utterance: redacted(entity, action?.utterance ?? response?.content ?? ''),
        observation: redacted(entity, observationOf(action, textOnly, terminated, failure, cause)),
        gate_calls: gateCallsOf(entity, action),
        metadata: usageMetadata(usage, Date.now() - began),
        reward: null,
        terminated,
        truncated: cause !== undefined,
        truncation_cause: cause ?? null,
        intent: turnInCast === 1 && start.intent !== null ? start.intent : undefined,
        fork: turnInCast === 1 ? entity.forkedFrom : undefined,
        result: terminated ? redactedValue(entity, action?.done ? action.done.answer : response?.content) : undefined,
        files_changed: filesChangedIn(fileGates, turnId),
      });
      turns.push(turn);
      entity.context.endTurn();
      if (entity.cantrip.onEvent) {
        await stream(entity, cast, { type: 'usage', entity_id: entity.id, data: usage });
        await stream(entity, cast, { type: 'turn_end', entity_id: entity.id, data: { turn_id: turn.id, sequence: turn.sequence } });
      }

      if (terminated) {
        return { entityId: entity.id, status: 'terminated', result: turn.result, usage: entity.usage, turns };
      }
      if (cause !== undefined) {
        return {
          entityId: entity.id,
          status: 'truncated',
          truncationCause: cause,
          summary: truncationSummary(turns, cause),
          ...(failure ? { error: failure } : {}),
          usage: entity.usage,
          turns,
        };
      }
      if (entity.cantrip.folding) await foldIfNeeded(entity, entity.cantrip.folding, usage);
    }
  } finally {
    bound.clear();
    entity.offStop(stopOnParent);
    start.signal?.removeEventListener('abort', cancel);
    // COMP-9: children still running when this cast ends are stopped and given time to record it.
    // Nothing else can still be working for the cast (every query, gate call and event delivery went
    // through the bound's wait and has settled or been cut off), so without a child there is nothing
    // to stop, and the abort (about 0.2 ms the first time a process aborts a signal) is skipped.
    if (entity.hasRunningChildren()) {
      bound.abort(entity.stopReason() ?? 'cast ended');
      await entity.windDownChildren(CHILD_WIND_DOWN_MS);
    }
  }
}

/** No usage: what a turn that got no response from the crystal counts. */
const NO_USAGE: Usage = Object.freeze({ prompt: 0, completion: 0, cached: 0 });

/** What one cast's waits are bounded by, shared by all its turns. */
interface CastControl {
  bound: CastBound;
  /** Passed with every query of the cast: its abort signal. */
  queryOptions: QueryOptions;
  deadline: number | undefined;
  timeoutCause: () => TruncationCause;
}

/** How one turn's exchange went: what the crystal said, what the circle did, or why it was cut off. */
interface Exchange {
  response?: CrystalResponse;
  action?: Action;
  failure?: CantripError;
  cause?: TruncationCause;
}

/**
 * One turn's exchange: query the crystal, check its response (CRYSTAL-3/4), and let the circle act on
 * it (CIRCLE-3/4/5/7), all within the cast's bound. It never throws: a failure or a cut-off comes back
 * as a cause, so the turn is still recorded (LOOM-1).
 */
async function exchange(entity: Entity, request: CrystalRequest, turnId: string, cast: CastControl, spawn: ChildSpawner): Promise<Exchange> {
  const { bound } = cast;
  let response: CrystalResponse | undefined;
  let action: Action | undefined;
  try {
    // A cast whose bound has ended (a ward fired while the loop waited on a slow event consumer) asks nothing more.
    if (bound.signal.aborted) throw bound.signal.reason;
    response = validateResponse(await bound.wait(entity.cantrip.crystal.query(request, cast.queryOptions)));
    const toolCalls = response.tool_calls?.length ? response.tool_calls : undefined;
    entity.context.remember(
      toolCalls ? { role: 'assistant', content: response.content, tool_calls: toolCalls } : { role: 'assistant', content: response.content },
    );
    if (entity.cantrip.onEvent) await announce(entity, response, cast);
    if (toolCalls) {
      const session = await entity.session();
      if (bound.signal.aborted) throw bound.signal.reason;
      action = await bound.wait(session.act(toolCalls, actContext(entity, turnId, cast, spawn)));
      rememberObservation(entity, action);
      if (entity.cantrip.onEvent) {
        for (const record of action.gateCalls) await stream(entity, cast, { type: 'gate_result', entity_id: entity.id, data: record });
      }
    }
    return { response, action };
  } catch (error) {
    // Gate calls cut off mid-way still get an answer, so the context stays well-formed for a later cast.
    if (response?.tool_calls?.length && !action) {
      for (const call of response.tool_calls) entity.context.remember({ role: 'tool', tool_call_id: call.id, content: 'interrupted' });
    }
    const partial = response ? { response } : {};
    if (entity.stopReason()) return { ...partial, cause: 'parent_terminated' };
    if (error instanceof CastCancelled) return { ...partial, cause: CANCELLED };
    if (error instanceof DeadlinePassed) return { ...partial, cause: cast.timeoutCause() };
    const failure = error instanceof CantripError ? error : new CantripError('crystal_error', String(error), { cause: error });
    return { ...partial, cause: 'crystal_error', failure };
  }
}

/**
 * What the medium passes on to every gate call of one turn: who is calling, the cast's signal, and the
 * turn any child spawned now hangs from (COMP-5). Made apart from {@link exchange} so that only this
 * small function's variables are kept alive by the `spawn` closure.
 */
function actContext(entity: Entity, turnId: string, cast: CastControl, spawn: ChildSpawner): ActContext {
  const signal = cast.bound.signal;
  return {
    entityId: entity.id,
    signal,
    turnId,
    previousTurnId: entity.lastTurn,
    spawn(child) {
      return spawn(entity, turnId, signal, child, cast.deadline);
    },
  };
}

/**
 * PROD-4, §6.8: when the last query used more than the threshold of the crystal's window, every turn
 * but the most recent few is replaced in the working context by a marked summary, and a `fold` turn
 * records it. The loom keeps every turn as it was (LOOM-5); the call and the tools are untouched
 * (LOOM-6, CALL-5) because they are not part of what is folded. With `afterTurns` a fold also starts
 * once more than that many turns are shown unfolded (PROD-4: a documented threshold of our choosing).
 */
async function foldIfNeeded(entity: Entity, folding: FoldingOptions, usage: Usage): Promise<void> {
  const shown = entity.context.unfoldedTurns();
  const byTurns = folding.afterTurns !== undefined && shown.length > folding.afterTurns;
  if (!byTurns && !shouldFold(usage, entity.cantrip.crystal.contextWindow, folding.threshold)) return;
  const keep = folding.keepRecentTurns ?? DEFAULT_KEEP_RECENT_TURNS;
  if (shown.length <= keep) return;
  const thread = entity.cantrip.loom.pathTo(entity.lastTurn);
  const upTo = shown[shown.length - keep - 1]!;
  const folded = thread.filter((turn) => turn.entity_id === entity.id && turn.role === 'crystal' && turn.sequence <= upTo);
  const digest = await (folding.summarize ?? digestTurns)(folded);
  const range = entity.context.fold(keep, (from, to) => `${foldMarker(from, to)}\n${digest}`);
  if (!range) return;
  entity.record({
    id: newTurnId(),
    role: 'fold',
    utterance: '',
    observation: `${foldMarker(range.from, range.to)}\n${digest}`,
    gate_calls: [],
    metadata: usageMetadata({ prompt: 0, completion: 0, cached: 0 }, 0),
    reward: null,
    terminated: false,
    truncated: false,
    truncation_cause: null,
    fold: { from_sequence: range.from, to_sequence: range.to },
  });
}

/** PROD-8: text a turn records, with the cantrip's secrets scrubbed. */
function redacted(entity: Entity, text: string): string {
  return entity.cantrip.redact ? entity.cantrip.redact(text) : text;
}

/** PROD-8: a value a turn records or streams, with every string in it scrubbed. */
function redactedValue<T>(entity: Entity, value: T): T {
  return entity.cantrip.redact && value !== undefined ? (redactValue(value, entity.cantrip.redact) as T) : value;
}

/**
 * A turn's gate call records as the loom keeps them: in the shape of the cantrip's draft
 * (reference/drafts/gate-call-records.ts: text records from 0.2.0 on), secrets scrubbed (PROD-8).
 */
function gateCallsOf(entity: Entity, action: Action | undefined): Turn['gate_calls'] {
  const records = action?.gateCalls ?? [];
  if (records.length === 0) return [];
  const { draft, redact } = entity.cantrip;
  return recordsForDraft(draft, redact ? records.map((record) => redactedValue(entity, record)) : records, redact);
}

/**
 * Adds a turn's tool messages to the context, with configured secrets scrubbed, marking those of
 * ephemeral gates for trimming (PROD-5).
 */
function rememberObservation(entity: Entity, action: Action): void {
  const gates = entity.cantrip.circle.gates;
  let ephemeral: Map<string, string> | undefined; // tool call id -> gate name, made only when needed
  for (const record of action.gateCalls) {
    if (gates.get(record.gate)?.ephemeral) (ephemeral ??= new Map()).set(record.tool_call_id, record.gate);
  }
  const redact = entity.cantrip.redact;
  for (const original of action.messages) {
    const message = redact && typeof original.content === 'string' ? { ...original, content: redact(original.content) } : original;
    const index = entity.context.remember(message);
    const gate = message.tool_call_id === undefined ? undefined : ephemeral?.get(message.tool_call_id);
    if (gate !== undefined) {
      entity.context.markEphemeral(index, {
        role: 'tool',
        tool_call_id: message.tool_call_id!,
        content: `[ephemeral result of ${gate} removed from the context; it is kept in the loom. Call ${gate} again if you need it.]`,
      });
    }
  }
}

/** The ward, if any, that ends the cast after a turn that did not terminate it. */
function wardThatFired(
  entity: Entity,
  turnInCast: number,
  deadline: number | undefined,
  timeoutCause: () => TruncationCause,
  rejections: number,
): TruncationCause | undefined {
  const wards = entity.cantrip.circle.wards;
  if (entity.stopReason()) return 'parent_terminated';
  if (wards.maxRejections !== undefined && rejections >= wards.maxRejections) return 'max_rejections';
  if (wards.maxTurns !== undefined && turnInCast >= wards.maxTurns) return 'max_turns';
  if (wards.maxTokens !== undefined && billedTokens(entity.usage) >= wards.maxTokens) return 'max_tokens';
  if (deadline !== undefined && Date.now() >= deadline) return timeoutCause();
  return undefined;
}

function observationOf(
  action: Action | undefined,
  textOnly: boolean,
  terminated: boolean,
  failure: CantripError | undefined,
  cause: TruncationCause | undefined,
): string {
  if (action) return action.observation;
  if (failure) return `crystal failed: ${failure.code}`;
  if (cause === 'timeout' || cause === 'parent_terminated' || cause === CANCELLED) return `interrupted: ${cause}`;
  if (textOnly && !terminated && cause === undefined) return NO_GATE_CALLED;
  return '';
}

async function announce(entity: Entity, response: CrystalResponse, cast: CastControl): Promise<void> {
  if (response.thinking) await stream(entity, cast, { type: 'thinking', entity_id: entity.id, data: response.thinking });
  if (response.content) await stream(entity, cast, { type: 'text', entity_id: entity.id, data: response.content });
  for (const call of response.tool_calls ?? []) await stream(entity, cast, { type: 'gate_call', entity_id: entity.id, data: call });
}

/**
 * Streams one event. A bounded listener makes the loop wait here while its consumer is behind
 * (production/event-stream.ts); the wait never outlasts the cast's bound: when a ward ends it, the
 * event is dropped and the wards decide how the cast ends (LOOP-2, LOOP-4, CIRCLE-6). An event never
 * changes what the turn did: streaming observes, it does not steer.
 */
async function stream(entity: Entity, cast: CastControl, event: StreamEvent): Promise<void> {
  try {
    // PROD-8: events are a trace; no secret goes out with one.
    const sent = entity.cantrip.redact ? { ...event, data: redactedValue(entity, event.data) } : event;
    await cast.bound.wait(deliver(entity.cantrip.onEvent, sent, cast.bound.signal));
  } catch {
    // The cast's bound ended the wait; the next step of the loop sees the aborted signal.
  }
}

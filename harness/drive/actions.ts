/**
 * The action verbs of a case's `act` list (docs/INTERPRETING.md, "Actions"), one small function each,
 * over the drive's state. Each calls the adapter, keeps what came back in the run record, and notes the
 * turns the action added to the loom.
 */
import type { CastOutcome, ForkOptions, Host, OverlayDecision, Result } from '../../schemas/adapter.ts';
import type { ForkStrategy } from '../../schemas/records.ts';
import type { Action, LoadedCase, TurnRef, Verb } from '../case-file/index.ts';
import { jsonCopy } from '../values/index.ts';
import { Stop, type DriveState } from './drive-state.ts';
import type { ActionTrace } from './run-record.ts';
import { topEntity } from './top-entity.ts';
import { judgesConstructError, NotRun, refusedSetupReason, requiredOfEveryImplementation, RequiredSetupRefused, requiredSetupRefusedReason } from './refused-setup.ts';
import { acpPrompt, acpSession } from './acp-steps.ts';
import { courseFaults } from './course.ts';
import { SkippedAfterRefusal } from './after-refusal.ts';

/** What one verb gets: the drive's state, the host given to `construct`, the action's body and its trace. */
interface Step {
  state: DriveState;
  host: Host;
  body: Record<string, unknown>;
  trace: ActionTrace;
}

type VerbStep = (step: Step) => Promise<void>;

async function construct({ state, host, body, trace }: Step): Promise<void> {
  const setup = structuredClone(state.prepared.setup);
  if (typeof body.crystal === 'string') setup.crystal = state.crystalSetup(body.crystal);
  // The same identity in a circle with fewer of the setup's gates (IDENTITY-3); the loader saw every name among them.
  if (Array.isArray(body.gates) && setup.circle !== undefined) {
    const kept = new Set(body.gates as string[]);
    setup.circle.gates = setup.circle.gates.filter((g) => kept.has(g.name));
  }
  const result = await state.adapter.construct(setup, host);
  state.store(trace.name, result, (v) => (state.record.cantrips[trace.name] = v.cantrip));
  // A refusal the case does not judge leaves nothing to judge: the case could not run (drive/refused-setup.ts).
  if (!result.ok && !judgesConstructError(state.case, trace.name)) {
    // Refusing what every implementation must build is a failure at MUST (§4.5), never a way to skip.
    if (state.case.level === 'MUST' && requiredOfEveryImplementation(state.case)) throw new RequiredSetupRefused(requiredSetupRefusedReason(trace.name, result.error));
    throw new NotRun(refusedSetupReason(trace.name, result.error));
  }
  // A refusal the case judges: the drive goes on, and actions on this cantrip are skipped (drive/after-refusal.ts).
  if (!result.ok) state.refused.add(trace.name);
  trace.appended = await state.appendedSinceLast();
}

/** The intent an action gives: absent (no key), explicitly none (null) or a text. */
function intentOf(body: Record<string, unknown>, trace: ActionTrace): { given: boolean; intent: string | undefined } {
  const given = Object.hasOwn(body, 'intent');
  const intent = body.intent as string | undefined;
  trace.intent = given ? (intent ?? null) : undefined;
  return { given, intent };
}

/** Keeps the outcome of a cast or send, and the turns it added. */
async function keepOutcome(state: DriveState, trace: ActionTrace, result: Result<CastOutcome>): Promise<void> {
  state.store(trace.name, result, (v) => {
    state.record.outcomes[trace.name] = v;
    state.record.entities[trace.name] = v.entity_id;
    trace.entity = v.entity_id;
    if (v.error) state.record.failures[trace.name] = jsonCopy(v.error);
  });
  if (!result.ok) state.record.failures[trace.name] = jsonCopy(result.error);
}

async function cast({ state, body, trace }: Step): Promise<void> {
  const { given, intent } = intentOf(body, trace);
  const handle = state.cantrip(body.cantrip as string | undefined);
  const result = await (given ? state.adapter.cast(handle, intent) : state.adapter.cast(handle));
  await keepOutcome(state, trace, result);
  trace.appended = await state.appendedSinceLast();
  // A cast refused part-way (a crystal failure reported as an error) names no entity: find it in the loom.
  if (trace.entity === undefined && trace.appended) trace.entity = topEntity(trace.appended, state.record.loom.turns);
}

async function send({ state, body, trace }: Step): Promise<void> {
  const { given, intent } = intentOf(body, trace);
  const entity = state.entity(body.entity as string);
  const result = await (given ? state.adapter.send(entity, intent) : state.adapter.send(entity));
  await keepOutcome(state, trace, result);
  if (!result.ok) trace.entity = entity;
  trace.appended = await state.appendedSinceLast();
  if (trace.entity === undefined && trace.appended) trace.entity = topEntity(trace.appended, state.record.loom.turns);
}

async function invoke({ state, body, trace }: Step): Promise<void> {
  const handle = state.cantrip(body.cantrip as string | undefined);
  const result = await (typeof body.entity_id === 'string' ? state.adapter.invoke(handle, { entity_id: body.entity_id }) : state.adapter.invoke(handle));
  state.store(trace.name, result, (v) => {
    state.record.entities[trace.name] = v.entity;
    trace.entity = v.entity;
  });
  trace.appended = await state.appendedSinceLast();
}

async function fork({ state, body, trace }: Step): Promise<void> {
  const from = state.turnId(body.from as TurnRef);
  const intent = body.intent as string | undefined;
  trace.intent = intent;
  // With `crystal` the fork continues on another declared crystal (LOOM-4 with the swap of spec 2.2);
  // with `strategy` the case asks for a fork made that way (§6.6), one the plan saw declared.
  const asked = body.strategy as ForkStrategy | undefined;
  const options: ForkOptions = {
    ...(typeof body.crystal === 'string' && { crystal: state.crystalSetup(body.crystal) }),
    ...(asked !== undefined && { strategy: asked }),
  };
  const result =
    Object.keys(options).length > 0
      ? await state.adapter.fork(from, intent, options)
      : intent === undefined
        ? await state.adapter.fork(from)
        : await state.adapter.fork(from, intent);
  state.store(trace.name, result, (v) => {
    state.record.outcomes[trace.name] = v.outcome;
    state.record.entities[trace.name] = v.entity;
    state.record.forks[trace.name] = { entity: v.entity, strategy: v.strategy };
    trace.entity = v.entity;
    if (v.outcome.error) state.record.failures[trace.name] = jsonCopy(v.outcome.error);
  });
  if (!result.ok) state.record.failures[trace.name] = jsonCopy(result.error);
  if (asked !== undefined) checkAskedStrategy(state.case, trace.name, asked, result);
  trace.appended = await state.appendedSinceLast();
}

/**
 * A fork asked for by a strategy (§6.6) that the implementation refused, or made another way: what the
 * case is about (a replay fork, LOOM-13) did not happen, so the case could not run. Which strategy an
 * implementation uses is its own to declare, so neither is a failure; a case that reads the fork's
 * `errors.<name>` judges the refusal itself.
 */
function checkAskedStrategy(c: LoadedCase, name: string, asked: ForkStrategy, result: Result<{ strategy: ForkStrategy }>): void {
  if (result.ok && result.value.strategy !== asked) throw new NotRun(`not run: asked for a ${asked} fork, the implementation made a ${String(result.value.strategy)} fork`);
  if (!result.ok && !judgesConstructError(c, name)) throw new NotRun(`not run: the implementation refused a ${asked} fork${result.error.code !== undefined ? ` (${result.error.code})` : ''}: ${result.error.message}`);
}

async function annotateReward({ state, body, trace }: Step): Promise<void> {
  const result = await state.adapter.mutate({ target: 'reward', turn_id: state.turnId(body.turn as TurnRef), reward: body.reward as number | null });
  state.store(trace.name, result, () => (state.record.mutations[trace.name] = {}));
}

async function mutate({ state, body, trace }: Step): Promise<void> {
  const { adapter } = state;
  const result =
    body.target === 'delete'
      ? await adapter.mutate({ target: 'delete', turn_id: state.turnId(body.turn as TurnRef) })
      : body.target === 'call'
        ? await adapter.mutate({ target: 'call', cantrip: state.cantrip(body.cantrip as string | undefined), system_prompt: (body.system_prompt as string | undefined) ?? 'changed' })
        : await adapter.mutate({
            target: 'turn',
            turn_id: state.turnId(body.turn as TurnRef),
            field: (body.field as string | undefined) ?? 'utterance',
            value: Object.hasOwn(body, 'value') ? body.value : 'changed',
          });
  state.store(trace.name, result, () => (state.record.mutations[trace.name] = {}));
}

async function thread({ state, body, trace }: Step): Promise<void> {
  const result = await state.adapter.thread(state.turnId(body.leaf as TurnRef));
  state.store(trace.name, result, (v) => (state.record.threads[trace.name] = v.turns));
}

async function reopen({ state, trace }: Step): Promise<void> {
  if (!state.adapter.reopen) throw new Stop('the adapter offers no reopen() (an in-process adapter declaring persistence must have it)');
  state.store(trace.name, await state.adapter.reopen(), () => (state.record.mutations[trace.name] = {}));
}

async function snapshotLoom({ state, trace }: Step): Promise<void> {
  const turns = await state.readLoom();
  if (turns) state.record.snapshots[trace.name] = jsonCopy(turns);
}

async function overlay({ state, body, trace }: Step): Promise<void> {
  if (!state.adapter.overlay) throw new Stop('the adapter offers no overlay() (an in-process adapter declaring overlay-file-gates must have it)');
  const result = await state.adapter.overlay(state.entity(body.entity as string), body.decision as OverlayDecision);
  state.store(trace.name, result, () => (state.record.mutations[trace.name] = {}));
}

/** PROD-8: the implementation's default export of the loom, kept to be searched for the secrets the kit handed over. */
async function exportLoom({ state, trace }: Step): Promise<void> {
  if (!state.adapter.exportLoom) throw new Stop('the adapter offers no exportLoom() (an in-process adapter declaring loom-export must have it)');
  const result = await state.adapter.exportLoom();
  state.store(trace.name, result, (v) => (state.record.exports[trace.name] = jsonCopy(v)));
  if (!result.ok) state.faults.push(declaredButRefused('loom-export', 'exportLoom()', 'the loom export', result.error.message));
}

/** PROD-8: what the implementation logged, kept to be searched for the secrets the kit handed over. */
async function logs({ state, trace }: Step): Promise<void> {
  if (!state.adapter.logs) throw new Stop('the adapter offers no logs() (an in-process adapter declaring log-output must have it)');
  const result = await state.adapter.logs();
  state.store(trace.name, result, (v) => (state.record.logs[trace.name] = jsonCopy(v)));
  if (!result.ok) state.faults.push(declaredButRefused('log-output', 'logs()', 'the log output', result.error.message));
}

/**
 * An export or log output the implementation declared and then refused: nothing could be searched, which
 * is a finding about the adapter, not a secret shown (PROD-8), so the case is errored, never failed.
 */
function declaredButRefused(feature: string, call: string, what: string, message: string): { kind: 'error'; message: string } {
  return { kind: 'error', message: `the implementation declares ${feature} but refused ${call} (${message}): ${what} could not be searched for secrets` };
}

const VERB_STEPS: Record<Verb, VerbStep> = {
  construct,
  cast,
  send,
  invoke,
  fork,
  annotate_reward: annotateReward,
  mutate,
  thread,
  reopen,
  snapshot_loom: snapshotLoom,
  overlay,
  export_loom: exportLoom,
  logs,
  acp_session: acpSession,
  acp_prompt: acpPrompt,
};

/** Runs one action of the case (`index` -1: the implicit construct of `main`). */
export async function runAction(state: DriveState, host: Host, action: Action, index: number): Promise<void> {
  const verb = Object.keys(action)[0] as Verb;
  const body = (action as Record<string, Record<string, unknown>>)[verb] ?? {};
  const trace = state.beginAction(verb, body.as, index);
  try {
    await VERB_STEPS[verb]({ state, host, body, trace });
  } catch (error) {
    // An action on a construct the case saw refused, and judges: skipped, and the drive goes on.
    if (!(error instanceof SkippedAfterRefusal)) throw error;
    trace.skipped = error.message;
    return;
  } finally {
    trace.ended_ms = performance.now();
  }
  // Where the action left the case's script, under the rule that was broken (drive/course.ts).
  state.faults.push(...courseFaults(state, trace));
}

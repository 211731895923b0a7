/**
 * A small executable model of a conversation circle, written from the spec's rules only: it predicts,
 * for a scenario, which steps each run consumes, how each run ends, which gate-call records each turn
 * holds and what usage each turn and outcome reports. Properties turn these predictions into
 * expectations; they never look at an implementation.
 *
 * Rules modelled: LOOP-3 + CIRCLE-8 (done ends the run with its answer after that utterance), LOOP-6
 * (a text-only reply ends the run iff require_done is false), LOOP-4 + CIRCLE-6 (the turn cap cuts a
 * run off), CIRCLE-5 + CIRCLE-7 (one ordered record per gate call, failures included), PROD-3 + LOOM-9
 * (usage per turn and per entity), LOOM-4 (a fork continues from a turn of the original entity).
 *
 * Where the spec leaves a choice open, the model does not pick a side; it marks what depends on it.
 * The turn cap may count the turns of one cast or every turn of the entity (and a fork may or may not
 * inherit the count of the path it continues): a run whose ending differs between those readings is
 * not `definite`, and neither is any run after it (the script would reach it at another step), so no
 * property predicts anything about it. The fork starts from a turn of a definite run, named by its
 * position in that run (never by `sequence`, whose numbering across casts is open too).
 */
import { DEFAULT_USAGE } from '../drive/index.ts';
import type { TurnRef } from '../case-file/index.ts';
import type { Scenario, ScenarioCall, ScenarioStep, StepUsage } from './scenario.ts';

/** What one gate-call record must look like (a `like` pattern: only the fields every implementation owes). */
export interface ExpectedRecord {
  tool_call_id: string;
  gate: string;
  ok: boolean;
  result?: unknown;
}

export interface PlannedTurn {
  step: ScenarioStep;
  usage: StepUsage;
  /** Records of the calls that must run: all of them, or those up to and including the first done. */
  records: ExpectedRecord[];
  /** False when done came before the utterance's last call (later calls MAY run, LOOP-3). */
  allCallsRun: boolean;
  terminated: boolean;
  truncated: boolean;
}

export type Ending =
  | { status: 'terminated'; by: 'done'; result: unknown; /** Index in the run of the turn that called done. */ at: number }
  | { status: 'terminated'; by: 'text'; result: string }
  | { status: 'truncated'; cause: 'turn cap' };

export interface PlannedRun {
  /** The action's `as` name. */
  name: string;
  verb: 'cast' | 'send' | 'fork';
  intent: string;
  turns: PlannedTurn[];
  ending: Ending;
  /** The entity's usage after this run (cumulative over an invoked entity's casts; own turns for a fork). */
  usageAfter: StepUsage;
  /**
   * The least number of turns the run may have left under any reading of the turn cap: `max_turns`
   * when the cap counts per cast, fewer when it counts every turn of the entity (or of the path a fork
   * continues from).
   */
  leastBudget: number;
  /** Every reading of the open choices gives this run, and every run before it, the modelled shape. */
  definite: boolean;
}

/** The turn a fork starts from. */
export interface ForkPoint {
  /** The action that added that turn. */
  run: string;
  /** Its position (from 1) among the crystal turns that action added for its entity. */
  nth: number;
  /** Its position (from 0) among every crystal turn of the original entity, in the order they were added. */
  index: number;
  /** The fork has at least one turn under every reading of the turn cap. */
  runsATurn: boolean;
}

export interface Plan {
  scenario: Scenario;
  runs: PlannedRun[];
  /** Every step the crystal serves, in order (the script of the case). */
  script: ScenarioStep[];
  /** Name of the action whose entity the fork starts from (`first` or `chat`). */
  origin: string;
  /** Where the fork starts, when there is a fork. */
  fork?: ForkPoint;
}

export const INTENTS = { cast: 'first task', sends: ['first task', 'second task'], fork: 'forked task' } as const;
/** The step served once the generated steps run out before a run ends, so no script runs dry. */
export const CLOSING_STEP: ScenarioStep = { kind: 'calls', content: null, calls: [{ gate: 'done', answer: 'closed' }], usage: null };

/**
 * A done answer every implementation must take (CIRCLE-8 asks done to accept an answer; what types of
 * answer it accepts is the implementation's, and its tool definition may narrow them): a string.
 */
export const portableAnswer = (answer: unknown): boolean => typeof answer === 'string';

/** A turn reference for a fork point. */
export const forkRef = (f: ForkPoint): TurnRef => ({ of: f.run, nth: f.nth });

const add = (a: StepUsage, b: StepUsage): StepUsage => ({ prompt: a.prompt + b.prompt, completion: a.completion + b.completion, cached: a.cached + b.cached });
const ZERO: StepUsage = { prompt: 0, completion: 0, cached: 0 };

function record(call: ScenarioCall, id: string): ExpectedRecord {
  switch (call.gate) {
    case 'echo':
      return { tool_call_id: id, gate: 'echo', ok: true, result: call.text };
    case 'fail':
      return { tool_call_id: id, gate: 'fail', ok: false };
    case 'done':
      return { tool_call_id: id, gate: 'done', ok: true };
    case 'unknown':
      return { tool_call_id: id, gate: call.name, ok: false };
  }
}

/** Predicts a whole scenario, the runs in order and then the fork (LOOP-3, LOOP-4, LOOP-6, CIRCLE-5..8, PROD-3, LOOM-4). */
export function plan(scenario: Scenario): Plan {
  const script: ScenarioStep[] = [];
  let toolCallId = 0;
  const nextId = (): string => `tc${++toolCallId}`;
  const limit = scenario.max_turns;

  let served = 0;
  let allDefinite = true;
  const simulate = (name: string, verb: PlannedRun['verb'], intent: string, before: StepUsage, inherited: number): PlannedRun => {
    const turns: PlannedTurn[] = [];
    let ending: Ending | undefined;
    let usage = before;
    for (let n = 1; !ending; n++) {
      const step = scenario.steps[served++] ?? CLOSING_STEP;
      script.push(step);
      const turnUsage = step.usage ?? { ...DEFAULT_USAGE };
      usage = add(usage, turnUsage);
      const records: ExpectedRecord[] = [];
      let allCallsRun = true;
      if (step.kind === 'text') {
        if (!scenario.require_done) ending = { status: 'terminated', by: 'text', result: step.text };
      } else {
        for (const [k, call] of step.calls.entries()) {
          records.push(record(call, nextId()));
          if (call.gate === 'done') {
            ending = { status: 'terminated', by: 'done', result: call.answer, at: n - 1 };
            allCallsRun = k === step.calls.length - 1;
            // Later calls get ids from the crystal even though they may never run.
            for (let rest = k + 1; rest < step.calls.length; rest++) nextId();
            break;
          }
        }
      }
      if (!ending && n >= limit) ending = { status: 'truncated', cause: 'turn cap' };
      turns.push({ step, usage: turnUsage, records, allCallsRun, terminated: ending?.status === 'terminated', truncated: ending?.status === 'truncated' });
    }
    const leastBudget = Math.max(0, limit - inherited);
    // With nothing inherited every reading gives the full cap; otherwise only a run that finishes within
    // the smallest budget ends the same way under each reading.
    const same = inherited === 0 || (ending.status === 'terminated' && turns.length <= leastBudget);
    allDefinite = allDefinite && same;
    return { name, verb, intent, turns, ending, usageAfter: usage, leastBudget, definite: allDefinite };
  };

  const runs: PlannedRun[] = [];
  if (!scenario.sends) {
    runs.push(simulate('first', 'cast', INTENTS.cast, ZERO, 0));
  } else {
    const one = simulate('one', 'send', INTENTS.sends[0], ZERO, 0);
    runs.push(one, simulate('two', 'send', INTENTS.sends[1], one.usageAfter, one.turns.length));
  }
  const result: Plan = { scenario, runs, script, origin: scenario.sends ? 'chat' : 'first' };
  if (scenario.fork) {
    // The fork starts from a turn of a definite run, so the turn is where the model says it is.
    const candidates = runs.filter((r) => r.definite).flatMap((r) => r.turns.map((_t, k) => ({ run: r.name, nth: k + 1 })));
    const pick = (scenario.fork.from - 1) % candidates.length;
    const chosen = candidates[pick] ?? { run: runs[0]?.name ?? 'first', nth: 1 };
    // Its position among the entity's turns: the turns it inherits, when the cap counts a whole path.
    const index = pick;
    result.fork = { ...chosen, index, runsATurn: limit - (index + 1) >= 1 };
    runs.push(simulate('branch', 'fork', INTENTS.fork, ZERO, index + 1));
  }
  return result;
}

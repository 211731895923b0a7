/**
 * A small executable model of a conversation circle, written from the spec's rules only: it predicts,
 * for a scenario, which steps each cast consumes, how each cast ends, which gate-call records each
 * turn holds and what usage each turn and outcome reports. Properties turn these predictions into
 * expectations; they never look at an implementation.
 *
 * Rules modelled: LOOP-3 + CIRCLE-8 (done ends the cast with its answer after that utterance),
 * LOOP-6 (text-only ends the cast iff require_done is false), LOOP-4 + CIRCLE-6 (max_turns cuts a cast
 * off, counted per cast), CIRCLE-5 + CIRCLE-7 (one ordered record per gate call, failures included),
 * PROD-3 + LOOM-9 (usage per turn and per entity).
 */
import { DEFAULT_USAGE } from '../mock-crystal.ts';
import type { Scenario, ScenarioCall, ScenarioStep, StepUsage } from './scenario.ts';

/** What one gate-call record must look like (a `like` pattern: only the fields every implementation owes). */
export interface ExpectedRecord {
  tool_call_id: string;
  gate: string;
  ok: boolean;
  result?: unknown;
  error?: { name: string };
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
  | { status: 'terminated'; by: 'done' | 'text'; result: unknown }
  | { status: 'truncated'; cause: 'max_turns' };

export interface PlannedRun {
  /** The action's `as` name. */
  name: string;
  verb: 'cast' | 'send' | 'fork';
  intent: string;
  turns: PlannedTurn[];
  ending: Ending;
  /** The entity's usage after this run (cumulative over an invoked entity's casts; own turns for a fork). */
  usageAfter: StepUsage;
}

export interface Plan {
  scenario: Scenario;
  runs: PlannedRun[];
  /** Every step the crystal serves, in order (the script of the case). */
  script: ScenarioStep[];
  /** Name of the action whose entity the fork starts from (`first` or `chat`). */
  origin: string;
  /** The sequence of the turn the fork starts from, when there is a fork. */
  forkSequence?: number;
}

export const INTENTS = { cast: 'first task', sends: ['first task', 'second task'], fork: 'forked task' } as const;
/** The step served once the generated steps run out before a run ends, so no script runs dry. */
export const CLOSING_STEP: ScenarioStep = { kind: 'calls', content: null, calls: [{ gate: 'done', answer: 'closed' }], usage: null };

const add = (a: StepUsage, b: StepUsage): StepUsage => ({ prompt: a.prompt + b.prompt, completion: a.completion + b.completion, cached: a.cached + b.cached });
const ZERO: StepUsage = { prompt: 0, completion: 0, cached: 0 };

function record(call: ScenarioCall, id: string): ExpectedRecord {
  switch (call.gate) {
    case 'echo':
      return { tool_call_id: id, gate: 'echo', ok: true, result: call.text };
    case 'fail':
      return { tool_call_id: id, gate: 'fail', ok: false, error: { name: 'TestGateError' } };
    case 'done':
      return { tool_call_id: id, gate: 'done', ok: true };
    case 'unknown':
      return { tool_call_id: id, gate: call.name, ok: false };
  }
}

/** Predicts a whole scenario, the casts in order and then the fork (LOOP-3, LOOP-4, LOOP-6, CIRCLE-5..8, PROD-3, LOOM-4). */
export function plan(scenario: Scenario): Plan {
  const script: ScenarioStep[] = [];
  let toolCallId = 0;
  const nextId = (): string => `tc${++toolCallId}`;

  let served = 0;
  const simulate = (name: string, verb: PlannedRun['verb'], intent: string, before: StepUsage): PlannedRun => {
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
            ending = { status: 'terminated', by: 'done', result: call.answer };
            allCallsRun = k === step.calls.length - 1;
            // Later calls get ids from the crystal even though they may never run.
            for (let rest = k + 1; rest < step.calls.length; rest++) nextId();
            break;
          }
        }
      }
      if (!ending && n >= scenario.max_turns) ending = { status: 'truncated', cause: 'max_turns' };
      turns.push({ step, usage: turnUsage, records, allCallsRun, terminated: ending?.status === 'terminated', truncated: ending?.status === 'truncated' });
    }
    return { name, verb, intent, turns, ending, usageAfter: usage };
  };

  const runs: PlannedRun[] = [];
  if (!scenario.sends) {
    runs.push(simulate('first', 'cast', INTENTS.cast, ZERO));
  } else {
    const one = simulate('one', 'send', INTENTS.sends[0], ZERO);
    runs.push(one, simulate('two', 'send', INTENTS.sends[1], one.usageAfter));
  }
  const result: Plan = { scenario, runs, script, origin: scenario.sends ? 'chat' : 'first' };
  if (scenario.fork) {
    const total = runs.reduce((sum, r) => sum + r.turns.length, 0);
    result.forkSequence = ((scenario.fork.from - 1) % total) + 1;
    runs.push(simulate('branch', 'fork', INTENTS.fork, ZERO));
  }
  return result;
}

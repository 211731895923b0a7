/**
 * Writes a planned scenario in the tests.yaml vocabulary: setup, the crystal script, the actions. The
 * same object is driven by the harness during a property run and printed as the reproducer, so what
 * fails in the property is exactly what the pasted case runs.
 */
import type { Action, Case, CaseGate, Expectation, LoadedCase, ScriptStep, ScriptToolCall } from '../case-file/index.ts';
import { forkRef, type Plan } from './model.ts';
import type { ScenarioCall, ScenarioStep } from './scenario.ts';

/** The crystal every generated case declares. */
export const CRYSTAL = 'parent';
/** Where a generated case says it comes from (it has no line in a file). */
export const GENERATED_FILE = '(generated)';

function toolCall(call: ScenarioCall): ScriptToolCall {
  switch (call.gate) {
    case 'echo':
      return { gate: 'echo', args: { text: call.text } };
    case 'fail':
      return call.message === null ? { gate: 'fail' } : { gate: 'fail', args: { message: call.message } };
    case 'done':
      return { gate: 'done', args: { answer: call.answer } };
    case 'unknown':
      return { gate: call.name };
  }
}

function scriptStep(step: ScenarioStep): ScriptStep {
  const out: ScriptStep = step.kind === 'text' ? { content: step.text } : { ...(step.content !== null && { content: step.content }), tool_calls: step.calls.map(toolCall) };
  if (step.usage) out.usage = { ...step.usage };
  return out;
}

/** Test gates the script calls, in a fixed order; `done` is always there. */
function gates(plan: Plan): CaseGate[] {
  const used = new Set(plan.script.flatMap((s) => (s.kind === 'calls' ? s.calls.map((c) => c.gate) : [])));
  return ['done', ...(['echo', 'fail'] as const).filter((g) => used.has(g))];
}

function actions(plan: Plan): Action[] {
  const act: Action[] = [];
  for (const run of plan.runs) {
    if (run.verb === 'cast') act.push({ cast: { intent: run.intent, as: run.name } });
    if (run.verb === 'send') {
      if (run.name === 'one') act.push({ invoke: { as: plan.origin } });
      act.push({ send: { entity: plan.origin, intent: run.intent, as: run.name } });
    }
    if (run.verb === 'fork') {
      act.push({ snapshot_loom: { as: 'before' } });
      // By position in the run that added the turn: sequence numbering across casts is open.
      act.push({ fork: { from: plan.fork ? forkRef(plan.fork) : { of: plan.origin, first: true }, intent: run.intent, as: run.name } });
    }
  }
  return act;
}

export interface CaseHeader {
  id: string;
  rules: string[];
  description: string;
}

/** The case for a plan, with the given header and expectations. */
export function buildCase(plan: Plan, header: CaseHeader, expect: Expectation[]): LoadedCase {
  const s = plan.scenario;
  const c: Case = {
    id: header.id,
    rules: header.rules,
    level: 'MUST',
    requires: plan.scenario.fork ? ['fork'] : [],
    description: header.description,
    setup: {
      crystal: CRYSTAL,
      call: s.system_prompt === null ? {} : { system_prompt: s.system_prompt },
      circle: { medium: 'conversation', gates: gates(plan), wards: { max_turns: s.max_turns } },
      require_done: s.require_done,
    },
    crystals: { [CRYSTAL]: { script: plan.script.map(scriptStep) } },
    act: actions(plan),
    expect,
  };
  return { ...c, position: { file: GENERATED_FILE, line: 0, column: 0 } };
}

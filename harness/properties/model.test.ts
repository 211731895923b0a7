import { describe, it, expect } from 'vitest';
import { CLOSING_STEP, plan } from './model.ts';
import type { Scenario, ScenarioStep } from './scenario.ts';

const scenario = (over: Partial<Scenario>): Scenario => ({ system_prompt: null, require_done: false, max_turns: 3, steps: [], sends: false, fork: null, ...over });
const echo = (text: string): ScenarioStep => ({ kind: 'calls', content: null, calls: [{ gate: 'echo', text }], usage: null });
const text = (t: string): ScenarioStep => ({ kind: 'text', text: t, usage: null });

describe('the scenario model', () => {
  it('LOOP-3, CIRCLE-8: the run ends at the first utterance with done; only records up to done are owed', () => {
    const p = plan(scenario({ steps: [{ kind: 'calls', content: null, calls: [{ gate: 'echo', text: 'a' }, { gate: 'done', answer: 7 }, { gate: 'echo', text: 'late' }], usage: null }, echo('never')] }));
    const [run] = p.runs;
    expect(run?.ending).toEqual({ status: 'terminated', by: 'done', result: 7, at: 0 });
    expect(run?.turns).toHaveLength(1);
    expect(run?.turns[0]?.records.map((r) => r.gate)).toEqual(['echo', 'done']);
    expect(run?.turns[0]?.allCallsRun).toBe(false);
    // The unserved step is not in the script.
    expect(p.script).toHaveLength(1);
  });

  it('LOOP-6: a text reply ends the run when require_done is false, and is an ordinary turn when it is true', () => {
    expect(plan(scenario({ steps: [text('hi'), echo('x')] })).runs[0]?.ending).toEqual({ status: 'terminated', by: 'text', result: 'hi' });
    const strict = plan(scenario({ require_done: true, steps: [text('hi'), echo('x')] })).runs[0];
    expect(strict?.turns.map((t) => t.terminated)).toEqual([false, false, true]);
    expect(strict?.turns[2]?.step).toBe(CLOSING_STEP);
  });

  it('LOOP-4, CIRCLE-6: a run that never finishes is truncated at max_turns, counted per cast', () => {
    const p = plan(scenario({ max_turns: 2, sends: true, steps: [echo('a'), echo('b'), echo('c'), echo('d'), echo('e')] }));
    expect(p.runs.map((r) => [r.name, r.turns.length, r.ending.status])).toEqual([
      ['one', 2, 'truncated'],
      ['two', 2, 'truncated'],
    ]);
    expect(p.runs[1]?.turns.at(-1)?.truncated).toBe(true);
  });

  it('CIRCLE-7: tool call ids follow the order the crystal serves them, including calls after done', () => {
    const p = plan(scenario({ sends: true, steps: [{ kind: 'calls', content: null, calls: [{ gate: 'done', answer: 1 }, { gate: 'fail', message: null }], usage: null }, echo('b')] }));
    expect(p.runs[0]?.turns[0]?.records.map((r) => r.tool_call_id)).toEqual(['tc1']);
    expect(p.runs[1]?.turns[0]?.records).toEqual([{ tool_call_id: 'tc3', gate: 'echo', ok: true, result: 'b' }]);
  });

  it('CIRCLE-5: failing and unknown gates are owed records with ok false', () => {
    const p = plan(scenario({ steps: [{ kind: 'calls', content: null, calls: [{ gate: 'fail', message: 'x' }, { gate: 'unknown', name: 'search' }], usage: null }, text('end')] }));
    expect(p.runs[0]?.turns[0]?.records).toEqual([
      { tool_call_id: 'tc1', gate: 'fail', ok: false },
      { tool_call_id: 'tc2', gate: 'search', ok: false },
    ]);
  });

  it('PROD-3: usage is per turn, default when unscripted, and cumulative over an invoked entity', () => {
    const used = { prompt: 100, completion: 20, cached: 3 };
    const p = plan(scenario({ sends: true, steps: [{ kind: 'text', text: 'a', usage: used }, text('b')] }));
    expect(p.runs[0]?.usageAfter).toEqual(used);
    expect(p.runs[1]?.turns[0]?.usage).toEqual({ prompt: 10, completion: 5, cached: 0 });
    expect(p.runs[1]?.usageAfter).toEqual({ prompt: 110, completion: 25, cached: 3 });
  });

  it('LOOM-4: the fork turn is taken modulo the original turns, named by its position in its run, and the fork runs on the steps left', () => {
    const p = plan(scenario({ max_turns: 3, steps: [echo('a'), echo('b'), echo('c'), text('fork says')], fork: { from: 5 } }));
    expect(p.runs.map((r) => r.verb)).toEqual(['cast', 'fork']);
    expect(p.fork).toEqual({ run: 'first', nth: 2, index: 1, runsATurn: true });
    expect(p.runs[1]?.ending).toEqual({ status: 'terminated', by: 'text', result: 'fork says' });
    // The fork ends within the turns left after its inherited path, so every reading of the cap agrees.
    expect(p.runs[1]?.definite).toBe(true);
  });

  it('LOOM-4: a fork point in a second send is named within that send, never by sequence', () => {
    const p = plan(scenario({ max_turns: 4, sends: true, steps: [text('one'), echo('a'), text('two'), text('fork')], fork: { from: 3 } }));
    expect(p.runs.map((r) => [r.name, r.turns.length, r.definite])).toEqual([
      ['one', 1, true],
      ['two', 2, true],
      ['branch', 1, true],
    ]);
    expect(p.fork).toEqual({ run: 'two', nth: 2, index: 2, runsATurn: true });
  });

  it('LOOP-4: a run the turn cap reads differently per cast and per entity is not definite, nor is any run after it', () => {
    // Per cast, the second send has 2 turns of its own; per entity, the first send used 1 of 2.
    const p = plan(scenario({ max_turns: 2, sends: true, steps: [text('one'), echo('a'), text('two'), text('fork')], fork: { from: 9 } }));
    expect(p.runs.map((r) => [r.name, r.definite, r.leastBudget])).toEqual([
      ['one', true, 2],
      ['two', false, 1],
      ['branch', false, 1],
    ]);
    // The fork starts from a turn of a definite run only.
    expect(p.fork?.run).toBe('one');
    // A second send that finishes within what is left under either reading stays definite.
    const q = plan(scenario({ max_turns: 3, sends: true, steps: [text('one'), echo('a'), text('two')] }));
    expect(q.runs.map((r) => r.definite)).toEqual([true, true]);
    // After a truncated first send, nothing is left under the per-entity reading.
    const r = plan(scenario({ max_turns: 1, sends: true, steps: [echo('a'), text('two')] }));
    expect(r.runs.map((x) => [x.ending.status, x.definite])).toEqual([
      ['truncated', true],
      ['terminated', false],
    ]);
  });
});

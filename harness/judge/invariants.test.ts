import { describe, it, expect } from 'vitest';
import type { Result } from '../../schemas/adapter.ts';
import type { Turn } from '../../schemas/records.ts';
import { Miniature } from '../../fixtures/miniatures/miniature.ts';
import { loadCaseText } from '../case-file/load.ts';
import { runCase } from '../run/run.ts';

// Two crystal turns (echo, then done) under a system prompt: every invariant has something to check.
const CASE = loadCaseText(`format_version: 1
spec_version: 0.1.0-draft
cases:
  - id: two-turns
    rules: [LOOP-3]
    level: MUST
    description: echo then done
    setup: { crystal: parent, call: { system_prompt: "S" }, circle: { medium: conversation, gates: [done, echo], wards: { max_turns: 3 } } }
    crystals:
      parent: { script: [{ tool_calls: [{ gate: echo, args: { text: a } }] }, { tool_calls: [{ gate: done, args: { answer: 1 } }] }] }
    act: [{ cast: { intent: go, as: first } }]
    expect: [{ path: outcomes.first.result, equals: 1 }]
`).cases[0]!;

/** A miniature whose loom() answer is rewritten, to plant one flaw at a time. */
class Tampered extends Miniature {
  constructor(private readonly tamper: (turns: Turn[]) => void) {
    super();
  }
  override async loom(): Promise<Result<{ turns: Turn[] }>> {
    const result = await super.loom();
    const crystal = result.ok ? result.value.turns.filter((t) => t.role === 'crystal') : [];
    // Plant the flaw once both crystal turns exist (loom() is also read after construct).
    if (crystal.length === 2) this.tamper(crystal);
    return result;
  }
}

async function invariantsWith(tamper: (crystalTurns: Turn[]) => void) {
  const m = new Miniature();
  const result = await runCase(CASE, () => new Tampered(tamper), await m.describe());
  if (result.status === 'errored') throw new Error(result.reason);
  const failing = result.invariants.filter((i) => i.status === 'fail');
  return { status: result.status, failedRules: result.failed_rules, failed: failing.map((i) => i.id), rules: failing.flatMap((i) => i.rules) };
}

describe('ambient invariants', () => {
  it('all hold on an untouched loom', async () => {
    const m = new Miniature();
    const result = await runCase(CASE, () => new Miniature(), await m.describe());
    expect(result.invariants.map((i) => [i.id, i.status])).toEqual([
      ['turn-schema', 'pass'], ['gate-record-contract', 'skipped'], ['request-schema', 'pass'], ['alternation', 'pass'], ['ids-and-parents', 'pass'],
      ['terminal-state', 'pass'], ['usage-recorded', 'pass'], ['call-leads', 'pass'], ['intent-first', 'pass'],
      ['results-linked', 'pass'], ['wire-format', 'skipped'],
    ]);
    // secret-kept-out checks PROD-8, a rule of 0.3.1: a 0.1.0 run (the miniature declares no draft) leaves it out.
  });

  it('LOOM-2: a repeated turn id fails ids-and-parents', async () => {
    const r = await invariantsWith((t) => (t[1]!.id = t[0]!.id));
    expect(r.failed).toContain('ids-and-parents');
    expect(r.rules).toContain('LOOM-2');
  });

  it('LOOM-2: a parent that is not in the loom fails ids-and-parents', async () => {
    expect((await invariantsWith((t) => (t[0]!.parent_id = 'nowhere'))).failed).toContain('ids-and-parents');
  });

  it('LOOP-1: a gap in sequence fails alternation', async () => {
    const r = await invariantsWith((t) => (t[1]!.sequence = 5));
    expect(r.failed).toContain('alternation');
    expect(r.rules).toContain('LOOP-1');
  });

  it('a turn stored that did not happen is the drive\'s LOOM-7 finding: the chain and terminal checks are not judged on that loom', async () => {
    // One more, empty crystal turn after the last real one, numbered out of turn: alternation alone would blame LOOP-1.
    class ExtraTurn extends Miniature {
      override async loom(): Promise<Result<{ turns: Turn[] }>> {
        const result = await super.loom();
        const last = result.ok ? result.value.turns.filter((t) => t.role === 'crystal').at(-1) : undefined;
        if (result.ok && last?.terminated === true) result.value.turns.push({ ...last, id: `${last.id}-extra`, parent_id: last.id, sequence: last.sequence + 5, utterance: '', observation: '', gate_calls: [] });
        return result;
      }
    }
    const result = await runCase(CASE, () => new ExtraTurn(), await new Miniature().describe());
    expect(result.failed_rules).toEqual(['LOOM-7']);
    expect(result.invariants.filter((i) => i.status === 'fail').map((i) => i.id)).toEqual([]);
    expect(result.invariants.find((i) => i.id === 'alternation')?.status).toBe('skipped');
  });

  it('LOOP-1: a turn whose parent is not the previous turn fails alternation', async () => {
    expect((await invariantsWith((t) => (t[1]!.parent_id = t[0]!.parent_id))).failed).toContain('alternation');
  });

  it('LOOM-7: a terminal turn marked neither way fails terminal-state', async () => {
    const r = await invariantsWith((t) => (t[1]!.terminated = false));
    expect(r.failed).toContain('terminal-state');
    expect(r.rules).toContain('LOOM-7');
  });

  it('LOOM-7: an earlier turn marked terminated fails terminal-state', async () => {
    expect((await invariantsWith((t) => (t[0]!.terminated = true))).failed).toContain('terminal-state');
  });

  it('LOOM-9: a turn without metadata fails turn-schema and usage-recorded', async () => {
    const r = await invariantsWith((t) => delete (t[0] as Partial<Turn>).metadata);
    expect(r.failed).toEqual(expect.arrayContaining(['turn-schema', 'usage-recorded']));
    // The case's verdict is its own expectation, which holds: the invariant is judged once per run
    // (harness/report/ambient-checks.ts), not as this case's failure.
    expect(r.status).toBe('pass');
    expect(r.failedRules).toEqual([]);
  });
});

// A child whose crystal fails before it stores a turn, on the parent's crystal scripted per entity: a
// child may legitimately account for one entity the actions did not produce.
const FAILED_CHILD = loadCaseText(`format_version: 1
spec_version: 0.1.0-draft
cases:
  - id: failed-child
    rules: [COMP-8]
    level: MUST
    requires: [composition]
    description: a child whose crystal fails, then the parent's done
    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done, call_entity], wards: { max_turns: 3 } } }
    crystals:
      parent:
        script:
          - tool_calls: [{ gate: call_entity, args: { intent: "doomed-child" } }]
          - tool_calls: [{ gate: done, args: { answer: survived } }]
        by_entity:
          child: { script: [{ error: { status: 400 } }] }
    act: [{ cast: { intent: "Survive a child", as: first } }]
    expect: [{ path: outcomes.first.result, equals: survived }]
`).cases[0]!;

/** A miniature whose loom() answer is rewritten once the cast is over (both of the parent's crystal turns are stored). */
class TamperedLoom extends Miniature {
  constructor(private readonly tamper: (turns: Turn[]) => Turn[]) {
    super();
  }
  override async loom(): Promise<Result<{ turns: Turn[] }>> {
    const result = await super.loom();
    if (!result.ok || result.value.turns.filter((t) => t.role === 'crystal').length < 2) return result;
    return { ok: true, value: { turns: this.tamper(result.value.turns) } };
  }
}

async function failedChildWith(tamper: (turns: Turn[]) => Turn[]) {
  const result = await runCase(FAILED_CHILD, () => new TamperedLoom(tamper), await new Miniature().describe());
  if (result.status === 'errored') throw new Error(result.reason);
  return { status: result.status, failedRules: result.failed_rules, terminalState: result.invariants.find((i) => i.id === 'terminal-state')?.status };
}

/** The parent's last crystal turn, the one that records its done. */
const lastCrystal = (turns: Turn[]): Turn => turns.filter((t) => t.role === 'crystal').at(-1)!;

describe('terminal-state beside a stray entity (ENTITY-1, not LOOM-7)', () => {
  it('untouched, the case passes and the cast\'s last turn is judged terminated', async () => {
    expect(await failedChildWith((turns) => turns)).toEqual({ status: 'pass', failedRules: [], terminalState: 'pass' });
  });

  it('a turn stored for the child\'s failed query (as the reference does) is a child of its own, not a stray entity', async () => {
    const r = await failedChildWith((turns) => {
      const spawning = turns.filter((t) => t.role === 'crystal')[0]!;
      const failed: Turn = { ...structuredClone(spawning), id: 'child-turn', parent_id: spawning.id, entity_id: 'child-entity', sequence: 1, utterance: '', observation: '', gate_calls: [], terminated: false, truncated: false };
      return [...turns, failed];
    });
    expect(r).toEqual({ status: 'pass', failedRules: [], terminalState: 'pass' });
  });

  it('the parent\'s done kept under an entity nobody produced is ENTITY-1, and terminal-state is not judged on it', async () => {
    // The count of entities cannot tell it from the failed child; the reply the turn records can (harness/drive/answered-queries.ts).
    const r = await failedChildWith((turns) => {
      lastCrystal(turns).entity_id = 'stray-entity';
      return turns;
    });
    expect(r).toEqual({ status: 'fail', failedRules: ['ENTITY-1'], terminalState: 'skipped' });
  });

  it('found the same way when the loom keeps no call ids and results as the text the entity saw', async () => {
    const r = await failedChildWith((turns) => {
      const last = lastCrystal(turns);
      last.entity_id = 'stray-entity';
      last.gate_calls = last.gate_calls.map(({ gate, arguments: args, ok }) => ({ gate, arguments: args, ok, result: 'survived' })) as Turn['gate_calls'];
      return turns;
    });
    expect(r.failedRules).toEqual(['ENTITY-1']);
    expect(r.terminalState).toBe('skipped');
  });
});

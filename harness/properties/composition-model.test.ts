import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { loadCaseText } from '../load.ts';
import { buildCompositionCase } from './composition-case.ts';
import { COMPOSITION_PROPERTIES } from './composition-definitions.ts';
import { planComposition } from './composition-model.ts';
import { compositionArbitrary, type ChildScenario, type CompositionScenario } from './composition-scenario.ts';
import { caseFileYaml } from './reproducer.ts';

const kid = (over: Partial<ChildScenario>): ChildScenario => ({ ending: { kind: 'done', answer: 1 }, work: 0, gates: null, lacking: false, max_turns: null, delay_ms: 0, ...over });
const scenario = (over: Partial<CompositionScenario>): CompositionScenario => ({ batch: true, children: [kid({})], counter: true, before: false, max_turns: 3, answer: 'top', ...over });

describe('the composition model', () => {
  it('WARD-1, COMP-8: a child is capped at the smaller turn limit, and one cut off or sent an invalid reply fails with child_failed', () => {
    const p = planComposition(scenario({ max_turns: 4, children: [kid({ work: 2, max_turns: 2 }), kid({ ending: { kind: 'overrun' } }), kid({ ending: { kind: 'invalid' } }), kid({ ending: { kind: 'text', text: 'hi' } })] }));
    expect(p.children.map((c) => [c.limit, c.turns, c.truncatedByCap, c.answer])).toEqual([
      [2, 2, true, { ok: false, code: 'child_failed' }],
      [4, 4, true, { ok: false, code: 'child_failed' }],
      [4, 1, false, { ok: false, code: 'child_failed' }],
      [4, 1, false, { ok: true, result: 'hi' }],
    ]);
    expect(p.children[1]?.script).toHaveLength(5);
  });

  it('COMP-1: a child gets done plus what it asked for, or all the parent test gates; only a single call asks for a gate the parent lacks', () => {
    const single = planComposition(scenario({ batch: false, counter: false, children: [kid({ gates: ['echo', 'counter'], lacking: true }), kid({})] }));
    expect(single.children).toHaveLength(1);
    expect(single.children[0]).toMatchObject({ runs: false, request: { intent: 'child-1', gates: ['echo', 'fetch'] }, answer: { ok: false, code: 'gate_not_granted' } });
    const batch = planComposition(scenario({ children: [kid({ gates: ['counter'], lacking: true }), kid({})] }));
    expect(batch.children.map((c) => [c.runs, c.tools])).toEqual([
      [true, ['counter', 'done']],
      [true, ['counter', 'done', 'echo']],
    ]);
  });

  it('COMP-3: delays go on batch children only, and the parent delegates after its note', () => {
    const batch = planComposition(scenario({ before: true, children: [kid({ delay_ms: 4 })] }));
    expect(batch.children[0]?.script[0]?.delay_ms).toBe(4);
    expect([batch.spawnTurn, batch.parentTurns]).toEqual([1, 3]);
    const single = planComposition(scenario({ batch: false, children: [kid({ delay_ms: 4 })] }));
    expect(single.children[0]?.script[0]?.delay_ms).toBeUndefined();
  });
});

describe('composition reproducers are tests.yaml text', () => {
  it('COMP-1, COMP-3, COMP-4, COMP-5, COMP-6, COMP-8, WARD-1: every generated composition case loads with the harness loader as the same case', () => {
    fc.assert(
      fc.property(compositionArbitrary, fc.constantFrom(...COMPOSITION_PROPERTIES), (s, property) => {
        const p = planComposition(s);
        const checks = property.expectations(p).checks;
        fc.pre(checks.length > 0);
        const c = buildCompositionCase(p, { id: `property-${property.id}`, rules: property.rules, description: property.title }, checks);
        const { position: _a, ...want } = c;
        const { position: _b, ...got } = loadCaseText(caseFileYaml([c]), 'repro.yaml').cases[0]!;
        expect(got).toEqual(want);
      }),
      { seed: 12, numRuns: 150 },
    );
  });
});

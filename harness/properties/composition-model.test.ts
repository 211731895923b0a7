import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { loadCaseText } from '../case-file/load.ts';
import { buildCompositionCase } from './composition-case.ts';
import { COMPOSITION_PROPERTIES } from './composition-definitions.ts';
import { planComposition } from './composition-model.ts';
import { compositionArbitrary, type ChildScenario, type CompositionScenario } from './composition-scenario.ts';
import { caseFileYaml } from './reproducer.ts';
import { reproducerAt } from './drafts.ts';
import { namedRules } from './evaluate.ts';

const kid = (over: Partial<ChildScenario>): ChildScenario => ({ ending: { kind: 'done', answer: 1 }, work: 0, gates: null, lacking: false, max_turns: null, delay_ms: 0, ...over });
const scenario = (over: Partial<CompositionScenario>): CompositionScenario => ({ batch: true, children: [kid({})], counter: true, before: false, max_turns: 3, answer: 'top', ...over });

describe('the composition model', () => {
  it('WARD-1, COMP-8, COMP-2: a child is capped at the smaller turn limit; only a done answer and a crystal failure are pinned, the rest is open', () => {
    const p = planComposition(scenario({ max_turns: 4, children: [kid({ work: 2, max_turns: 2 }), kid({ ending: { kind: 'overrun' } }), kid({ ending: { kind: 'invalid' } }), kid({ ending: { kind: 'text', text: 'hi' } }), kid({ ending: { kind: 'done', answer: 'yes' } })] }));
    expect(p.children.map((c) => [c.limit, c.turns, c.truncatedByCap, c.invalidServed, c.answer])).toEqual([
      [2, 2, true, false, { kind: 'open' }],
      [4, 4, true, false, { kind: 'open' }],
      [4, 1, false, true, { kind: 'failed' }],
      [4, 1, false, false, { kind: 'open' }],
      [4, 1, false, false, { kind: 'answer', value: 'yes' }],
    ]);
    expect(p.children[1]?.script).toHaveLength(5);
    // CRYSTAL-3 on either reading: no text and no gate calls at all (no empty list, no empty string).
    expect(p.children[2]?.script.at(-1)).toEqual({ content: null, raw: true });
  });

  it('COMP-1: a request for a gate the parent lacks maybe runs (refused, or run without it); only a single call makes one', () => {
    const single = planComposition(scenario({ batch: false, counter: false, children: [kid({ gates: ['echo', 'counter'], lacking: true }), kid({})] }));
    expect(single.children).toHaveLength(1);
    expect(single.children[0]).toMatchObject({ runs: 'maybe', request: { intent: 'child-1', gates: ['echo', 'fetch'] }, answer: { kind: 'open' } });
    const batch = planComposition(scenario({ children: [kid({ gates: ['counter'], lacking: true }), kid({})] }));
    expect(batch.children.map((c) => [c.runs, c.request])).toEqual([
      ['yes', { intent: 'child-1', gates: ['counter'] }],
      ['yes', { intent: 'child-2' }],
    ]);
  });

  it('COMP-6: the parent sets max_depth 1 itself, so nothing rests on the default depth', () => {
    const c = buildCompositionCase(planComposition(scenario({})), { id: 'x', rules: [], description: 'x' }, [{ path: 'cantrips.main', present: true }]);
    expect(c.setup.circle?.wards).toEqual({ max_turns: 3, max_depth: 1 });
  });

  it('only the child options the implementation takes are drawn', () => {
    fc.assert(
      fc.property(compositionArbitrary({ gates: false, max_turns: false }), (s) => s.children.every((c) => c.gates === null && c.max_turns === null && !c.lacking)),
      { seed: 5, numRuns: 100 },
    );
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
      fc.property(compositionArbitrary(), fc.constantFrom(...COMPOSITION_PROPERTIES), (s, property) => {
        const p = planComposition(s);
        const checks = namedRules(property, property.expectations(p).checks, property.rules);
        fc.pre(checks.length > 0);
        // As run-properties prints it for the 0.1.0 draft: a case on an amended rule names its draft.
        const c = reproducerAt(buildCompositionCase(p, { id: `property-${property.id}`, rules: property.rules, description: property.title }, checks), '0.1.0');
        const { position: _a, ...want } = c;
        const { position: _b, ...got } = loadCaseText(caseFileYaml([c]), 'repro.yaml').cases[0]!;
        expect(got).toEqual(want);
      }),
      { seed: 12, numRuns: 150 },
    );
  });
});

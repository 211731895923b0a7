import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { loadCaseText } from '../case-file/load.ts';
import { buildCase } from './build-case.ts';
import { PROPERTIES } from './definitions.ts';
import { plan } from './model.ts';
import { caseFileYaml, caseYaml } from './reproducer.ts';
import { scenarioArbitrary } from './scenario.ts';
import { namedRules } from './evaluate.ts';

describe('reproducers are tests.yaml text', () => {
  it('every generated case, written out, loads with the harness loader as the same case (all properties)', () => {
    fc.assert(
      fc.property(scenarioArbitrary({ fork: true }), fc.constantFrom(...PROPERTIES), (scenario, property) => {
        const p = plan(scenario);
        const checks = namedRules(property, property.expectations(p).checks, property.rules);
        fc.pre(checks.length > 0);
        const c = buildCase(p, { id: `property-${property.id}`, rules: property.rules, description: property.title }, checks);
        const loaded = loadCaseText(caseFileYaml([c]), 'repro.yaml');
        const { position: _a, ...want } = c;
        const { position: _b, ...got } = loaded.cases[0]!;
        expect(got).toEqual(want);
      }),
      { seed: 11, numRuns: 150 },
    );
  });

  it('writes a paste-ready list item: small maps inline, one expectation per line, no anchors', () => {
    const p = plan({ system_prompt: 'be brief', require_done: false, max_turns: 2, steps: [{ kind: 'calls', content: null, calls: [{ gate: 'done', answer: { n: 1 } }], usage: null }], sends: false, fork: null });
    const checks = PROPERTIES[0]!.expectations(p).checks;
    const text = caseYaml(buildCase(p, { id: 'property-x', rules: ['LOOP-3'], description: 'x' }, checks));
    expect(text.startsWith('- id: property-x\n')).toBe(true);
    expect(text).toContain('wards: { max_turns: 2 }');
    expect(text).not.toMatch(/[&*]a\d/);
    expect(text.split('\n').filter((l) => l.trimStart().startsWith('- { path:'))).toHaveLength(checks.length);
  });
});

/**
 * The properties under a judged draft (harness/properties/drafts.ts): which run there, and in whose
 * rule ids and level their results are reported.
 */
import { describe, it, expect } from 'vitest';
import type { Adapter } from '../../schemas/adapter.ts';
import { Miniature } from '../../fixtures/miniatures/miniature.ts';
import { propertyAppliesAt, propertyTermsAt, reproducerAt } from './drafts.ts';
import { runProperties } from './run-properties.ts';
import { hangBound } from '../testing/hang-bound.ts';
import { catalogOf } from '../../spec/drafts.ts';
import { loadCaseText } from '../case-file/load.ts';
import { caseForDraft } from '../plan/index.ts';
import { buildCase } from './build-case.ts';
import { PROPERTIES } from './definitions.ts';
import { plan } from './model.ts';
import { caseFileYaml } from './reproducer.ts';
import { namedRules } from './evaluate.ts';

describe('properties at a draft', () => {
  it('a property runs where its rules keep a counterpart that has not turned around', () => {
    expect(propertyAppliesAt(['CRYSTAL-4'], '0.3.1')).toBe(true);
    expect(propertyAppliesAt(['LOOP-3', 'CIRCLE-8'], '0.2.0')).toBe(true);
    // Amended only (a SHOULD added on caps): the order of batch results still holds.
    expect(propertyAppliesAt(['COMP-3'], '0.3.1')).toBe(true);
    expect(propertyAppliesAt(['COMP-1'], '0.2.0')).toBe(false);
    expect(propertyAppliesAt(['COMP-1'], '0.1.0')).toBe(true);
  });

  it("its rules in the draft's ids, and no level above what they state there", () => {
    expect(propertyTermsAt({ rules: ['CRYSTAL-4', 'CIRCLE-9'], level: 'MUST' as const }, '0.3.1')).toEqual({ rules: ['LLM-4', 'MEDIUM-3'], level: 'MUST' });
    expect(propertyTermsAt({ rules: ['COMP-9'], level: 'MUST' as const }, '0.3.1')).toEqual({ rules: ['COMP-9'], level: 'SHOULD' });
    expect(propertyTermsAt({ rules: ['COMP-9'], level: 'MUST' as const }, '0.1.0')).toEqual({ rules: ['COMP-9'], level: 'MUST' });
  });

  it('runProperties at 0.3.1 leaves out a reversed rule’s property and reports in 0.3.1 ids', async () => {
    const declaring = (): Adapter => {
      const adapter = new Miniature();
      const own = adapter.describe.bind(adapter);
      adapter.describe = async () => ({ ...(await own()), drafts: ['0.1.0', '0.3.1'] });
      return adapter;
    };
    const description = await declaring().describe();
    const results = await runProperties(declaring, description, { runs: 2, draft: '0.3.1', filter: ['tool-call-ids-unique-anywhere', 'child-gates-are-a-granted-subset'] });
    expect(results.map((r) => [r.id, r.rules])).toEqual([['tool-call-ids-unique-anywhere', ['LLM-4']]]);
    const atSeed = await runProperties(declaring, description, { runs: 2, draft: '0.1.0', filter: ['tool-call-ids-unique-anywhere', 'child-gates-are-a-granted-subset'] });
    expect(atSeed.map((r) => [r.id, r.rules])).toEqual([
      ['tool-call-ids-unique-anywhere', ['CRYSTAL-4']],
      ['child-gates-are-a-granted-subset', ['COMP-1']],
    ]);
  }, hangBound(120_000));

  it('a reproducer on an amended rule lists the draft it was found at, right after its level; others are left alone', () => {
    const amended = reproducerAt({ id: 'property-x', rules: ['COMP-3'], level: 'MUST', description: 'd' }, '0.3.1');
    expect(Object.keys(amended)).toEqual(['id', 'rules', 'level', 'drafts', 'description']);
    expect((amended as { drafts?: string[] }).drafts).toEqual(['0.3.1']);
    const plain = { id: 'property-y', rules: ['LOOP-3'], level: 'MUST', description: 'd' };
    expect(reproducerAt(plain, '0.3.1')).toBe(plain);
  });

  it("a reproducer found at a draft that renames one of its rules is written in that draft's ids, and loads as such (issue 31: one rule id everywhere)", () => {
    const p = plan({ system_prompt: 'be brief', require_done: false, max_turns: 2, steps: [{ kind: 'calls', content: null, calls: [{ gate: 'done', answer: { n: 1 } }], usage: null }], sends: false, fork: null });
    const property = PROPERTIES.find((x) => x.rules.includes('CALL-2'))!;
    const built = buildCase(p, { id: `property-${property.id}`, rules: property.rules, description: property.title }, namedRules(property, property.expectations(p).checks, property.rules));
    const written = reproducerAt(built, '0.3.1') as typeof built & { rules_draft?: string; drafts?: string[] };
    expect([written.rules_draft, written.drafts]).toEqual(['0.3.1', ['0.3.1']]);
    const ids = [...written.rules, ...written.expect.flatMap((e) => (e.rule === undefined ? [] : [e.rule]))];
    expect(ids).toContain('IDENTITY-2');
    const catalog = new Set(catalogOf('0.3.1').rules.map((r) => r.id));
    expect(ids.filter((id) => !catalog.has(id))).toEqual([]);
    const loaded = loadCaseText(caseFileYaml([written]), 'repro.yaml').cases[0]!;
    expect(caseForDraft(loaded, '0.3.1')?.rules).toEqual(written.rules);
  });
});

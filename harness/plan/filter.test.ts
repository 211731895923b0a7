/**
 * The one reading of filter terms (harness/plan/filter.ts): any case of letters, an unknown term
 * refused, another draft's rule id read as the judged draft's, a removed rule refused; and the planning
 * stage's list of property ids kept equal to the properties' own.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { loadCaseFile, PACKAGE_ROOT } from '../case-file/index.ts';
import { ALL_PROPERTY_IDS } from '../properties/index.ts';
import { assertSelectsSomething, FilterError, filterVocabulary, resolveFilterTerms, selectCases, selects, termsAtDraft } from './filter.ts';
import { PROPERTY_IDS } from './property-ids.ts';

const file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
const vocabulary = filterVocabulary(file.cases);

describe('filter terms', () => {
  it('reads any case of letters and comma-separated lists, in canonical spelling', () => {
    expect(resolveFilterTerms(['loop-3,Done-Ends-Cast-With-Answer', ' loom '], vocabulary)).toEqual(['LOOP-3', 'done-ends-cast-with-answer', 'LOOM']);
    expect(selects({ id: 'x', rules: ['LOOP-3'] }, ['loop-3'])).toBe(true);
    expect(selects({ id: 'x', rules: ['LOOP-3'] }, ['loop'])).toBe(true);
    expect(selects({ id: 'x', rules: ['LOOP-3'] }, ['LOOP-4'])).toBe(false);
  });

  it('refuses a list with one unknown term, however many others are known', () => {
    expect(() => resolveFilterTerms(['LOOP-3', 'lopp-5'], vocabulary)).toThrow(FilterError);
  });

  it("reads another draft's rule id (and family) as the judged draft's counterpart, and keeps the judged draft's own ids", () => {
    expect(termsAtDraft(['CRYSTAL-5'], '0.3.1')).toContain('LLM-5');
    expect(termsAtDraft(['LLM-5'], '0.1.0')).toContain('CRYSTAL-5');
    expect(termsAtDraft(['LOOP-3', 'done-ends-cast-with-answer'], '0.3.1')).toEqual(['LOOP-3', 'done-ends-cast-with-answer']);
    expect(termsAtDraft(['CRYSTAL'], '0.3.1').filter((t) => t !== 'CRYSTAL').every((t) => t.startsWith('LLM-'))).toBe(true);
    expect(selectCases(file.cases, ['crystal-5'], '0.3.1').map((c) => c.id)).toEqual(selectCases(file.cases, ['LLM-5'], '0.3.1').map((c) => c.id));
  });

  it('a rule the judged draft removes selects no case inside that draft, only cases outside it', () => {
    expect(selectCases(file.cases, ['CANTRIP-3'], '0.3.1')).toEqual([]);
    expect(selectCases(file.cases, ['CANTRIP-3'], '0.1.0').length).toBeGreaterThan(0);
    expect(() => assertSelectsSomething(['CANTRIP-3'], { cases: selectCases(file.cases, ['CANTRIP-3'], '0.3.1').length, properties: 0 }, 'tests.yaml')).toThrow(FilterError);
  });

  it("planning's list of property ids is the properties' own", () => {
    expect([...PROPERTY_IDS].sort()).toEqual([...ALL_PROPERTY_IDS].sort());
  });
});

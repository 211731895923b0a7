/**
 * Filter terms, one way for every interface (the CLI's `--filter`, `runSuite`'s and `runProperties`'
 * `filter`, the vitest helper's `filter`): how terms are read ({@link resolveFilterTerms}), put in the
 * judged draft's rule ids ({@link termsAtDraft}) and matched ({@link selects}). A term is a case id, a
 * rule id of any draft (LOOP-3), a rule family (LOOP), a feature (code-medium) or a property id; case
 * does not matter (`loop-3` is LOOP-3). A term that names none of these is refused, since a typo would
 * otherwise narrow a run without anyone noticing. A filter that selects nothing to judge in the draft
 * judged (another draft's rule that it removes, say) is refused too: the CLI and the helper before
 * running, `exitCode()` after a library run.
 */
import { FEATURES } from '../../schemas/adapter.ts';
import { catalogOf, draftVersions, mapRuleId } from '../../spec/drafts.ts';
import { caseDrafts, type LoadedCase } from '../case-file/index.ts';
import { caseForDraft } from './drafts.ts';
import { PROPERTY_IDS } from './property-ids.ts';

/** A filter that cannot be honoured: an unknown term, a rule the judged draft removes, a selection of nothing. Bad usage (the CLI exits 2). */
export class FilterError extends Error {
  override readonly name = 'FilterError';
}

/** What a term can select: a case or a property, in one draft's rule ids. */
export interface Selectable {
  id: string;
  rules: readonly string[];
  requires?: readonly string[];
}

/** What a filter can name, gathered from the case file and the kit. */
export interface FilterVocabulary {
  caseIds: readonly string[];
  /** Rule ids listed by cases, and every draft catalog's. */
  ruleIds: readonly string[];
  propertyIds: readonly string[];
  /** Features cases require, and the declared feature names. */
  features: readonly string[];
}

/** The vocabulary of a case file, with every draft's rule ids, the kit's feature names and property ids added. */
export function filterVocabulary(cases: readonly Selectable[]): FilterVocabulary {
  return {
    caseIds: cases.map((c) => c.id),
    ruleIds: [...cases.flatMap((c) => c.rules), ...draftVersions().flatMap((d) => catalogOf(d).rules.map((r) => r.id))],
    propertyIds: PROPERTY_IDS,
    features: [...FEATURES, ...cases.flatMap((c) => c.requires ?? [])],
  };
}

/** The family of a rule id: the part before its number (LOOP of LOOP-3). */
const familyOf = (rule: string): string => rule.replace(/-\d+$/, '');

/**
 * Terms as a person writes them, in one list: each value may hold several terms separated by commas;
 * blanks are dropped. The CLI's repeated `--filter` and a library's array read the same.
 */
export function splitFilterTerms(values: readonly string[]): string[] {
  return values.flatMap((v) => v.split(',')).map((t) => t.trim()).filter(Boolean);
}

/**
 * Each term in its canonical spelling (`loop-3` becomes `LOOP-3`), duplicates dropped. Throws
 * {@link FilterError} naming every term that is none of the known kinds.
 */
export function resolveFilterTerms(values: readonly string[], vocabulary: FilterVocabulary): string[] {
  const terms = splitFilterTerms(values);
  const canonical = new Map<string, string>();
  const add = (name: string): void => {
    if (!canonical.has(name.toLowerCase())) canonical.set(name.toLowerCase(), name);
  };
  for (const name of [...vocabulary.caseIds, ...vocabulary.ruleIds, ...vocabulary.propertyIds, ...vocabulary.features]) add(name);
  for (const rule of vocabulary.ruleIds) add(familyOf(rule));
  const unknown = terms.filter((t) => !canonical.has(t.toLowerCase()));
  if (unknown.length > 0) {
    throw new FilterError(`filter: ${unknown.map((t) => `'${t}'`).join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not a case id, rule id, rule family, feature or property id`);
  }
  return [...new Set(terms.map((t) => canonical.get(t.toLowerCase())!))];
}

/**
 * The terms as the judged `draft` reads them: a rule id of another draft becomes its counterpart in
 * `draft` (CRYSTAL-4 adds LLM-4 at 0.3.1), a family that only another draft has adds the counterparts
 * of its rules; every term is kept. An id the judged draft has keeps its meaning there.
 */
export function termsAtDraft(terms: readonly string[], draft: string): string[] {
  const here = catalogOf(draft).rules.map((r) => r.id);
  const hereIds = new Set(here.map((id) => id.toUpperCase()));
  const hereFamilies = new Set(here.map((id) => familyOf(id).toUpperCase()));
  const others = draftVersions().filter((d) => d !== draft);
  const out: string[] = [];
  for (const term of terms) {
    const upper = term.toUpperCase();
    if (hereIds.has(upper) || hereFamilies.has(upper)) {
      out.push(term);
      continue;
    }
    // Another draft's rules this term names: the rule itself, or every rule of the family.
    const named = others.flatMap((d) => catalogOf(d).rules.filter((r) => r.id.toUpperCase() === upper || familyOf(r.id).toUpperCase() === upper).map((r) => ({ id: r.id, draft: d })));
    if (named.length === 0) {
      out.push(term);
      continue;
    }
    const mapped = [...new Set(named.flatMap((r) => mapRuleId(r.id, r.draft, draft) ?? []))];
    // The term stays too: no rule of the judged draft has it, so inside the draft it selects only through
    // its counterparts, while it still selects the cases written with it that are outside the draft
    // (listed, not run): a rule the judged draft removes selects only those, and a filter that selects
    // nothing else judges nothing (exit 2).
    out.push(term, ...mapped);
  }
  return [...new Set(out)];
}

/**
 * A term selects an item when it is the item's id, one of its rules, a rule family (`LOOM` selects
 * LOOM-*), or a feature it requires, whatever the case of its letters. No terms select everything.
 */
export function selects(item: Selectable, terms: readonly string[]): boolean {
  if (terms.length === 0) return true;
  const rules = item.rules.map((r) => r.toLowerCase());
  const requires = (item.requires ?? []).map((f) => f.toLowerCase());
  return terms.some((term) => {
    const t = term.toLowerCase();
    return t === item.id.toLowerCase() || rules.includes(t) || rules.some((r) => r.startsWith(`${t}-`)) || requires.includes(t);
  });
}

/**
 * Whether the terms select a case in some draft's terms: before the judged draft is known (the CLI
 * before the implementation describes itself, the vitest helper without `spec`), the draft the case
 * is written in or any it applies to.
 */
export function selectsInSomeDraft(c: LoadedCase, terms: readonly string[]): boolean {
  return selects(c, terms) || caseDrafts(c).some((d) => selects(caseForDraft(c, d) ?? c, terms));
}

/** Throws {@link FilterError} when a non-empty filter selected nothing: a green run that checked nothing must not happen. */
export function assertSelectsSomething(terms: readonly string[], selected: { cases: number; properties: number }, where: string): void {
  if (terms.length > 0 && selected.cases === 0 && selected.properties === 0) {
    throw new FilterError(`filter ${terms.join(',')} selects no case of ${where} and no property`);
  }
}

/**
 * The cases a filter selects, as every interface selects them: at the judged `draft`, the cases that
 * apply there, in its terms, that the terms select in its ids (another draft's rule id read as its
 * counterpart); with no draft yet, the cases as loaded that the terms select in some draft's ids.
 */
export function selectCases(cases: readonly LoadedCase[], terms: readonly string[], draft?: string): LoadedCase[] {
  if (draft === undefined) return cases.filter((c) => selectsInSomeDraft(c, terms));
  const at = termsAtDraft(terms, draft);
  return cases.flatMap((c) => {
    const there = caseForDraft(c, draft);
    return there !== undefined && selects(there, at) ? [there] : [];
  });
}

/**
 * `--filter` terms as a person types them, resolved to the spellings the planner matches exactly: a case
 * id, a rule id (LOOP-3), a rule family (LOOP), a feature (code-medium) or a property id. Case does not
 * matter (`loop-3` is LOOP-3); a term that names none of these is refused rather than silently dropped,
 * since a typo would otherwise narrow a run without anyone noticing.
 */
import { FEATURES } from '../../schemas/adapter.ts';
import { loadCatalog } from '../../spec/catalog.ts';
import { catalogOf, draftVersions } from '../../spec/drafts.ts';
import { UsageError } from './arguments.ts';

/** What a filter can name, gathered from the case file and the kit. */
export interface FilterVocabulary {
  caseIds: readonly string[];
  /** Rule ids listed by cases, every draft catalog's and the properties'. */
  ruleIds: readonly string[];
  propertyIds: readonly string[];
  /** Features cases or properties require, and the declared feature names. */
  features: readonly string[];
}

/** The vocabulary of a case file, with the kit's rule catalog and feature names added. */
export function filterVocabulary(cases: readonly { id: string; rules: readonly string[]; requires?: readonly string[] }[], propertyIds: readonly string[]): FilterVocabulary {
  return {
    caseIds: cases.map((c) => c.id),
    // Every registered draft's rule ids: a run judged at 0.3.1 is filtered by LLM-4 as well as CRYSTAL-4.
    ruleIds: [...cases.flatMap((c) => c.rules), ...loadCatalog().rules.map((r) => r.id as string), ...draftVersions().flatMap((d) => catalogOf(d).rules.map((r) => r.id))],
    propertyIds,
    features: [...FEATURES, ...cases.flatMap((c) => c.requires ?? [])],
  };
}

/**
 * Each term in its canonical spelling. Throws {@link UsageError} naming every term that is none of
 * the known kinds.
 */
export function resolveFilterTerms(terms: readonly string[], vocabulary: FilterVocabulary): string[] {
  const canonical = new Map<string, Set<string>>();
  const add = (name: string): void => {
    const key = name.toLowerCase();
    if (!canonical.has(key)) canonical.set(key, new Set());
    canonical.get(key)!.add(name);
  };
  for (const name of [...vocabulary.caseIds, ...vocabulary.ruleIds, ...vocabulary.propertyIds, ...vocabulary.features]) add(name);
  // A family is the part of a rule id before its number (LOOP of LOOP-3).
  for (const rule of vocabulary.ruleIds) add(rule.replace(/-\d+$/, ''));
  const unknown = terms.filter((t) => !canonical.has(t.toLowerCase()));
  if (unknown.length > 0) {
    throw new UsageError(`--filter: ${unknown.map((t) => `'${t}'`).join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not a case id, rule id, rule family, feature or property id`);
  }
  return [...new Set(terms.flatMap((t) => [...canonical.get(t.toLowerCase())!]))];
}

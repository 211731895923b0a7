/** Stage 2, planning: which loaded cases run, from filters and what the implementation declares. */
export { planCases } from './plan.ts';
export { assertSelectsSomething, FilterError, filterVocabulary, resolveFilterTerms, selectCases, selects, selectsInSomeDraft, splitFilterTerms, termsAtDraft } from './filter.ts';
export type { FilterVocabulary, Selectable } from './filter.ts';
export { PROPERTY_IDS } from './property-ids.ts';
export type { PlannedCase } from './plan.ts';
export { caseForDraft, chooseDraft, declaredDrafts, DraftChoiceError, KIT_RULES_DRAFT, kitRulesIn, ruleIdAt, ruleIdsInTextAt, UNDECLARED_DRAFT } from './drafts.ts';

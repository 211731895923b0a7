/** Stage 2, planning: which loaded cases run, from filters and what the implementation declares. */
export { planCases, selects } from './plan.ts';
export type { PlannedCase } from './plan.ts';
export { caseForDraft, chooseDraft, declaredDrafts, DraftChoiceError, KIT_RULES_DRAFT, kitRulesIn, UNDECLARED_DRAFT } from './drafts.ts';

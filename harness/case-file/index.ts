/** Stage 1, the case file: loading tests.yaml (positions, memo, load-time checks) and its types. */
export { checkExpectedFailureIds, ExpectedFailuresError, loadExpectedFailures } from './expected-failures.ts';
export type { ExpectedFailureList } from './expected-failures.ts';
export { CaseFileError, loadCaseFile, loadCaseText } from './load.ts';
export { PACKAGE_ROOT } from './package-root.ts';
export { CASE_FILE_RULES_DRAFT, caseDrafts, expectationLevel, levelFor, rulesDraftOf, statedLevels } from './drafts.ts';
export type { Action, Case, CaseCall, CaseCrystal, CaseFile, CaseGate, CaseGateObject, EntityLane, EventConsumerScript, Expectation, Level, LevelByDraft, LoadedCase, Matcher, ScriptProviderTool, ScriptStep, ScriptToolCall, TestGateKind, TurnRef, Verb } from './types.ts';
export { PathError, parsePath } from './path-syntax.ts';
export type { LoomHelper, Segment } from './path-syntax.ts';
export { setupNeeds, withSetupNeeds } from './setup-needs.ts';
export { CREDENTIAL_PLACEHOLDER } from './credential-checks.ts';
export { delegatedIntents, scriptSteps } from './script-steps.ts';

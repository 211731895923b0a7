/** Generated properties: scenarios drawn by fast-check, run and judged like cases, shrunk on failure. */
export { CODE_PROPERTIES } from './code-definitions.ts';
export { COMPOSITION_PROPERTIES } from './composition-definitions.ts';
export { PROPERTIES } from './definitions.ts';
export type { PropertyDefinition } from './definitions.ts';
export { ALL_PROPERTIES, ALL_PROPERTY_IDS, selectProperties, DEFAULT_CODE_PROPERTY_RUNS, DEFAULT_SEED, DEFAULT_PROPERTY_RUNS, PROPERTY_FAMILIES_AT_ONCE, randomSeed, runProperties, selectsProperty } from './run-properties.ts';
export type { PropertyResult, PropertyStatus } from './run-properties.ts';
export { applyExpectedPropertyFailures } from './expected-failures.ts';
export { propertyAppliesAt, propertyTermsAt } from './drafts.ts';
export { TOOL_CALL_ID_PROPERTIES } from './tool-call-ids.ts';

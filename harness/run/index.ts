/** Stage 5, runs: planning, driving and judging a case file into case results. */
export { DEFAULT_CASE_TIMEOUT_MS, describeAdapter, runCase, runSuite } from './run.ts';
export type { AdapterFactory, CaseResult, CaseStatus, SuiteResult } from './run.ts';

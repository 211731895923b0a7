export { createSandbox } from './sandbox.ts';
export { presentCodeMedium, gateSignature, gateParameterNames, CODE_TOOL, CODE_ARGUMENT } from './presentation.ts';
export { renderEvaluation } from './observation.ts';
export { DEFAULT_LIMITS, MAX_STACK_BYTES } from './limits.ts';
export { DONE_GATE } from './gate-bridge.ts';
export type { Evaluation, EvaluationError, Sandbox, SandboxGate, SandboxLimits, SandboxOptions } from './types.ts';

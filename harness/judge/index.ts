/** Stage 4, judging: expectations, ambient invariants and schema rules over a run record. */
export { checkExpectations, ruleOfExpectation } from './expectations.ts';
export type { ExpectationResult } from './expectations.ts';
export { checkInvariants } from './invariants.ts';
export { consequenceOf, loomDeparture, pathsRead } from './consequences.ts';
export type { Departure, RunCounts } from './consequences.ts';
export type { InvariantResult } from './invariants.ts';
export { normalisePointer, parseCauseKey, problemsInText, rulesForProblem, schemaCause } from './schema-rules.ts';
export { observeRecordShapes, RECORD_SHAPE_KINDS } from './record-shapes.ts';
export type { RecordShapeKind, RecordShapeKindInfo, RecordShapeObservation } from './record-shapes.ts';
export { driveAsReadAt, hasTextRecords, recordContractProblems, viewedRecord, TEXT_RECORD_RULE } from './records-per-draft.ts';
export type { TextGateCallRecord } from './records-per-draft.ts';

/** Stage 3, driving: one case through an adapter against scripted crystals and test gates, into a run record. */
export { translateBuiltinCall } from './builtin-arguments.ts';
export { driveCase } from './drive.ts';
export type { DriveResult } from './drive.ts';
export { DEFAULT_USAGE, MockCrystals, firstUserText } from './mock-crystal.ts';
export type { DepartedPart } from './mock-crystal.ts';
export { OutcomeWatch, watchedCase } from './outcome-watch.ts';
export { scriptsAWait } from './scripted-waits.ts';
export { prepareSetup } from './setup.ts';
export { SEARCHED, whereCredentialShows } from './credential-search.ts';
export type { CredentialRecord, GateCredential } from './gate-credential.ts';
export { limitNote } from './kit-limits.ts';
export type { BoundedKind, KitLimitReached } from './kit-limits.ts';

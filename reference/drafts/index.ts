export * from './draft.ts';
export * from './child-circle.ts';
export * from './child-identity.ts';
export * from './done-call.ts';
export * from './gate-call-records.ts';
export * from './batch-size.ts';

export * from './retry.ts';
export * from './usage.ts';
export * from './events.ts';
export * from './redaction.ts';

export * from './retry.ts';
export * from './usage.ts';
export * from './events.ts';
export * from './event-stream.ts';
export * from './redaction.ts';
export * from './operational-log.ts';

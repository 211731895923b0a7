export * from './records.ts';
export * from './adapter.ts';

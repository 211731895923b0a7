export * from './records.ts';
export * from './adapter.ts';
export type { SchemaProblem } from './loader.ts';

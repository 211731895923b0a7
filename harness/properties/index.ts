export * from './scenario.ts';
export * from './model.ts';
export * from './build-case.ts';
export * from './definitions.ts';
export * from './evaluate.ts';
export * from './reproducer.ts';
export * from './run-properties.ts';

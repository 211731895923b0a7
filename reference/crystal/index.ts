export * from './contract.ts';
export * from './crystal-error.ts';
export * from './validate.ts';
export * from './scripted.ts';
export * from './callback.ts';
export * from './providers/index.ts';

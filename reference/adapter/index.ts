export * from './reference-adapter.ts';
export * from './setup.ts';

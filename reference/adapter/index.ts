export * from './reference-adapter.ts';

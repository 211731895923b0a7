export * from './call.ts';

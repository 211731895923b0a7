export * from './reference-adapter.ts';
export * from './overlay-registry.ts';
export * from './setup.ts';
export * from './ward-setup.ts';

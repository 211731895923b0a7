export * from './cantrip.ts';
export * from './cantrip-parts.ts';
export * from './cast-result.ts';
export * from './entity.ts';
export * from './loop.ts';
export * from './context.ts';
export * from './truncation-summary.ts';

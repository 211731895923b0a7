export * from './names.ts';
export * from './spawn.ts';
export * from './child-limits.ts';
export * from './call-entity.ts';
export * from './call-entity-batch.ts';

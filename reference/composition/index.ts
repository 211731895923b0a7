export * from './names.ts';
export * from './spawn.ts';
export * from './admit-child.ts';
export * from './call-entity.ts';
export * from './call-entity-batch.ts';

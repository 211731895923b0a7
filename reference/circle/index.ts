export * from './gate.ts';
export * from './done.ts';
export * from './wards.ts';
export * from './circle.ts';
export * from './gate-execution.ts';
export * from './medium/medium.ts';
export * from './medium/conversation.ts';

export * from './agent.ts';
export * from './agent-cantrip.ts';
export * from './agent-crystal.ts';
export * from './agent-options.ts';
export * from './prompt-intent.ts';
export * from './session.ts';
export * from './session-updates.ts';
export * from './stop-reason.ts';

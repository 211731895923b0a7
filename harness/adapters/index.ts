/** Adapters: reaching an implementation (a module, or a process speaking the adapter protocol). */
export { createAdapterExport, importAdapterModule } from './adapter-module.ts';
export { killAllImplementationsNow, stopAllImplementations } from './child-process.ts';
export { isCommandSpec } from './command-line.ts';
export { startCommandAdapter } from './jsonrpc-adapter.ts';
export { GIVE_UP_AFTER, UnansweredStreak } from './unanswered.ts';

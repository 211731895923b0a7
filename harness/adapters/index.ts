/** Adapters: reaching an implementation (a module, or a process speaking the adapter protocol). */
export { createAdapterExport, importAdapterModule } from './adapter-module.ts';
export { killAllImplementationsNow, stopAllImplementations } from './child-process.ts';
export { isCommandSpec } from './command-line.ts';
export { startCommandAdapter } from './jsonrpc-adapter.ts';
export { GIVE_UP_AFTER, UnansweredStreak } from './unanswered.ts';
export { AcpAgentUnanswered, AcpClient, KIT_CLIENT_CAPABILITIES, MAX_CLIENT_REQUESTS_KEPT, MAX_INBOUND_KEPT, MAX_UPDATES_KEPT, PROMPT_FORMS } from './acp/acp-client.ts';
export type { AcpAnswer, AcpClientBounds, ClientRequestSeen, PromptExchange, PromptForm, ReceivedUpdate } from './acp/acp-client.ts';
export { fillLaunch } from './acp/launch.ts';
export type { AgentCrystalEndpoint, FilledLaunch } from './acp/launch.ts';

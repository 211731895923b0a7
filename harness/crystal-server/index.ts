/** The crystal server: scripted crystals served in the providers' wire formats. docs/crystal-server.md. */
export { startCrystalServer, newApiKey } from './server.ts';
export { WIRE_FORMATS } from './types.ts';
export type { CrystalServer, CrystalServerOptions, Exchange, ProviderStep, ServedReply, StreamSplit, WireFormat, WireProblem } from './types.ts';
export { summarizeExchange, formatProblems, wireErrors } from './summary.ts';

/**
 * The reference served as an Agent Client Protocol agent over stdio (PROD-6, PROD-7), through the
 * protocol's own SDK: one JSON-RPC message per line on stdin and stdout. Run it with
 *
 *   npx tsx reference/acp/stdio-agent.ts --crystal <spec> [--root <dir>] [--max-turns <n>]
 *
 * (`--help` lists the options; docs/acp.md says what maps to what).
 *
 * PROD-9, lifecycle: the process waits for its client's requests for as long as stdin is open, and an
 * idle agent is a healthy one; it exits when stdin ends. `--check` is the health check: it builds the
 * crystal and the cantrip, prints one JSON line saying what would be served, and exits (1 with the
 * error if something cannot be built); `--debug` traces every protocol message on stderr. stdout
 * carries protocol messages only; diagnostics go to stderr.
 *
 * PROD-8: the provider's API key is read from its environment variable and scrubbed from every update,
 * response and diagnostic the agent writes.
 */
import { Readable, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { secretRedactor, type Redactor } from '../production/redaction.ts';
import { agentCantrip } from './agent-cantrip.ts';
import { agentCrystal, credentialsIn } from './agent-crystal.ts';
import { AgentOptionsError, parseAgentOptions, USAGE, type AgentOptions } from './agent-options.ts';
import { AGENT_INFO, createAcpAgent } from './agent.ts';
import { tracedStream } from './message-trace.ts';

/** Serves the agent on stdin/stdout until stdin ends. Resolves with the process's exit code. */
export async function serveStdio(options: AgentOptions, redact: Redactor): Promise<number> {
  const crystal = agentCrystal(options.crystal);
  const app = createAcpAgent({ cantrip: (onEvent) => agentCantrip(options, crystal, { onEvent, redact }), redact });
  const stdio = ndJsonStream(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>);
  const stream = options.debug ? tracedStream(stdio, (line) => process.stderr.write(`${redact(line)}\n`)) : stdio;
  const connection = app.connect(stream);
  await connection.closed;
  return 0;
}

/** PROD-9: builds what the agent would serve and describes it, without speaking the protocol. */
export function healthCheck(options: AgentOptions): Record<string, unknown> {
  const crystal = agentCrystal(options.crystal);
  const cantrip = agentCantrip(options, crystal, { onEvent: () => {}, redact: (text) => text });
  return {
    ok: true,
    agent: AGENT_INFO,
    crystal: crystal.name,
    gates: [...cantrip.circle.gates.keys()],
    max_turns: options.maxTurns,
  };
}

async function main(): Promise<void> {
  const redact = secretRedactor(credentialsIn(process.env));
  // stdout is the protocol channel: anything logged goes to stderr, scrubbed.
  const toStderr = (...args: unknown[]) => process.stderr.write(`${redact(args.map(String).join(' '))}\n`);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  console.warn = toStderr;
  console.error = toStderr;
  let options: AgentOptions;
  try {
    options = parseAgentOptions(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof AgentOptionsError)) throw error;
    console.error(`cantrip-acp: ${error.message}`);
    process.exit(2);
  }
  if (options.help) {
    process.stdout.write(USAGE);
    return;
  }
  try {
    if (options.check) {
      process.stdout.write(`${redact(JSON.stringify(healthCheck(options)))}\n`);
      return;
    }
    process.exitCode = await serveStdio(options, redact);
  } catch (error) {
    console.error(`cantrip-acp: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
  // Leave even if a sandbox or a timer would keep the process alive.
  process.stdout.write('', () => process.exit());
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) void main();

/**
 * The command that starts an implementation as an ACP agent (feature `acp`, schemas/adapter.ts
 * AcpAgentLaunch), with the crystal the kit serves written into it: `{base_url}`, `{model}` and
 * `{api_key}` in the command's words and in the environment's values.
 */
import type { AcpAgentLaunch } from '../../../schemas/adapter.ts';
import type { CommandLine } from '../command-line.ts';

/** Where the kit serves the agent's crystal. */
export interface AgentCrystalEndpoint {
  base_url: string;
  model: string;
  api_key: string;
}

/** A launch ready to run: no placeholder left. */
export interface FilledLaunch {
  commandLine: CommandLine;
  /** The environment the agent starts with: the kit's own, plus the launch's variables. */
  env: NodeJS.ProcessEnv;
  cwd?: string;
}

/** Writes the endpoint into every placeholder of `launch`; other text, braces included, stays as it is. */
export function fillLaunch(launch: AcpAgentLaunch, endpoint: AgentCrystalEndpoint, baseEnv: NodeJS.ProcessEnv = process.env): FilledLaunch {
  const fill = (text: string): string => text.replaceAll('{base_url}', endpoint.base_url).replaceAll('{model}', endpoint.model).replaceAll('{api_key}', endpoint.api_key);
  const [command, ...args] = launch.command.map(fill);
  if (command === undefined || command === '') throw new Error('describe().acp.command is empty: it must name the program that starts the ACP agent');
  const env: NodeJS.ProcessEnv = { ...baseEnv };
  for (const [name, value] of Object.entries(launch.env ?? {})) env[name] = fill(value);
  return { commandLine: { command, args }, env, ...(launch.cwd !== undefined && { cwd: launch.cwd }) };
}

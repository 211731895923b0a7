/**
 * The ACP agent's command line: which crystal, which call, which circle. Every option can also come
 * from the environment, so a client that launches agents from a fixed command (an editor's agent list)
 * can still configure one. Bad input is refused with the option's name and what was expected.
 */

/** What the agent process is configured with. */
export interface AgentOptions {
  /**
   * The crystal, as a one-line spec: `openai:<model>`, `anthropic:<model>`, `gemini:<model>`,
   * `openrouter:<model>`, `local:<base URL>#<model>`, a hosted family at another address
   * (`openai:<base URL>#<model>`), or `scripted:<file.json>` (replies replayed from a file).
   */
  crystal: string;
  /** The call's system prompt; null for none. */
  systemPrompt: string | null;
  /** The truncation ward every cast runs under (CIRCLE-2). */
  maxTurns: number;
  /** When set, the circle also has `read` and `list_dir`, confined to this directory. */
  root: string | undefined;
  /** PROD-9: build everything, report it on stdout, exit; no protocol is spoken. */
  check: boolean;
  /** PROD-9: trace every protocol message on stderr (scrubbed of credentials) while serving. */
  debug: boolean;
  help: boolean;
}

/** The environment variables that stand in for options (the command line wins). */
export const OPTION_VARIABLES = {
  crystal: 'CANTRIP_ACP_CRYSTAL',
  systemPrompt: 'CANTRIP_ACP_SYSTEM',
  maxTurns: 'CANTRIP_ACP_MAX_TURNS',
  root: 'CANTRIP_ACP_ROOT',
} as const;

export const DEFAULT_MAX_TURNS = 10;
export const DEFAULT_SYSTEM_PROMPT = 'You are a helpful assistant. Call done with your answer when you have finished.';

/** Bad command-line input: the message names the option and what it expected. */
export class AgentOptionsError extends Error {
  override readonly name = 'AgentOptionsError';
}

export const USAGE = `usage: npx tsx reference/acp/stdio-agent.ts --crystal <spec> [options]

Serves the Cantrip reference as an Agent Client Protocol agent over stdio: one JSON-RPC message per
line on stdin and stdout, diagnostics on stderr. Waiting idle for the client's next request is normal.

  --crystal <spec>   openai:<model> | anthropic:<model> | gemini:<model> | openrouter:<model>
                     | local:<base URL>#<model> | <hosted family>:<base URL>#<model>
                     | scripted:<file.json>               (env ${OPTION_VARIABLES.crystal})
                     API keys come from the provider's usual environment variable.
  --system <text>    system prompt; --no-system for none       (env ${OPTION_VARIABLES.systemPrompt})
  --max-turns <n>    turns allowed per prompt, default ${DEFAULT_MAX_TURNS}     (env ${OPTION_VARIABLES.maxTurns})
  --root <dir>       adds read and list_dir gates confined to <dir> (env ${OPTION_VARIABLES.root})
  --check            health check: build the agent, print what it serves, exit
  --debug            trace every protocol message on stderr
  --help             this text
`;

/** Reads the options from `argv` (without node and the script) and `env`. */
export function parseAgentOptions(argv: readonly string[], env: Record<string, string | undefined> = process.env): AgentOptions {
  const given = new Map<string, string | true>();
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    const equals = arg.indexOf('=');
    const name = equals === -1 ? arg : arg.slice(0, equals);
    if (FLAGS.has(name)) {
      if (equals !== -1) throw new AgentOptionsError(`${name} takes no value (got '${arg}')`);
      given.set(name, true);
      continue;
    }
    if (!VALUED.has(name)) throw new AgentOptionsError(`unknown option '${arg}' (see --help)`);
    const value = equals === -1 ? argv[++index] : arg.slice(equals + 1);
    if (value === undefined) throw new AgentOptionsError(`${name} needs a value`);
    given.set(name, value);
  }
  const text = (flag: string, variable: string): string | undefined => {
    const value = given.get(flag);
    return typeof value === 'string' ? value : env[variable] || undefined;
  };
  const help = given.has('--help');
  const crystal = text('--crystal', OPTION_VARIABLES.crystal)?.trim();
  if (!help && (crystal === undefined || crystal === '')) {
    throw new AgentOptionsError(`no crystal: pass --crystal <spec> or set ${OPTION_VARIABLES.crystal} (see --help)`);
  }
  const maxTurnsText = text('--max-turns', OPTION_VARIABLES.maxTurns);
  const maxTurns = maxTurnsText === undefined ? DEFAULT_MAX_TURNS : Number(maxTurnsText);
  if (!Number.isInteger(maxTurns) || maxTurns < 1) {
    throw new AgentOptionsError(`--max-turns: expected a positive integer, got '${maxTurnsText}'`);
  }
  const root = text('--root', OPTION_VARIABLES.root);
  if (root !== undefined && root.trim() === '') throw new AgentOptionsError('--root: expected a directory, got an empty string');
  return {
    crystal: crystal ?? '',
    systemPrompt: given.has('--no-system') ? null : (text('--system', OPTION_VARIABLES.systemPrompt) ?? DEFAULT_SYSTEM_PROMPT),
    maxTurns,
    root,
    check: given.has('--check'),
    debug: given.has('--debug'),
    help,
  };
}

const FLAGS = new Set(['--check', '--debug', '--help', '--no-system']);
const VALUED = new Set(['--crystal', '--system', '--max-turns', '--root']);

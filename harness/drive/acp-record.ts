/**
 * What the kit saw of an implementation driven as an ACP agent (feature `acp`, PROD-6, PROD-7): the
 * parts of the run record the `acp_session` and `acp_prompt` verbs fill (docs/INTERPRETING.md, "ACP").
 * Messages are kept as the agent sent them, in the protocol's own (camelCase) names.
 */
import type { AcpAgentLaunch } from '../../schemas/adapter.ts';
import type { CrystalRequest } from '../../schemas/records.ts';
import type { ClientRequestSeen } from '../adapters/index.ts';
import type { WireProblem } from '../crystal-server/index.ts';

/** A JSON-RPC error the agent answered a request with. */
export interface AcpError {
  code: number;
  message: string;
  data?: unknown;
}

/** The connection as a whole (`acp.*`). */
export interface AcpRecord {
  /** The launch as declared, placeholders unfilled (so the run's key is not kept); null before any ACP action. */
  launch: AcpAgentLaunch | null;
  /** The result of `initialize` as the agent sent it (`protocolVersion`, `agentCapabilities`...), or null. */
  initialize: Record<string, unknown> | null;
  /** The error `initialize` was answered with, or null. */
  initialize_error: AcpError | null;
  /** Every `session/update` whose shape is not ACP's: the action it arrived during and what is wrong. */
  update_problems: { action: string; problems: string[] }[];
  /** Updates that arrived while no prompt of their session ran (after `session/new`, say), as sent. */
  outside_prompts: unknown[];
  /** Requests the agent made of the kit (which advertises no client services and grants no permission). */
  client_requests: ClientRequestSeen[];
  /** Every message the agent sent, as sent, in order (responses, notifications of any method, requests): what PROD-8's search reads in full. */
  inbound: unknown[];
  /** What the crystal server found wrong in the agent's crystal requests. */
  wire_problems: Array<WireProblem & { seq: number }>;
  /** The last lines the agent wrote on stderr. */
  stderr: string;
}

/** One `acp_session` (`acp_sessions.<as>`). */
export interface AcpSessionRecord {
  /** The id `session/new` answered with; absent when it was refused. */
  session_id?: string;
  /** The result of `session/new` as sent. */
  response?: Record<string, unknown>;
  error?: AcpError;
}

/** One `acp_prompt` (`acp_prompts.<as>`). */
export interface AcpPromptRecord {
  /** The name of the `acp_session` action it was sent in. */
  session: string;
  session_id: string;
  /** The text sent. */
  prompt: string;
  /** How it was written: `blocks` (under `prompt`, ACP's own), `content` (the blocks under `content`) or `string` (a bare `prompt`). */
  form: string;
  /** The answer's `stopReason`, or null when the prompt was answered with an error. */
  stop_reason: string | null;
  response: Record<string, unknown> | null;
  error: AcpError | null;
  /** The `update` of every `session/update` of the session that arrived while the prompt ran, in order. */
  updates: unknown[];
  /** The `sessionUpdate` kind of each of them, in order. */
  kinds: string[];
  /** The text of every `agent_message_chunk` with text content, in order. */
  texts: string[];
  /** The crystal requests the agent made while the prompt ran, in order. */
  requests: CrystalRequest[];
}

export function emptyAcpRecord(): AcpRecord {
  return { launch: null, initialize: null, initialize_error: null, update_problems: [], outside_prompts: [], client_requests: [], inbound: [], wire_problems: [], stderr: '' };
}

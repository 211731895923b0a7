/**
 * TypeScript shapes of the records that cross a boundary: between a loop and its crystal, between a
 * circle and its gates, and between an implementation and the harness. Each type mirrors one JSON
 * Schema file in this folder (named in its TSDoc); the schemas are the language-neutral source of
 * truth and these types exist so TypeScript code on both sides of the adapter wall agrees with them.
 *
 * Field names are snake_case because they are wire names, shared with implementations in any language.
 */

/** Who speaks a message. `tool` carries a gate call's result back to the crystal. Schema: message. */
export type MessageRole = 'system' | 'user' | 'assistant' | 'tool';

/** One entry of the context a crystal receives. Schema: `message.schema.json`. */
export interface Message {
  role: MessageRole;
  /** Text; null only on an assistant message that made gate calls and said nothing. */
  content: string | null;
  /** Gate calls the crystal made in this assistant message. */
  tool_calls?: ToolCall[];
  /** On a `tool` message: the id of the gate call this result answers. */
  tool_call_id?: string;
}

/** A gate presented to the crystal as a tool (CALL-3, CIRCLE-11). Schema: `tool-definition.schema.json`. */
export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the gate's arguments object. */
  parameters: Record<string, unknown>;
}

/** Whether the crystal may, must, or must not use gates (CRYSTAL-5). */
export type ToolChoice = 'auto' | 'required' | 'none';

/** A gate invocation proposed by the crystal (CRYSTAL-4). Schema: `tool-call.schema.json`. */
export interface ToolCall {
  /** Unique within the response; links the gate call record back to this call. */
  id: string;
  /** Name of the gate to call. */
  gate: string;
  /** The arguments object, serialized as a JSON string. */
  arguments: string;
}

/** Sampling knobs from the call, passed through to the crystal unchanged (CALL-2). */
export type Hyperparameters = Record<string, unknown>;

/** What a loop sends on one query. Schema: `crystal-request.schema.json`. */
export interface CrystalRequest {
  messages: Message[];
  tools?: ToolDefinition[];
  tool_choice?: ToolChoice;
  hyperparameters?: Hyperparameters;
}

/** Token counts of one query (PROD-3, LOOM-9). */
export interface Usage {
  prompt: number;
  completion: number;
  cached: number;
}

/** What a crystal returns. At least one of content or tool_calls (CRYSTAL-3). Schema: `crystal-response.schema.json`. */
export interface CrystalResponse {
  content: string | null;
  tool_calls?: ToolCall[];
  usage: Usage;
  /** Reasoning trace, for crystals that return one. */
  thinking?: string;
  /** Provider extras (stop reason, model id...). Never required by consumers (CRYSTAL-6). */
  metadata?: Record<string, unknown>;
  /**
   * Tools the provider ran itself while answering (a provider-side search or code run), each with its
   * call and result. Not gate calls of the circle: a tool-result message for one may only follow an
   * assistant message holding its call (LLM-7). Schema: `crystal-response.schema.json`.
   */
  provider_tools?: ProviderToolRun[];
}

/** One tool the provider ran itself: its call and the result it got. */
export interface ProviderToolRun {
  id: string;
  name: string;
  /** JSON text. */
  arguments: string;
  result: string;
}

/** A gate failure as the entity sees it (CIRCLE-5). */
export interface GateError {
  /** The error's class name, e.g. `TypeError`, or the name a test gate threw with. */
  name: string;
  message: string;
  /** For failures the implementation itself raises (unknown gate, warded-off gate, ...): its own code, if it has one. */
  code?: string;
}

/** The result of one gate call inside an observation (CIRCLE-4, CIRCLE-7). Schema: `gate-call-record.schema.json`. */
export interface GateCallRecord {
  tool_call_id: string;
  gate: string;
  /** The parsed arguments the gate was called with. */
  arguments?: unknown;
  ok: boolean;
  /** Present when ok. */
  result?: unknown;
  /** Present when not ok. */
  error?: GateError;
}

/**
 * Which node of the loom a turn is, in the kit's working words (0.1.0's). A loom judged at a later draft
 * may write that draft's words (`turn`, `identity`): the drive reads them into these (harness/drive/draft-roles.ts).
 */
export type TurnRole = 'crystal' | 'call' | 'fold';

/**
 * Why a ward, or a parent, cut an entity off (LOOP-4, COMP-9). The spec names one reason,
 * `parent_terminated` (COMP-9); every other reason is the implementation's own word, so any non-empty
 * string crosses the boundary. {@link KNOWN_TRUNCATION_CAUSES} lists the ones the reference uses.
 */
export type TruncationCause = string;

/** Truncation reasons the reference and the kit's documentation use; only `parent_terminated` is the spec's. */
export const KNOWN_TRUNCATION_CAUSES = ['max_turns', 'timeout', 'max_tokens', 'parent_terminated', 'crystal_error', 'max_rejections', 'cancelled'] as const;

/** How a forked entity's starting state was rebuilt (LOOM-4). */
export type ForkStrategy = 'snapshot' | 'replay';

/** Per-turn accounting (LOOM-9). */
export interface TurnMetadata {
  tokens_prompt: number;
  tokens_completion: number;
  tokens_cached: number;
  duration_ms: number;
  /** ISO 8601. */
  timestamp: string;
}

/** One node of the loom. Schema: `turn.schema.json`. */
export interface Turn {
  id: string;
  /** Null only on a root. */
  parent_id: string | null;
  cantrip_id: string;
  /**
   * Which entity acted. A `call` turn may belong to one entity (each entity its own call root) or to
   * the cantrip (null: one call root shared by its entities); the spec allows both (CALL-4, LOOM-12).
   */
  entity_id: string | null;
  role: TurnRole;
  /**
   * Position in the entity's run, from 1 on crystal turns. Whether it keeps counting across the casts
   * of an invoked entity or starts again with each cast is the implementation's choice; any integer
   * on a `call` turn.
   */
  sequence: number;
  utterance: string;
  observation: string;
  gate_calls: GateCallRecord[];
  metadata: TurnMetadata;
  reward: number | null;
  terminated: boolean;
  truncated: boolean;
  /** Set when truncated. */
  truncation_cause?: TruncationCause | null;
  /** Optional, not in the spec's Turn: the intent a cast pursued (the kit reads intents from requests). */
  intent?: string | null;
  /** On a `call` turn: the call it records (CALL-4). */
  call?: CallRecord;
  /** On the first turn of a forked entity: how its state was rebuilt (LOOM-4), and optionally where it forked from. */
  fork?: { from_turn_id?: string; strategy: ForkStrategy };
  /** On a `fold` turn: the range of sequences the fold summarises. */
  fold?: { from_sequence: number; to_sequence: number };
  /** The done gate's answer, on a terminated turn. */
  result?: unknown;
  /**
   * Optional (feature `overlay-file-gates`): the paths this turn changed in the entity's file overlay,
   * written or deleted, relative to the gate's root, sorted, each once (LOOM-1).
   */
  files_changed?: string[];
}

/** The call as recorded in the loom (CALL-4): identity only, never gate definitions (CALL-3). */
export interface CallRecord {
  system_prompt: string | null;
  hyperparameters: Hyperparameters;
}

/** One line of a JSONL loom file. Schema: `loom-line.schema.json`. */
export type LoomLine =
  | { kind: 'turn'; turn: Turn }
  | { kind: 'reward'; turn_id: string; reward: number | null };

/**
 * The error codes the reference gives and the kit's reports recognise. The spec names no error codes,
 * so an implementation may give any code or none ({@link CodedError}); cases never assert one, only
 * that a refusal or failure happened and reached the entity (docs/OPEN-CHOICES.md).
 */
export const ERROR_CODES = [
  'missing_crystal',
  'missing_call',
  'missing_circle',
  'missing_done_gate',
  'missing_truncation_ward',
  'missing_intent',
  'invalid_crystal_response',
  'duplicate_tool_call_id',
  'invalid_tool_call',
  'context_limit_exceeded',
  'crystal_error',
  'gate_unavailable',
  'gate_not_granted',
  'invalid_gate_arguments',
  'path_outside_root',
  'child_failed',
  'sandbox_error',
  'call_immutable',
  'loom_append_only',
  'unknown_turn',
  'unknown_entity',
  'duplicate_entity_id',
  'unsupported',
  'parent_terminated',
  'verifier_rejected',
  'child_refused',
  'invalid_ward',
] as const;

/** One of {@link ERROR_CODES}. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** An error as it crosses the adapter boundary: a message for people, and the implementation's own code if it has one (shown in reports, never asserted). */
export interface CodedError {
  code?: string;
  message: string;
}

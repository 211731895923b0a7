/**
 * The adapter contract: the only way the harness reaches an implementation, the reference included.
 * An in-process TypeScript implementation implements {@link Adapter}; any other language speaks the
 * same operations as JSON-RPC 2.0 over stdio (see `docs/adapter-protocol.md` and `schemas/protocol/`).
 *
 * Handles (cantrip, entity) are opaque strings so that the same contract works across a process
 * boundary. Every operation that can fail for a reason a case may assert returns a {@link Result}
 * carrying an error code; an exception or a timeout is reported as the adapter being broken.
 */
import type {
  CodedError,
  CrystalRequest,
  CrystalResponse,
  ForkStrategy,
  GateError,
  Hyperparameters,
  ToolDefinition,
  TruncationCause,
  Turn,
  Usage,
} from './records.ts';

/** The adapter protocol's version; bumped on any incompatible change to this file. */
export const PROTOCOL_VERSION = 1;

/** Optional parts of the spec an implementation may declare. Cases that `require` an undeclared one are skipped. */
export const FEATURES = [
  'code-medium',
  'composition',
  'fork',
  'code-fork',
  'folding',
  'ephemeral-gates',
  'loom-exposure',
  'file-gates',
  'streaming',
  'providers',
] as const;
export type Feature = (typeof FEATURES)[number];

/** How code reaches an implementation's code medium, so the mock crystal can script code utterances. */
export interface SandboxDescription {
  /** Language of the sandbox, the key cases use in `code: {<language>: ...}`. */
  language: string;
  /** The tool the crystal calls to run code. */
  tool: string;
  /** The argument of that tool that holds the source. */
  argument: string;
}

/** What `describe` returns. */
export interface Description {
  name: string;
  version: string;
  spec_version: string;
  protocol_version: number;
  features: Feature[];
  sandbox?: SandboxDescription;
  /** Fork strategies the implementation uses, when it declares `fork` or `code-fork`. */
  fork_strategies?: ForkStrategy[];
}

/** A gate as a case configures it. Built-in gates are the implementation's own; test gates call back to the harness. */
export type GateSetup =
  | { name: 'done' }
  | { name: 'call_entity' | 'call_entity_batch'; crystal?: string; call?: CallSetup }
  | { name: 'read' | 'list_dir'; root: string }
  | {
      name: string;
      /** A harness-owned gate: the implementation registers it and forwards each call to `host.callGate`. */
      test: ToolDefinition;
      ephemeral?: boolean;
    };

/** Wards as a case configures them; every field is optional and absent means "no such ward". */
export interface WardSetup {
  max_turns?: number;
  /** Wall-clock limit on one cast, in milliseconds. */
  timeout_ms?: number;
  /** Budget of prompt plus completion tokens across the entity's life. */
  max_tokens?: number;
  max_depth?: number;
  /** Cap on children of one `call_entity_batch` running at once. */
  max_concurrency?: number;
  /** Gates removed from the circle (a ward that shrinks G). */
  remove_gates?: string[];
  /** Code-medium limits. */
  eval_timeout_ms?: number;
  memory_limit_bytes?: number;
  max_output_chars?: number;
}

/** The call as a case configures it. */
export interface CallSetup {
  system_prompt?: string;
  hyperparameters?: Hyperparameters;
}

/** A crystal as a case configures it: a name the implementation passes back to `host.queryCrystal`. */
export interface CrystalSetup {
  name: string;
  /** The crystal's advertised context window in tokens, for folding (PROD-4). */
  context_window?: number;
}

/** Everything `construct` needs to build a cantrip. Absent parts must be rejected with their codes (CANTRIP-1). */
export interface CantripSetup {
  crystal?: CrystalSetup;
  call?: CallSetup;
  circle?: {
    medium: 'conversation' | 'code';
    gates: GateSetup[];
    wards: WardSetup;
  };
  /** LOOP-6: when true only `done` ends a cast. Default false. */
  require_done?: boolean;
  folding?: { threshold?: number; keep_recent_turns?: number };
  /** LOOM-11: expose the current thread to code as data. */
  expose_loom?: boolean;
}

/** The harness's answer to a crystal query. */
export type CrystalReply =
  | { ok: true; response: CrystalResponse }
  | { ok: false; error: { status?: number; code?: string; message: string } };

/** The harness's answer to a test-gate call. */
export type GateReply = { ok: true; result: unknown } | { ok: false; error: GateError };

/** Observation-channel events an implementation may stream (PROD-3, streaming). */
export interface StreamEvent {
  type: 'text' | 'thinking' | 'gate_call' | 'gate_result' | 'usage' | 'turn_end';
  entity_id: string;
  data: unknown;
}

/** Callbacks into the harness, given to `construct`. */
export interface Host {
  queryCrystal(crystal: string, request: CrystalRequest): Promise<CrystalReply>;
  callGate(gate: string, args: unknown, context: { entity_id: string; tool_call_id: string }): Promise<GateReply>;
  /** Retry backoff waits go through here, so the harness can see them without really waiting (PROD-2). */
  sleep(ms: number): Promise<void>;
  /** Streaming events, when the implementation emits them. */
  event?(event: StreamEvent): void;
}

/** How a cast ended. */
export interface CastOutcome {
  entity_id: string;
  status: 'terminated' | 'truncated';
  /** The done gate's answer, or the final text of an implicit termination. */
  result?: unknown;
  truncation_cause?: TruncationCause;
  /** LOOP-4: a short account of what was done before the cut. */
  summary?: string;
  /** Set when the cast ended because of an error (a crystal failure, an invalid response). */
  error?: CodedError;
  /** Cumulative usage of the entity so far (PROD-3). */
  usage: Usage;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: CodedError };

/** A change a case attempts in order to prove it is refused (CALL-1, LOOM-3, INTENT-3). */
export type MutationAttempt =
  | { target: 'call'; cantrip: string; system_prompt: string }
  | { target: 'turn'; turn_id: string; field: string; value: unknown }
  | { target: 'reward'; turn_id: string; reward: number | null };

/** The operations an implementation offers the harness. */
export interface Adapter {
  describe(): Promise<Description>;
  construct(setup: CantripSetup, host: Host): Promise<Result<{ cantrip: string }>>;
  /** Invoke, run one intent, discard (the intent may be absent so INTENT-1 can be checked). */
  cast(cantrip: string, intent?: string): Promise<Result<CastOutcome>>;
  /**
   * A persistent entity (ENTITY-5). ENTITY-2: the entity takes `entity_id` when the caller gives one
   * (refused with `duplicate_entity_id` if an entity already has it), and a generated unique id otherwise.
   */
  invoke(cantrip: string, options?: { entity_id?: string }): Promise<Result<{ entity: string }>>;
  /** Run one more intent through an invoked entity. */
  send(entity: string, intent?: string): Promise<Result<CastOutcome>>;
  /** A new entity whose context is the path from the root to `turn_id`; it runs at once, on `intent` if given, else on the intent in force at that turn. */
  fork(turn_id: string, intent?: string): Promise<Result<{ entity: string; strategy: ForkStrategy; outcome: CastOutcome }>>;
  /** Every turn in the loom, in append order. */
  loom(): Promise<Result<{ turns: Turn[] }>>;
  /** The root-to-leaf path ending at `leaf_turn_id` (LOOM-10). */
  thread(leaf_turn_id: string): Promise<Result<{ turns: Turn[] }>>;
  mutate(attempt: MutationAttempt): Promise<Result<Record<string, never>>>;
  dispose(): Promise<void>;
}

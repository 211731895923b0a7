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
  ToolChoice,
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
  // ENTITY-2 lets the caller provide an entity id; accepting one is optional.
  'caller-entity-id',
  // A durable loom that can be read back after a restart (`reopen`): LOOM-1, LOOM-3.
  'persistence',
  // Optional lineage features (issue 14): each has its own case family, skipped when not declared.
  // Verifier wards: deterministic checks on every gate call before it runs (CIRCLE-5, CIRCLE-6, LOOP-4, WARD-1).
  'verifier-wards',
  // File gates over a copy-on-write overlay per entity, accepted or rejected by the host (COMP-4, LOOM-4, CIRCLE-10).
  'overlay-file-gates',
  // Declaration-time limits on what a child circle may be, checked before the child runs (COMP-1, COMP-8, WARD-1).
  'child-circle-wards',
  // A slow event consumer slows the entity instead of letting events pile up (streaming with a bound).
  'bounded-events',
  // With `folding`: a fold triggered by a count of turns (`folding.after_turns`), not only by window share (PROD-4 leaves the threshold to the implementation).
  'folding-turn-trigger',
  // The built-in done gate presented with an argument schema the setup declares (`{ name: 'done', parameters }`, CIRCLE-11).
  'done-parameters',
  // COMP-7: a delegation gate configured with a crystal of its own for its children (default: the parent's).
  'child-crystal',
  // COMP-7: a delegation gate configured with a call of its own for its children (default: the parent's).
  'child-call',
  // COMP-1, COMP-7 from 0.2.0: a delegation gate configured with gates for its children that the parent's circle lacks (`child_gates`).
  'child-gates',
  // LOOM-1 seen from outside: `loom()` answered while a cast is still running (during one of its crystal
  // queries). Opt-in because an adapter that serves one request at a time would wait on the cast it is in.
  'loom-during-cast',
  // PROD-6, PROD-7 (drafts 0.2.0 on): it can be run as an Agent Client Protocol agent over stdio ({@link Description.acp}).
  'acp',
  // PROD-8 (drafts 0.2.0 on): a test gate built with a credential of its own ({@link GateSetup} `credential`),
  // which the implementation treats as a secret and hands the gate with every call (`context.credential`).
  'gate-credentials',
  // PROD-2 (drafts 0.2.0 on): the maximum number of retries is configured by the setup ({@link CantripSetup.retry}).
  'retry-limit',
  // PROD-8 (drafts 0.2.0 on): the loom as its default export writes it for a user ({@link Adapter.exportLoom}).
  'loom-export',
  // PROD-8 (drafts 0.2.0 on): what it wrote to its logs while serving the adapter ({@link Adapter.logs}).
  'log-output',
] as const;
export type Feature = (typeof FEATURES)[number];

/**
 * Ward kinds an implementation enforces only if it says so in {@link Description.wards}. The turn cap
 * (LOOP-2) is always required, and the depth limit comes with the `composition` feature (COMP-6); the
 * spec asks for no other ward kind by name, so a case that sets one of these is skipped, with the
 * reason, for an implementation that does not declare it.
 */
export const OPTIONAL_WARDS = [
  'timeout_ms',
  'max_tokens',
  'max_concurrency',
  'remove_gates',
  'eval_timeout_ms',
  'memory_limit_bytes',
  'max_output_chars',
] as const;
export type OptionalWard = (typeof OPTIONAL_WARDS)[number];

/**
 * How the harness's scripted crystals reach an implementation. `callback`: the implementation's crystal
 * hands each query to `host.queryCrystal`. The others: the harness serves the crystals over HTTP on
 * loopback in that provider's wire format (`-stream`: the implementation is asked to stream), and the
 * implementation queries them with its own provider code (CRYSTAL-2..6, PROD-2 exercised for real).
 */
export const CRYSTAL_TRANSPORTS = ['callback', 'openai', 'openai-stream', 'anthropic', 'anthropic-stream', 'gemini', 'gemini-stream'] as const;
export type CrystalTransport = (typeof CRYSTAL_TRANSPORTS)[number];

/** Where a crystal is served when the run uses a wire transport: what `construct` receives per crystal. */
export interface CrystalEndpoint {
  format: 'openai' | 'anthropic' | 'gemini';
  /** Whether the implementation should ask for a streamed reply (Gemini: `:streamGenerateContent?alt=sse`). */
  stream: boolean;
  /** Base URL ending before the format's own path (`/chat/completions`, `/messages`, `/models/{model}:generateContent`). */
  base_url: string;
  /** The model name to send: the crystal's name. */
  model: string;
  /** A key for this run only: `Authorization: Bearer` (openai), `x-api-key` (anthropic), `x-goog-api-key` or `?key=` (gemini). */
  api_key: string;
}

/**
 * The options of a `call_entity` request, under the names cases script them with (spec 5.1 plus
 * `max_turns` and `gates`). From 0.2.0 a request may name the child's `medium` and `llm` (COMP-7; the
 * LLM by the name of a crystal of the case), and
 * `eval_timeout_ms` is a code child's evaluation deadline, a medium ward composed with the parent's
 * (WARD-2); the spec sketches child wards as a `wards` list, so each ward has its own option here.
 */
export const CHILD_OPTIONS = ['intent', 'context', 'system_prompt', 'max_depth', 'max_turns', 'gates', 'medium', 'llm', 'eval_timeout_ms'] as const;
export type ChildOption = (typeof CHILD_OPTIONS)[number];

/**
 * How the built-in gates take their arguments, where the spec fixes the gate but not the names
 * (CIRCLE-8 asks only for "an answer" argument; spec 5.1 shows `call_entity(intent, config?)` and
 * `call_entity_batch(intents)`). Everything here is optional: in a conversation circle the harness
 * learns the names from the tool definitions the implementation presents to its crystal, and this
 * declaration only settles what those definitions leave ambiguous. In a code circle the harness cannot
 * see the functions, so `function` names them (default: the gate's name).
 */
export interface BuiltinSignatures {
  done?: {
    /** The tool argument that carries the answer. */
    argument?: string;
    /** The code-level function that calls done (it takes the answer as its one argument). */
    function?: string;
  };
  call_entity?: {
    /**
     * Where each option goes in the tool's arguments: a property name, or a dotted path into a nested
     * object (`config.max_turns`). An option the implementation does not take is left out; cases
     * that need it are skipped.
     */
    arguments?: Partial<Record<ChildOption, string>>;
    /** The code-level function (it takes one object with `intent` and the options, as in spec 5.3). */
    function?: string;
  };
  call_entity_batch?: {
    /** The tool argument holding the array of child requests. */
    argument?: string;
    /** The code-level function (it takes the array itself, as in spec 5.3). */
    function?: string;
  };
}

/** How code reaches an implementation's code medium, so the mock crystal can script code utterances. */
export interface SandboxDescription {
  /** Language of the sandbox, the key cases use in `code: {<language>: ...}`. */
  language: string;
  /** The tool the crystal calls to run code. */
  tool: string;
  /** The argument of that tool that holds the source. */
  argument: string;
  /**
   * The evaluation deadline, in ms, the code medium applies to a program when no circle or child sets one
   * (its own default). Optional: declared, it lets the kit tell, on a loaded machine, a program cut by that
   * deadline from a real failure (docs/adapter-protocol.md, "Limits and promises").
   */
  eval_timeout_ms?: number;
}

/** What `describe` returns. */
export interface Description {
  name: string;
  version: string;
  spec_version: string;
  protocol_version: number;
  features: Feature[];
  /**
   * The drafts of the spec it implements, by the versions spec/drafts.yaml registers (`0.1.0`,
   * `0.2.0`, `0.3.1`). Absent: `['0.1.0']`, the draft the kit first judged. `run --spec` picks one of
   * them (default: the newest) and every `construct` then says which ({@link CantripSetup.draft}).
   */
  drafts?: string[];
  sandbox?: SandboxDescription;
  /** With `acp`: how the kit starts the implementation as an ACP agent over stdio and points it at a crystal. */
  acp?: AcpAgentLaunch;
  /** Fork strategies the implementation uses, when it declares `fork` or `code-fork`. */
  fork_strategies?: ForkStrategy[];
  /** The optional ward kinds it enforces ({@link OPTIONAL_WARDS}); absent means none of them. */
  wards?: OptionalWard[];
  /** How its crystals can be reached ({@link CRYSTAL_TRANSPORTS}); absent means `callback` only. */
  crystal_transports?: CrystalTransport[];
  /** Names and shapes of its built-in gates' arguments, where its tool definitions do not settle them. */
  builtins?: BuiltinSignatures;
  /**
   * With `folding`: the text that marks a folded summary in the context (§6.8 asks for a marker and
   * gives `[Folded: turns 1-20]` as an example). Absent: the example's `[Folded:`.
   */
  fold_marker?: string;
  /**
   * With `bounded-events`: the most streaming events it keeps handed to `host.event` and not yet
   * acknowledged, when the setup asks for no other bound ({@link CantripSetup.event_buffer}).
   */
  event_buffer?: number;
}

/**
 * Feature `acp`: how the kit runs the implementation as an Agent Client Protocol agent (PROD-6,
 * PROD-7). The kit serves the case's scripted crystal over HTTP in `crystal`'s wire format, fills the
 * placeholders {@link ACP_PLACEHOLDERS} in `command` and `env` with that endpoint, starts the command
 * (no shell) in a process group of its own, and speaks ACP with it over stdin/stdout as a client.
 */
export interface AcpAgentLaunch {
  /** The program and its arguments, e.g. `["npx", "tsx", "agent.ts", "--crystal", "openai:{base_url}#{model}"]`. */
  command: string[];
  /** Variables added to the kit's environment for the agent, e.g. `{ "OPENAI_API_KEY": "{api_key}" }`. */
  env?: Record<string, string>;
  /** The working directory the command starts in; absent: the kit's own. */
  cwd?: string;
  /** The wire format the agent's crystal speaks: the kit serves the case's crystal in it. */
  crystal: 'openai' | 'anthropic' | 'gemini';
}

/** What the kit writes in place of each placeholder of {@link AcpAgentLaunch} `command` and `env`. */
export const ACP_PLACEHOLDERS = {
  '{base_url}': "the crystal server's base URL for the format (as CrystalEndpoint.base_url)",
  '{model}': "the name of the case's crystal, the model to ask for",
  '{api_key}': 'the per-run key the crystal server requires',
} as const;

/** The marker the kit looks for when an implementation declares none (the spec's example, §6.8). */
export const DEFAULT_FOLD_MARKER = '[Folded:';

/** A gate as a case configures it. Built-in gates are the implementation's own; test gates call back to the harness. */
export type GateSetup =
  /** `parameters` (feature `done-parameters`): the JSON Schema done's arguments are presented with, unchanged. */
  | { name: 'done'; parameters?: Record<string, unknown> }
  /**
   * `child_gates` (feature `child-gates`, drafts 0.2.0 on, COMP-1 and COMP-7): gates bound to the
   * delegation gate at construction (CIRCLE-10) that a child may ask for by name although its parent's
   * circle does not hold them. Test gates only; the parent's wards still bind the child (WARD-1).
   */
  | { name: 'call_entity' | 'call_entity_batch'; crystal?: string; call?: CallSetup; child_gates?: GateSetup[] }
  /**
   * File gates confined to `root` (CIRCLE-10). With `overlay` (feature `overlay-file-gates`) the gate
   * works through the calling entity's copy-on-write overlay over the root: reads fall through to the
   * root when the overlay lacks a path, writes and deletions change only the overlay, and the host
   * merges or discards it with {@link Adapter.overlay}. Gates with the same root share one overlay per
   * entity. `write(path, content)` and `delete(path)` exist only with `overlay`.
   */
  | { name: 'read' | 'list_dir'; root: string; overlay?: boolean }
  | { name: 'write' | 'delete'; root: string; overlay: true }
  | {
      name: string;
      /** A harness-owned gate: the implementation registers it and forwards each call to `host.callGate`. */
      test: ToolDefinition;
      ephemeral?: boolean;
      /**
       * Feature `gate-credentials`: a secret this gate needs (an API token, say), a gate dependency bound
       * when the circle is built (CIRCLE-10). The implementation treats it as a credential (PROD-8): it
       * passes it back with every call of the gate (`context.credential` of {@link Host.callGate}) and
       * keeps it out of the loom and its exports, the streamed events, the observations and the outcomes,
       * even when the gate's reply repeats it. Random per run.
       */
      credential?: string;
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
  /**
   * Feature `verifier-wards`: how many gate calls in a row the circle's verifiers may refuse before
   * the cast is truncated (LOOP-4), with a cause of the implementation's own choosing. A numeric ward:
   * a child gets the smaller of its parent's and its own (WARD-1).
   */
  max_rejections?: number;
}

/**
 * Feature `verifier-wards`: a deterministic check every gate call of the circle passes before it
 * runs (CIRCLE-6: the circle enforces it, the entity cannot get around it). Verifiers run in the
 * order they are listed, the first one first; the first to refuse a call stops the check, the gate
 * does not run, and the entity sees a failed gate call whose error names that verifier and gives its
 * reason (CIRCLE-5). No verifier costs a crystal query. A child circle runs at least its parent's
 * verifiers (WARD-1).
 */
export type VerifierSetup =
  /**
   * A gate table: a call to a gate in `deny` is refused; when `allow` is given, so is a call to any
   * gate not in it. A table that refuses `done` itself is refused at construction (CIRCLE-1).
   */
  | { name: string; kind: 'allow_deny'; allow?: string[]; deny?: string[] }
  /** The arguments of every call to `gate` must validate against `schema` (JSON Schema 2020-12). */
  | { name: string; kind: 'arguments_schema'; gate: string; schema: Record<string, unknown> };

/**
 * Feature `child-circle-wards`: limits, fixed when the circle is built, on the circle a child entity
 * may get (COMP-1, WARD-1). A spawn whose child circle would break one is refused before the child
 * exists (no crystal query, no turn) and the refusal is the spawning gate call's result, an
 * observation of the parent (COMP-8). The limits hold for grandchildren as well.
 */
export interface ChildLimitsSetup {
  /** Mediums a child circle may have. */
  mediums?: ('conversation' | 'code')[];
  /** When given, the only gates a child circle may hold (`done` is always allowed: every circle has it, CIRCLE-1). */
  allow_gates?: string[];
  /** Gates a child circle may not hold. */
  deny_gates?: string[];
  /**
   * Ceilings on the child's own wards, after they are composed with the parent's (WARD-1): the child
   * must have the ward, at or under the ceiling; a child without it is refused, never given it silently.
   */
  max_turns?: number;
  timeout_ms?: number;
  max_tokens?: number;
  max_depth?: number;
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
  /**
   * False when this crystal cannot force tool use: `tool_choice: 'required'` is then not honoured by
   * the crystal itself and the implementation must simulate it (CRYSTAL-5), e.g. by asking again.
   */
  forces_tool_use?: boolean;
}

/** Everything `construct` needs to build a cantrip. Absent parts must be rejected with their codes (CANTRIP-1). */
export interface CantripSetup {
  /**
   * The draft being judged, one of {@link Description.drafts}: an implementation of several drafts
   * builds that draft's cantrip. Absent: `0.1.0`. Children a cantrip spawns itself are built by the
   * implementation, for the draft of the cantrip that spawns them.
   */
  draft?: string;
  crystal?: CrystalSetup;
  call?: CallSetup;
  circle?: {
    /**
     * Absent: the setup names no medium. At 0.3.1 the circle is then a conversation circle (MEDIUM-1:
     * one medium, conversation by default); 0.1.0 and 0.2.0 give every circle one medium but name no
     * default, so an implementation of those drafts may refuse such a circle. The harness sends no
     * `medium` only in cases about that default, judged at 0.3.1. A list of two different names: the
     * circle is declared with two mediums at once (cases about MEDIUM-1 only); a circle has exactly
     * one, so refuse it, or build a circle that is one medium (gates as tools, or code, not both).
     */
    medium?: 'conversation' | 'code' | ('conversation' | 'code')[];
    gates: GateSetup[];
    wards: WardSetup;
    /** Feature `verifier-wards`: checks on every gate call, in priority order (first listed runs first). */
    verifiers?: VerifierSetup[];
    /** Feature `child-circle-wards`: what a child circle spawned from this one may be. */
    child_limits?: ChildLimitsSetup;
  };
  /** LOOP-6: when true only `done` ends a cast. Default false. */
  require_done?: boolean;
  /** CRYSTAL-5: the tool choice every query of this cantrip's entities carries. Default `auto`. */
  tool_choice?: ToolChoice;
  /**
   * `after_turns` (feature `folding-turn-trigger`): fold once the working context would hold more than
   * that many unfolded crystal turns, whatever their size.
   */
  folding?: { threshold?: number; keep_recent_turns?: number; after_turns?: number };
  /** LOOM-11: expose the current thread to code as data. */
  expose_loom?: boolean;
  /**
   * Set when the run uses a wire transport: for each crystal name the case declares (the cantrip's and
   * its children's), where it is served. The implementation builds its own provider crystal for it.
   */
  crystal_endpoints?: Record<string, CrystalEndpoint>;
  /**
   * With `bounded-events`: the most streaming events this cantrip's entities may have handed to
   * `host.event` without its acknowledgement (a positive integer). Absent: the implementation's own
   * bound ({@link Description.event_buffer}).
   */
  event_buffer?: number;
  /**
   * Feature `retry-limit` (PROD-2 from 0.2.0: retries go up to a configurable maximum, three by default):
   * the most times one failed LLM query (429, 5xx) is tried again. `0`: never retried. Absent: the
   * implementation's default.
   */
  retry?: { max_retries: number };
}

/** The harness's answer to a crystal query. */
export type CrystalReply =
  | { ok: true; response: CrystalResponse }
  | { ok: false; error: { status?: number; code?: string; message: string } };

/** The harness's answer to a test-gate call. */
export type GateReply = { ok: true; result: unknown } | { ok: false; error: GateError };

/**
 * Observation-channel events an implementation may stream (PROD-3, streaming). What `data` holds per
 * type: `text` and `thinking` the text; `gate_call` the tool call; `gate_result` the gate call record
 * (at least `tool_call_id` and `ok`), one per gate call; `usage` one turn's usage (`prompt`,
 * `completion`, `cached`), one per turn; `turn_end` anything.
 */
export interface StreamEvent {
  type: 'text' | 'thinking' | 'gate_call' | 'gate_result' | 'usage' | 'turn_end';
  entity_id: string;
  data: unknown;
}

/** Who calls a test gate, and with what (schemas/adapter.ts, {@link Host.callGate}). */
export interface GateCallContext {
  entity_id: string;
  tool_call_id: string;
  /** Feature `gate-credentials`: the credential the gate was built with ({@link GateSetup}), passed back on every call. */
  credential?: string;
}

/** Callbacks into the harness, given to `construct`. */
export interface Host {
  queryCrystal(crystal: string, request: CrystalRequest): Promise<CrystalReply>;
  /** `context.credential`: the gate's own credential, when the setup gave it one (feature `gate-credentials`). */
  callGate(gate: string, args: unknown, context: GateCallContext): Promise<GateReply>;
  /** Retry backoff waits go through here, so the harness can see them without really waiting (PROD-2). */
  sleep(ms: number): Promise<void>;
  /**
   * Streaming events, when the implementation emits them. With `bounded-events` the returned promise
   * is the consumer's acknowledgement: an event counts as buffered from the call until the promise
   * settles, and the implementation (1) never has more than its bound of events buffered, waiting
   * before it emits another; (2) emits a turn's `gate_result` and `usage` events before that entity's
   * next crystal query; (3) ends such a wait only when the cast's wards end the cast, making no crystal
   * query or gate call in that cast after it (the events it could not emit are dropped). Without the
   * feature the result is ignored.
   */
  event?(event: StreamEvent): void | Promise<void>;
}

/**
 * How a cast ended. A cast whose crystal failed (CRYSTAL-2, an invalid response, a query that still
 * fails after retries) may be reported either way: as an outcome carrying `error` (usually truncated),
 * or as a refused operation (`{ ok: false, error }`). The spec leaves this open; cases accept both.
 */
export interface CastOutcome {
  entity_id: string;
  status: 'terminated' | 'truncated';
  /** The done gate's answer, or the final text of an implicit termination. */
  result?: unknown;
  truncation_cause?: TruncationCause;
  /** LOOP-4: a short account of what was done before the cut. */
  summary?: string;
  /** Set when the cast ended because of an error (a crystal failure, an invalid response); its code is optional. */
  error?: CodedError;
  /** Cumulative usage of the entity so far (PROD-3). */
  usage: Usage;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: CodedError };

/** A change a case attempts in order to prove it is refused (CALL-1, LOOM-3, INTENT-3). */
export type MutationAttempt =
  | { target: 'call'; cantrip: string; system_prompt: string }
  | { target: 'turn'; turn_id: string; field: string; value: unknown }
  | { target: 'reward'; turn_id: string; reward: number | null }
  /** LOOM-3 forbids deleting a stored turn as well as changing it. */
  | { target: 'delete'; turn_id: string };

/** How a fork continues, beyond its context (LOOM-4). */
export interface ForkOptions {
  /** The crystal the fork runs on, as `CantripSetup.crystal` is given; absent: its cantrip's crystal. */
  crystal?: CrystalSetup;
  /**
   * The strategy the harness asks for (§6.6), only one the implementation lists in
   * `Description.fork_strategies`: make the fork that way, or refuse. Absent: the implementation's choice.
   */
  strategy?: ForkStrategy;
}

/** The operations an implementation offers the harness. */
export interface Adapter {
  describe(): Promise<Description>;
  construct(setup: CantripSetup, host: Host): Promise<Result<{ cantrip: string }>>;
  /** Invoke, run one intent, discard (the intent may be absent so INTENT-1 can be checked). */
  cast(cantrip: string, intent?: string): Promise<Result<CastOutcome>>;
  /**
   * A persistent entity (ENTITY-5). ENTITY-2: the entity takes `entity_id` when the caller gives one
   * (only asked of implementations that declare `caller-entity-id`; refused if an entity already has
   * it), and a generated unique id otherwise.
   */
  invoke(cantrip: string, options?: { entity_id?: string }): Promise<Result<{ entity: string }>>;
  /** Run one more intent through an invoked entity. */
  send(entity: string, intent?: string): Promise<Result<CastOutcome>>;
  /**
   * A new entity whose context is the path from the root to `turn_id` (LOOM-4); it runs at once, on
   * `intent` if given, else on the intent in force at that turn. With `options.crystal` it continues on
   * that crystal instead of its cantrip's: the same call and circle, only the crystal swapped (spec
   * 2.2), so its first request to that crystal carries the path to the fork turn. Any implementation
   * with `fork` can offer it, since it is the swap of `construct` followed by a fork. Older harnesses
   * never pass `options`.
   */
  fork(turn_id: string, intent?: string, options?: ForkOptions): Promise<Result<{ entity: string; strategy: ForkStrategy; outcome: CastOutcome }>>;
  /** Every turn in the loom, in append order. */
  loom(): Promise<Result<{ turns: Turn[] }>>;
  /** The root-to-leaf path ending at `leaf_turn_id` (LOOM-10). */
  thread(leaf_turn_id: string): Promise<Result<{ turns: Turn[] }>>;
  mutate(attempt: MutationAttempt): Promise<Result<Record<string, never>>>;
  /**
   * With `persistence`: drop everything held in memory and read the loom back from durable storage,
   * as a restarted process would. Cantrips stay (they are configuration, and keep their handles);
   * invoked entities are gone; turns read back must equal the turns before, and a fork from any of
   * them must work (LOOM-1: turns are never lost; LOOM-3).
   */
  reopen?(): Promise<Result<Record<string, never>>>;
  /**
   * With `overlay-file-gates`: the host's decision on an entity's file overlay (every overlay gate
   * root it used). `accept` merges the overlay into the root (files written, deletions applied),
   * `reject` discards it; either way the entity goes on with an empty overlay over the root as it now
   * is. The entity may be one that has ended (a cast's, a child's) and need not have written anything.
   */
  overlay?(entity: string, decision: OverlayDecision): Promise<Result<Record<string, never>>>;
  /**
   * With `loom-export` (PROD-8): the loom as the implementation's default export writes it for a user
   * (the file or text its export produces, every turn so far; an implementation that exports thread by
   * thread gives every thread's export one after another), with `format` naming it (`jsonl`, say).
   */
  exportLoom?(): Promise<Result<LoomExport>>;
  /**
   * With `log-output` (PROD-8): the text the implementation wrote to its logs (at every level it writes)
   * since the adapter was created, or since its previous `logs` answer.
   */
  logs?(): Promise<Result<LogOutput>>;
  dispose(): Promise<void>;
}

/** Feature `loom-export`: the default export's text, and what it is. */
export interface LoomExport {
  text: string;
  format?: string;
}

/** Feature `log-output`: the log text written while serving the adapter. */
export interface LogOutput {
  text: string;
}

/** What the host decides about an entity's file overlay (feature `overlay-file-gates`). */
export type OverlayDecision = 'accept' | 'reject';

/**
 * TypeScript shapes of a parsed `tests.yaml` (format_version 1). They mirror
 * `schemas/test-case.schema.json`; docs/INTERPRETING.md says what each key means.
 */
import type { ChildLimitsSetup, CrystalTransport, Feature, VerifierSetup, WardSetup } from '../../schemas/adapter.ts';
import type { ForkStrategy, Hyperparameters } from '../../schemas/records.ts';
import type { ProviderStep } from '../crystal-server/index.ts';
import type { BatchExpectation } from '../values/index.ts';

export type Level = 'MUST' | 'SHOULD' | 'MAY';
/** A case's level in each draft it applies to, where a rule's level changed between drafts (`{ 0.1.0: MUST, 0.3.1: SHOULD }`). */
export type LevelByDraft = Partial<Record<string, Level>>;
export type TestGateKind = 'echo' | 'fail' | 'delay' | 'counter' | 'fixed';
export type MediumName = 'conversation' | 'code';

export interface CaseCall {
  system_prompt?: string;
  hyperparameters?: Hyperparameters;
}

export interface CaseGateObject {
  name: string;
  crystal?: string;
  call?: CaseCall;
  /** call_entity / call_entity_batch only (feature child-gates): test gates its children may ask for beyond the parent's. */
  child_gates?: CaseGate[];
  root?: string;
  /** File gates only (feature overlay-file-gates): work through the calling entity's copy-on-write overlay over `root`. */
  overlay?: boolean;
  behaves_as?: TestGateKind;
  error_name?: string;
  /** fail only: the message it fails with. */
  error_message?: string;
  /** fixed only: what it returns. */
  result?: unknown;
  /** Test gates: the argument schema presented to the crystal instead of the kind's own; done (feature done-parameters): its declared argument schema. */
  parameters?: Record<string, unknown>;
  /** Test gates: real ms the gate waits before answering as its kind (at most 2000). */
  delay_ms?: number;
  ephemeral?: boolean;
  /**
   * Test gates only (feature gate-credentials, PROD-8): the gate is built with a credential, a marker
   * random per run; `{credential}` in its `error_message` or its fixed `result` stands for it.
   */
  credential?: true;
}
export type CaseGate = string | CaseGateObject;

export interface CaseSetup {
  crystal?: string;
  call?: CaseCall;
  circle?: {
    /**
     * Absent: the implementation receives no medium (MEDIUM-1 at 0.3.1: conversation by default). A list:
     * two medium declarations at once, in cases about MEDIUM-1 that judge the refusal (errors.main).
     */
    medium?: MediumName | MediumName[];
    gates: CaseGate[];
    wards?: WardSetup;
    /** Feature `verifier-wards`: passed on unchanged. */
    verifiers?: VerifierSetup[];
    /** Feature `child-circle-wards`: passed on unchanged. */
    child_limits?: ChildLimitsSetup;
  };
  require_done?: boolean;
  /** CRYSTAL-5: the tool choice the cantrip's queries carry. */
  tool_choice?: 'auto' | 'required' | 'none';
  /** `after_turns` needs feature folding-turn-trigger: a fold triggered by a count of unfolded turns. */
  folding?: { threshold?: number; keep_recent_turns?: number; after_turns?: number };
  expose_loom?: boolean;
  /** Files written to a fresh directory for this case; file gates' roots are relative to it. */
  files?: Record<string, string>;
  /** Symlinks (path -> relative target) created in that directory. */
  links?: Record<string, string>;
  /** Feature bounded-events: the bound on unacknowledged events the cantrip is built with. */
  event_buffer?: number;
  /** Feature bounded-events: how the harness consumes streamed events (default: acknowledges each at once). */
  consumer?: EventConsumerScript;
  /** Feature retry-limit (PROD-2 from 0.2.0): the configured maximum of retries of one failed LLM query. */
  retry?: { max_retries: number };
}

/**
 * The harness as a consumer of streamed events: `stall` acknowledges nothing while the actions run;
 * `delay_ms` acknowledges one event at a time, each that long after the previous acknowledgement or its
 * arrival, whichever is later (a reader slower than the entity). Either way everything still held is
 * acknowledged when the actions are over.
 */
export type EventConsumerScript = { stall: true } | { delay_ms: number };

export interface ScriptToolCall {
  gate: string;
  args?: unknown;
  arguments_raw?: string;
  id?: string;
}

/** A tool the provider ran itself while answering, served in the reply's `provider_tools` (LLM-7). */
export interface ScriptProviderTool {
  id: string;
  name: string;
  args?: unknown;
  result: string;
}

export interface ScriptStep {
  content?: string | null;
  /** `null` only in a raw step: the reply carries `tool_calls: null`. */
  tool_calls?: ScriptToolCall[] | null;
  /** Callback transport only: tools the provider ran itself, with their results (LLM-7). */
  provider_tools?: ScriptProviderTool[];
  code?: Record<string, string>;
  /**
   * With both `code` and `tool_calls`: served as the code to a request offering the sandbox's tool, else
   * as the tool calls (a child whose medium the implementation chooses, COMP-1 from 0.2.0).
   */
  whichever_medium?: true;
  usage?: { prompt: number; completion: number; cached: number };
  thinking?: string;
  metadata?: Record<string, unknown>;
  error?: { status?: number; code?: string; message?: string };
  delay_ms?: number;
  /** How the reply travels over a wire transport (HTTP status, headers, malformed body, stream splits): harness/crystal-server. */
  provider?: ProviderStep;
  /** Hold the reply until this many queries to the crystal are in flight at once (bounded). */
  await_concurrent?: number;
  raw?: boolean;
  /** Callback transport only: the query throws (host.queryCrystal rejects) with this message instead of answering. */
  throws?: string;
  /** Feature loom-during-cast: read `loom()` before this reply is served and keep it as `snapshots.<name>` (LOOM-1). */
  snapshot_loom?: string;
}

export interface CaseCrystal {
  context_window?: number;
  /** False: this crystal cannot force tool use, so `tool_choice: required` must be simulated (CRYSTAL-5). */
  forces_tool_use?: boolean;
  script?: ScriptStep[];
  by_intent?: Record<string, ScriptStep[]>;
  /**
   * A crystal shared by several entities (children on their parent's crystal): per lane, the script of
   * the entities whose requests carry one of the lane's intents (docs/INTERPRETING.md, "A shared crystal").
   */
  by_entity?: Record<string, EntityLane>;
}

/** The script of the entities of one lane of a shared crystal. */
export interface EntityLane {
  /** Intents that place a request here; absent: the by_intent keys, plus every delegated intent when there is a script. */
  intents?: string[];
  script?: ScriptStep[];
  by_intent?: Record<string, ScriptStep[]>;
}

export type TurnRef =
  | { turn_id: string }
  /** The nth (from 1) crystal turn the action added for its entity. */
  | { of: string; nth: number }
  | { of: string; last: true }
  | { of: string; first: true };

export type Action =
  /**
   * One more cantrip from the same setup, optionally on another of the case's crystals (the swap of spec
   * 2.2), or with only some of the setup circle's gates (`gates`, names: the same identity in another circle, IDENTITY-3).
   */
  | { construct: { as: string; crystal?: string; gates?: string[] } }
  | { cast: { intent?: string | null; cantrip?: string; as?: string } }
  | { invoke: { cantrip?: string; entity_id?: string; as?: string } }
  | { send: { entity: string; intent?: string | null; as?: string } }
  /**
   * `crystal`: continue the fork on another declared crystal (LOOM-4 with the swap of spec 2.2).
   * `strategy`: ask for a fork made that way (§6.6; LOOM-13 binds replay forks); an implementation that
   * does not declare it in `fork_strategies` skips the case, one that refuses it or makes another leaves it not run.
   */
  | { fork: { from: TurnRef; intent?: string; crystal?: string; strategy?: ForkStrategy; as?: string } }
  | { annotate_reward: { turn: TurnRef; reward: number | null; as?: string } }
  | {
      mutate: {
        target: 'call' | 'turn' | 'delete';
        cantrip?: string;
        system_prompt?: string;
        turn?: TurnRef;
        field?: string;
        value?: unknown;
        as?: string;
      };
    }
  | { thread: { leaf: TurnRef; as?: string } }
  | { snapshot_loom: { as: string } }
  /** With `persistence`: the implementation drops its memory and reads its loom back (a restart). */
  | { reopen: { as?: string } }
  /** With `overlay-file-gates`: the host accepts (merges into the root) or rejects (discards) an entity's overlay. */
  | { overlay: { entity: string; decision: 'accept' | 'reject'; as?: string } }
  /** Feature loom-export (PROD-8): the implementation's default export of the loom, kept as `exports.<as>`. */
  | { export_loom: { as?: string } }
  /** Feature log-output (PROD-8): what the implementation logged, kept as `logs.<as>`. */
  | { logs: { as?: string } }
  /** Feature acp: `session/new` on the implementation's ACP agent (started, and initialized, at the case's first ACP action). */
  | { acp_session: { cwd?: string; as?: string } }
  /** Feature acp: `session/prompt` in the session an earlier `acp_session` opened; `form`: how the text is written (default ACP's own text block under `prompt`). */
  | { acp_prompt: { session: string; text: string; form?: 'blocks' | 'content' | 'string'; as?: string } };

export type Verb = keyof UnionToIntersection<Action>;
/** The intersection of a union's members (a helper of the verb types). */
export type UnionToIntersection<U> = (U extends unknown ? (k: U) => void : never) extends (k: infer I) => void ? I : never;

/** One matcher; exactly one key is set. */
export interface Matcher {
  equals?: unknown;
  /** Equal to the value, or text rendering it as JSON (`"1"` for 1): for a stored gate result, which the entity saw as text. */
  seen_as?: unknown;
  /** A batch gate's results, a list or text, showing each slot in request order (or, `any_order`, each answer somewhere). */
  batch_results?: BatchExpectation;
  not_equals?: unknown;
  like?: unknown;
  contains?: unknown;
  not_contains?: unknown;
  length?: number | { at_least?: number; at_most?: number; less_than?: number; greater_than?: number };
  one_of?: unknown[];
  greater_than?: number;
  less_than?: number;
  at_least?: number;
  at_most?: number;
  absent?: true;
  present?: true;
  type?: 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'array' | 'object';
  same_as?: string;
  /** A string containing the text at that path (or an array holding such a string). */
  contains_text_at?: string;
  /** An object or array holding, at any depth under any key, a value deep-equal to this one (a record whose field the spec does not name). */
  holds?: unknown;
  /** An object or array holding, at any depth, a value equal to the one at that path (a record whose field the spec does not name). */
  holds_value_at?: string;
  every?: Matcher;
  some?: Matcher;
  none?: Matcher;
  unique?: true;
  increasing?: true;
  schema?: string;
  /** At least one alternative holds; an alternative may name its own path. */
  any_of?: (Matcher & { path?: string })[];
}

export interface Expectation extends Matcher {
  path: string;
  /**
   * The rule whose sentence the expectation checks, one of the case's rules: its failure is reported
   * under this rule only. Required in a case with several rules; a one-rule case's expectations check
   * that rule (docs/INTERPRETING.md, "Which rule an expectation checks").
   */
  rule?: string;
  /** Read the value as the entity saw it (JSON text as the value it renders) before matching: harness/values/seen-as.ts. */
  as_seen?: true;
  /**
   * The level of this expectation's obligation where it is weaker than its rule's (a SHOULD clause of a
   * MUST rule): one, or one per draft. Needs `rule`. Absent: the weaker of the case's level and the
   * rule's. A planned case carries the judged draft's level here (harness/case-file/drafts.ts).
   */
  level?: Level | LevelByDraft;
}

/** Where a case sits in its file, for messages. */
export interface SourcePosition {
  file: string;
  line: number;
  column: number;
}

export interface Case {
  id: string;
  /** Rule IDs of the draft {@link Case.rules_draft} names. */
  rules: string[];
  /** One level for every draft the case applies to, or one per draft (harness/case-file/drafts.ts). */
  level: Level | LevelByDraft;
  /** The drafts the case applies to (spec/drafts.yaml versions); absent: every draft where its rules keep their meaning. */
  drafts?: string[];
  /** The draft whose rule IDs `rules` and the expectations' `rule` use; absent: 0.1.0. */
  rules_draft?: string;
  requires?: Feature[];
  /** The crystal transports the case applies to (default: all); others skip it. */
  transports?: CrystalTransport[];
  description: string;
  timeout_ms?: number;
  setup: CaseSetup;
  crystals?: Record<string, CaseCrystal>;
  act: Action[];
  expect: Expectation[];
  /**
   * What the case's real waits must have brought about for its expectations to judge anything (a held
   * query that was asked before the ward fired). Missed: the case runs again with its times scaled up
   * (harness/run/timing-premise.ts).
   */
  premise?: Expectation[];
}

/** A case with its place in the file. */
export interface LoadedCase extends Case {
  position: SourcePosition;
  /**
   * Set by planning (harness/plan) on the case it hands to a run: the draft being judged. The case's
   * `rules`, its expectations' `rule` and its `level` are then that draft's, and every cantrip the
   * harness constructs for it is asked for that draft (`CantripSetup.draft`).
   */
  judged_draft?: string;
}

export interface CaseFile {
  file: string;
  format_version: 1;
  spec_version: string;
  cases: LoadedCase[];
}

import type { ForkStrategy, GateCallRecord, Message, ToolCall, ToolDefinition, Turn } from '../../../schemas/index.ts';
import type { Gate, GateContext } from '../gate.ts';
import type { Verifier } from '../verifiers.ts';

/** What the circle tells an entity whose text-only reply did not end a `require_done` cast (LOOP-6). */
export const NO_GATE_CALLED = 'No gate was called. The task ends only when you call done(answer).';

/** What one utterance did in the medium: the turn's single composite observation (CIRCLE-7). */
export interface Action {
  /** One record per gate call, in the order they were made. */
  gateCalls: GateCallRecord[];
  /** Set when `done` was called: the loop stops after this turn (LOOP-3). */
  done?: { answer: unknown };
  /** The observation as text, for the loom's `observation` field. */
  observation: string;
  /** What goes back into the working context: one `tool` message per tool call (CIRCLE-4). */
  messages: Message[];
  /** What the entity wrote, when it is more than the reply's text (a code medium's programs). */
  utterance?: string;
}

/** What an entity hands its medium when it opens a session. */
export interface OpenOptions {
  /** Read-only data visible to the entity's code, e.g. a child's `context`. */
  globals?: Record<string, unknown>;
  /** LOOM-11: the entity's thread so far, for circles that expose the loom to code. */
  thread?: () => readonly Turn[];
  /** The circle's verifiers: every gate call passes them, in order, before the gate runs (CIRCLE-6). */
  verifiers?: readonly Verifier[];
}

/** What a medium passes on to every gate call of one utterance. */
export type ActContext = Omit<GateContext, 'toolCallId'>;

/** Per-entity state of a medium, e.g. a sandbox whose variables persist across turns (CIRCLE-9). */
export interface MediumSession {
  act(toolCalls: readonly ToolCall[], context: ActContext): Promise<Action>;
  /** Rebuilds state from recorded turns, for a forked entity (LOOM-4); recorded gate results are reused, no gate runs. */
  restore?(path: readonly Turn[]): Promise<void>;
  dispose(): void;
}

/**
 * A medium: what the entity acts in (§4.1). It decides how gates are presented to the crystal
 * (CIRCLE-11) and how an utterance's tool calls become gate calls and an observation.
 */
export interface Medium {
  readonly kind: 'conversation' | 'code';
  /** How a fork's starting state is rebuilt (LOOM-4): from the recorded context alone, or by re-running code. */
  readonly forkStrategy: ForkStrategy;
  /** The capability presentation: tool definitions sent on every query. */
  present(gates: readonly Gate[]): ToolDefinition[];
  open(gates: ReadonlyMap<string, Gate>, options?: OpenOptions): Promise<MediumSession>;
  /** A recorded turn as the messages it put in the working context (to rebuild a fork's context, LOOM-4). */
  rebuild?(turn: Turn): Message[];
}

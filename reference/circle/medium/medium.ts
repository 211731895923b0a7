import type { GateCallRecord, Message, ToolCall, ToolDefinition } from '../../../schemas/index.ts';
import type { Gate, GateContext } from '../gate.ts';

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
}

/** What a medium passes on to every gate call of one utterance. */
export type ActContext = Omit<GateContext, 'toolCallId'>;

/** Per-entity state of a medium, e.g. a sandbox whose variables persist across turns (CIRCLE-9). */
export interface MediumSession {
  act(toolCalls: readonly ToolCall[], context: ActContext): Promise<Action>;
  dispose(): void;
}

/**
 * A medium: what the entity acts in (§4.1). It decides how gates are presented to the crystal
 * (CIRCLE-11) and how an utterance's tool calls become gate calls and an observation.
 */
export interface Medium {
  readonly kind: 'conversation' | 'code';
  /** The capability presentation: tool definitions sent on every query. */
  present(gates: readonly Gate[]): ToolDefinition[];
  open(gates: ReadonlyMap<string, Gate>): Promise<MediumSession>;
}

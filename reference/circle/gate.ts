import type { ToolDefinition } from '../../schemas/index.ts';

/** What a gate learns about the call in progress; never the entity's context. */
export interface GateContext {
  entityId: string;
  toolCallId: string;
  /** Aborted when a ward or a parent ends the entity mid-call; a long gate should stop on it. */
  signal: AbortSignal;
}

/**
 * A gate: a host function the entity can call across the circle's boundary (§4.3).
 *
 * Its dependencies (a file root, a child crystal, a timeout) are bound when the gate is built, before
 * any entity exists, and the entity only ever supplies arguments (CIRCLE-10). A failure is thrown; the
 * circle turns it into an error record the entity sees (CIRCLE-5).
 */
export interface Gate {
  readonly definition: ToolDefinition;
  /** PROD-5: the result is trimmed from the working context after the next turn; the loom keeps it whole. */
  readonly ephemeral?: boolean;
  execute(args: Record<string, unknown>, context: GateContext): Promise<unknown>;
}

/** Builds a gate from its definition and a function that closes over its dependencies (CIRCLE-10). */
export function defineGate(
  definition: ToolDefinition,
  execute: Gate['execute'],
  options: { ephemeral?: boolean } = {},
): Gate {
  return Object.freeze({ definition: Object.freeze(structuredClone(definition)), execute, ...options });
}

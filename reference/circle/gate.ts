import type { ToolDefinition } from '../../schemas/index.ts';
import type { Call } from '../call/call.ts';
import type { Crystal } from '../crystal/contract.ts';

/** What a gate learns about the call in progress; never the entity's context. */
export interface GateContext {
  entityId: string;
  toolCallId: string;
  /** Aborted when a ward or a parent ends the entity mid-call; a long gate should stop on it. */
  signal: AbortSignal;
  /** The id the turn making this call will have in the loom; child entities hang from it (COMP-5). */
  turnId: string;
  /** The turn the current one hangs from (the fork turn, for a fork's first turn): where per-entity gate state such as a file overlay starts (LOOM-4). */
  previousTurnId?: string;
  /** Starts a child entity under the calling one; present for the composition gates' use (chapter 5). */
  spawn?: (request: ChildRequest) => Promise<ChildOutcome>;
}

/** What a composition gate asks for: one child entity pursuing `intent` (COMP-1, COMP-4, COMP-7). */
export interface ChildRequest {
  intent: string;
  /** Data handed to the child alongside its intent. */
  context?: unknown;
  /** The child's crystal; the parent's when absent (COMP-7). */
  crystal?: Crystal;
  /** The child's call; the parent's when absent (COMP-7). */
  call?: Call;
  /** A tighter turn cap for the child; composed with the parent's by WARD-1. */
  maxTurns?: number;
  /** A tighter delegation depth for the child (spec 5.1 `max_depth`); never more than the parent's less one (WARD-1). */
  maxDepth?: number;
  /**
   * A code child's evaluation deadline in milliseconds (spec 5.1 `wards`, the code medium's own ward,
   * MEDIUM-4): composed with the parent's by taking the smaller (WARD-2, as WARD-1 composes the others).
   */
  evalTimeoutMs?: number;
  /** The gates the child gets: at 0.1.0 a subset of the parent's (COMP-1); all of the parent's when absent. */
  gates?: string[];
  /** From 0.2.0 (COMP-1, COMP-7): the child's medium by name; the parent's when absent (reference/drafts/child-circle.ts). */
  medium?: string;
  /** From 0.2.0 (COMP-7): the child's LLM by name, resolved through {@link ChildRequest.crystalNamed}. */
  llm?: string;
  /** From 0.2.0 (COMP-1): gates the composition gate holds for children beyond the parent's, bound at construction (CIRCLE-10). */
  childGates?: readonly Gate[];
  /** From 0.2.0 (COMP-7): how the composition gate reaches an LLM by name, bound at construction (CIRCLE-10). */
  crystalNamed?: (name: string) => Crystal;
}

/** How a child's cast ended, as its parent's gate sees it. */
export interface ChildOutcome {
  entityId: string;
  status: 'terminated' | 'truncated';
  result?: unknown;
  truncationCause?: string;
  summary?: string;
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
  /** For gates over a file overlay: the paths a turn changed, which the loom records with that turn (LOOM-1). */
  filesChanged?(turnId: string): readonly string[];
}

/** Builds a gate from its definition and a function that closes over its dependencies (CIRCLE-10). */
export function defineGate(
  definition: ToolDefinition,
  execute: Gate['execute'],
  options: { ephemeral?: boolean; filesChanged?: (turnId: string) => readonly string[] } = {},
): Gate {
  return Object.freeze({ definition: Object.freeze(structuredClone(definition)), execute, ...options });
}

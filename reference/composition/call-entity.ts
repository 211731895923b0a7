import type { Call } from '../call/call.ts';
import { createCall } from '../call/call.ts';
import { defineGate, type ChildOutcome, type ChildRequest, type Gate, type GateContext } from '../circle/gate.ts';
import type { Crystal } from '../crystal/contract.ts';
import { CantripError } from '../errors.ts';
import { childRequestOptions } from '../drafts/child-circle.ts';
import { DEFAULT_DRAFT, type Draft } from '../drafts/draft.ts';
import { CALL_ENTITY } from './names.ts';

/** What a composition gate is built with (CIRCLE-10): the child's crystal and call, fixed before any entity runs. */
export interface CompositionDependencies {
  crystal?: Crystal;
  call?: Call;
  /**
   * The draft the gate presents its options for (CIRCLE-11): from 0.2.0 a request may also name the
   * child's `medium` and `llm` (reference/drafts/child-circle.ts). Default 0.1.0. What a child gets is
   * decided by the draft of the cantrip that calls the gate.
   */
  draft?: Draft;
  /** From 0.2.0 (COMP-1): gates for children that the parent's circle need not hold. */
  childGates?: readonly Gate[];
  /** From 0.2.0 (COMP-7): the crystal a request's `llm` names. */
  crystalNamed?: (name: string) => Crystal;
}

/** The JSON Schema of one child request at `draft`: the 0.1.0 options, and from 0.2.0 `medium` and `llm` too. */
export function childRequestSchema(draft: Draft = DEFAULT_DRAFT): typeof CHILD_REQUEST_SCHEMA {
  const extra = childRequestOptions(draft);
  if (Object.keys(extra).length === 0) return CHILD_REQUEST_SCHEMA;
  return { ...CHILD_REQUEST_SCHEMA, properties: { ...CHILD_REQUEST_SCHEMA.properties, ...extra } } as typeof CHILD_REQUEST_SCHEMA;
}

/** The JSON Schema of one child request, shared by call_entity and call_entity_batch. */
export const CHILD_REQUEST_SCHEMA = {
  type: 'object',
  properties: {
    intent: { type: 'string', description: 'What the child entity should achieve.' },
    context: { description: 'Data handed to the child with its intent.' },
    system_prompt: { type: 'string', description: "The child's system prompt; the parent's when absent." },
    max_turns: { type: 'integer', minimum: 1, description: 'A tighter turn cap for the child.' },
    max_depth: { type: 'integer', minimum: 0, description: 'How many levels of delegation the child may use below itself; never more than it inherits.' },
    gates: { type: 'array', items: { type: 'string' }, description: "Which of this circle's gates the child gets; all when absent." },
  },
  required: ['intent'],
} as const;

/**
 * The `call_entity` gate (§5.1): runs one child entity and returns its answer (COMP-2). A child that
 * does not finish with `done` (its crystal fails, or a ward cuts it off) is reported to the parent as a
 * failed gate call with code `child_failed`, never as the parent's own failure (COMP-8).
 */
export function callEntityGate(dependencies: CompositionDependencies = {}): Gate {
  return defineGate(
    {
      name: CALL_ENTITY,
      description: 'Delegate a sub-task to a child entity with a fresh context; waits for it and returns its answer.',
      parameters: childRequestSchema(dependencies.draft),
    },
    async (args, context) => answerOf(await runChild(args, context, dependencies)),
  );
}

/** Parses one child request and runs it through the calling entity's `spawn`. */
export async function runChild(args: unknown, context: GateContext, dependencies: CompositionDependencies): Promise<ChildOutcome> {
  if (!context.spawn) throw new CantripError('unsupported', 'this entity cannot spawn children');
  return context.spawn(childRequest(args, dependencies));
}

/** The child's answer, or the `child_failed` error a parent sees for a child that did not finish (COMP-8). */
export function answerOf(outcome: ChildOutcome): unknown {
  if (outcome.status === 'terminated') return outcome.result ?? null;
  throw new CantripError('child_failed', `child ${outcome.entityId} was cut off (${outcome.truncationCause}): ${outcome.summary ?? ''}`);
}

function childRequest(args: unknown, dependencies: CompositionDependencies): ChildRequest {
  const fields = (typeof args === 'object' && args !== null ? args : {}) as Record<string, unknown>;
  const { intent, context, system_prompt: systemPrompt, max_turns: maxTurns, max_depth: maxDepth, eval_timeout_ms: evalTimeoutMs, gates, medium, llm } = fields;
  if (typeof intent !== 'string' || intent.trim() === '') throw new CantripError('missing_intent', 'a child needs an intent');
  if (systemPrompt !== undefined && typeof systemPrompt !== 'string') throw invalid('system_prompt must be a string');
  if (maxTurns !== undefined && !(Number.isInteger(maxTurns) && (maxTurns as number) > 0)) throw invalid('max_turns must be a positive integer');
  if (maxDepth !== undefined && !(Number.isInteger(maxDepth) && (maxDepth as number) >= 0)) throw invalid('max_depth must be a whole number');
  if (evalTimeoutMs !== undefined && !(Number.isInteger(evalTimeoutMs) && (evalTimeoutMs as number) > 0)) throw invalid('eval_timeout_ms must be a positive integer');
  if (gates !== undefined && !(Array.isArray(gates) && gates.every((gate) => typeof gate === 'string'))) throw invalid('gates must be a list of names');
  if (medium !== undefined && typeof medium !== 'string') throw invalid('medium must be a name');
  if (llm !== undefined && typeof llm !== 'string') throw invalid('llm must be a name');
  const call =
    systemPrompt === undefined
      ? dependencies.call
      : createCall({ systemPrompt, hyperparameters: { ...(dependencies.call?.hyperparameters ?? {}) } });
  return {
    intent,
    ...(context === undefined ? {} : { context }),
    ...(dependencies.crystal ? { crystal: dependencies.crystal } : {}),
    ...(call ? { call } : {}),
    ...(maxTurns === undefined ? {} : { maxTurns: maxTurns as number }),
    ...(maxDepth === undefined ? {} : { maxDepth: maxDepth as number }),
    ...(evalTimeoutMs === undefined ? {} : { evalTimeoutMs: evalTimeoutMs as number }),
    ...(gates === undefined ? {} : { gates: gates as string[] }),
    ...(medium === undefined ? {} : { medium: medium as string }),
    ...(llm === undefined ? {} : { llm: llm as string }),
    ...(dependencies.childGates ? { childGates: dependencies.childGates } : {}),
    ...(dependencies.crystalNamed ? { crystalNamed: dependencies.crystalNamed } : {}),
  };
}

function invalid(message: string): CantripError {
  return new CantripError('invalid_gate_arguments', message);
}

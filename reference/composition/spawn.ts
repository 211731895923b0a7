import { createCircle } from '../circle/circle.ts';
import type { ChildOutcome, ChildRequest } from '../circle/gate.ts';
import { composeWards } from '../circle/wards.ts';
import { CantripError } from '../errors.ts';
import { childCircleParts } from '../drafts/child-circle.ts';
import { childCall } from '../drafts/child-identity.ts';
import type { CantripOptions } from '../entity/cantrip-parts.ts';
import type { Entity } from '../entity/entity.ts';
import { COMPOSITION_GATES } from './names.ts';
import { admitChild } from './admit-child.ts';

/**
 * How the spawner builds a child's cantrip: `createCantrip`, handed in by entity/cantrip.ts, which in
 * turn hands this spawner to the loop. Importing it here would close a circle of imports.
 */
export type BuildCantrip = (options: CantripOptions) => { invoke(options: { parentDeadline?: number }): Entity };

/**
 * Runs one child entity for a composition gate of `parent`, inside the parent's turn `spawningTurnId`.
 *
 * - COMP-1, COMP-7, by the cantrip's draft (reference/drafts/child-circle.ts): at 0.1.0 the child's
 *   circle holds only gates the parent has (asking for another is refused with `gate_not_granted`) in
 *   the parent's medium; from 0.2.0 it is built on its own, from the parent's gates and those the
 *   composition gate holds for children, in the medium and on the LLM the request names.
 * - COMP-4: the child starts with an empty history: only its own intent (and the data handed to it).
 * - COMP-7, COMP-10 (reference/drafts/child-identity.ts): its crystal and call may differ; by default
 *   the crystal is the parent's, and so is the call at 0.1.0 and 0.2.0, while at 0.3.1 a child given
 *   no identity gets a generic one.
 * - The child is built for its parent's draft.
 * - WARD-1, WARD-2: its wards are the parent's composed with its own (a tighter turn cap, one less depth,
 *   the code medium's evaluation deadline, each the smaller of the two); it
 *   runs every verifier of its parent's circle, and its own children are held to the same child limits.
 * - COMP-1, WARD-1, COMP-8: a child circle that breaks the parent's child limits is refused with
 *   `child_refused` before the child exists (no query, no turn); the parent's gate call fails with it.
 * - COMP-6, COMP-11: at depth 0 the composition gates are gone from the child's circle, at every draft.
 * - COMP-5, LOOM-8, LOOM-12: it records into the parent's loom, its subtree hanging from the spawning turn.
 * - COMP-2: the parent's gate call waits for the whole child cast.
 * - COMP-9: when the parent's turn is aborted, the child is stopped and records `parent_terminated`.
 *
 * The loop is handed this function (entity/loop.ts, `ChildSpawner`) with `createCantrip` bound as `buildCantrip`.
 */
export async function spawnChild(
  parent: Entity,
  spawningTurnId: string,
  signal: AbortSignal,
  request: ChildRequest,
  parentDeadline: number | undefined,
  buildCantrip: BuildCantrip,
): Promise<ChildOutcome> {
  const parentCircle = parent.cantrip.circle;
  const inherited = (parentCircle.wards.maxDepth ?? 1) - 1;
  if (inherited < 0) throw new CantripError('gate_unavailable', 'no composition is allowed at this depth');
  // WARD-1: a child may ask for less depth than it inherits, never more.
  const depth = request.maxDepth === undefined ? inherited : Math.min(inherited, request.maxDepth);
  const wards = composeWards(parentCircle.wards, {
    maxDepth: depth,
    ...(request.maxTurns === undefined ? {} : { maxTurns: request.maxTurns }),
    ...(request.evalTimeoutMs === undefined ? {} : { evalTimeoutMs: request.evalTimeoutMs }),
    ...(depth === 0 ? { removeGates: COMPOSITION_GATES } : {}),
  });
  const draft = parent.cantrip.draft;
  const parts = childCircleParts({
    draft,
    parent: parentCircle,
    wards,
    ...(request.gates === undefined ? {} : { gates: request.gates }),
    ...(request.medium === undefined ? {} : { medium: request.medium }),
    ...(request.llm === undefined ? {} : { llm: request.llm }),
    ...(request.childGates === undefined ? {} : { childGates: request.childGates }),
    ...(request.crystalNamed === undefined ? {} : { crystalNamed: request.crystalNamed }),
  });
  const circle = createCircle({
    gates: parts.gates,
    wards,
    medium: parts.medium,
    verifiers: parentCircle.verifiers,
    ...(parentCircle.childLimits ? { childLimits: parentCircle.childLimits } : {}),
  });
  admitChild(parentCircle.childLimits, circle);
  const cantrip = buildCantrip({
    crystal: parts.crystal ?? request.crystal ?? parent.cantrip.crystal,
    call: childCall(draft, request.call, parent.cantrip.call),
    draft,
    circle,
    requireDone: parent.cantrip.requireDone,
    ...(parent.cantrip.folding ? { folding: parent.cantrip.folding } : {}),
    ...(parent.cantrip.redact ? { redact: parent.cantrip.redact } : {}),
    loom: parent.cantrip.loom,
    onEvent: parent.cantrip.onEvent,
    spawnedBy: spawningTurnId,
    ...(request.context === undefined ? {} : { context: request.context }),
  });
  const child = cantrip.invoke(parentDeadline === undefined ? {} : { parentDeadline });
  const stop = () => child.stop('parent_terminated');
  if (signal.aborted) stop();
  signal.addEventListener('abort', stop, { once: true });
  const running = child.cast(request.intent);
  parent.track(running);
  try {
    const result = await running;
    return {
      entityId: result.entityId,
      status: result.status,
      ...(result.result === undefined ? {} : { result: result.result }),
      ...(result.truncationCause ? { truncationCause: result.truncationCause } : {}),
      ...(result.summary ? { summary: result.summary } : {}),
    };
  } finally {
    signal.removeEventListener('abort', stop);
    child.dispose();
  }
}

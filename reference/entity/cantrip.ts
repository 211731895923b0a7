import { randomUUID } from 'node:crypto';
import type { Turn } from '../../schemas/index.ts';
import { callRecord } from '../call/call.ts';
import { DONE } from '../circle/done.ts';
import { hasTruncationWard } from '../circle/wards.ts';
import { spawnChild } from '../composition/spawn.ts';
import { CantripError } from '../errors.ts';
import { DEFAULT_DRAFT } from '../drafts/draft.ts';
import { Loom } from '../loom/loom.ts';
import { callTurn, newTurnId } from '../loom/turn.ts';
import type { CantripOptions, CantripParts } from './cantrip-parts.ts';
import type { CastResult, CastStart } from './cast-result.ts';
import { contextFromThread } from './context.ts';
import { Entity, newEntityId } from './entity.ts';
import { runCast, type ChildSpawner } from './loop.ts';

/** A cantrip: a reusable value binding a crystal to a circle through a call (CANTRIP-1, CANTRIP-2). */
export interface Cantrip extends CantripParts {
  /** Invoke, run one intent, dispose (§1.5). Each cast is a new, independent entity (CANTRIP-2). */
  cast(intent: string): Promise<CastResult>;
  /** A persistent entity that takes intents one cast at a time (ENTITY-5, ENTITY-6). */
  invoke(options?: { entityId?: string; parentDeadline?: number }): Entity;
  /**
   * LOOM-4: a new entity whose context is the loom's path to `turnId`; the original thread is not
   * touched. The medium says how its state comes back, and the first turn records it: `snapshot` for a
   * conversation (the recorded path is the whole state), `replay` for code (the programs are re-run).
   */
  fork(turnId: string, options?: { entityId?: string }): Entity;
}

/**
 * Builds a cantrip, refusing an incomplete one (CANTRIP-1: `missing_crystal`, `missing_call`,
 * `missing_circle`) or one whose circle could run forever or never finish (CANTRIP-3, CIRCLE-1,
 * CIRCLE-2: `missing_done_gate`, `missing_truncation_ward`). The result is frozen: a value, cast as
 * often as you like.
 */
export function createCantrip(options: CantripOptions): Cantrip {
  if (!options.crystal) throw new CantripError('missing_crystal', 'a cantrip needs a crystal');
  if (!options.call) throw new CantripError('missing_call', 'a cantrip needs a call');
  if (!options.circle) throw new CantripError('missing_circle', 'a cantrip needs a circle');
  if (!options.circle.gates.has(DONE)) throw new CantripError('missing_done_gate', 'the circle has no done gate');
  if (!hasTruncationWard(options.circle.wards)) {
    throw new CantripError('missing_truncation_ward', 'the circle needs a max_turns or timeout ward');
  }
  const id = options.id ?? `cantrip_${randomUUID()}`;
  const loom = options.loom ?? new Loom();
  // Retries (PROD-2) belong to the crystal: wrap it with `withRetry` (providers do) so the loop sees one query.
  const crystal = options.crystal;
  let storedCallTurn: Turn | undefined = options.id === undefined ? undefined : loom.turns().find((turn) => turn.role === 'call' && turn.cantrip_id === options.id);

  /**
   * CALL-4: the call is stored once, as the root every thread of this cantrip starts from. A child
   * cantrip's call turn hangs from the parent turn that spawned it instead (COMP-5).
   */
  const callTurnId = (): string => {
    storedCallTurn ??= loom.append(callTurn({ id: newTurnId(), parentId: options.spawnedBy ?? null, cantripId: id, call: callRecord(options.call) }));
    return storedCallTurn.id;
  };

  const cantrip: Cantrip = Object.freeze({
    id,
    crystal,
    call: options.call,
    circle: options.circle,
    requireDone: options.requireDone ?? false,
    toolChoice: options.toolChoice ?? 'auto',
    loom,
    onEvent: options.onEvent,
    context: options.context,
    exposeLoom: options.exposeLoom ?? false,
    folding: options.folding,
    redact: options.redact,
    draft: options.draft ?? DEFAULT_DRAFT,
    async cast(intent: string) {
      // INTENT-1 is checked before an entity exists, so a refused cast leaves nothing in the loom.
      if (typeof intent !== 'string' || intent.trim() === '') {
        throw new CantripError('missing_intent', 'a cast needs a non-empty intent');
      }
      const entity = cantrip.invoke();
      try {
        return await entity.cast(intent);
      } finally {
        entity.dispose();
      }
    },
    invoke(invokeOptions: { entityId?: string; parentDeadline?: number } = {}) {
      return new Entity(cantrip, invokeOptions.entityId ?? newEntityId(), castWithChildren, {
        parentTurnId: callTurnId(),
        sequence: 0,
        ...(invokeOptions.parentDeadline === undefined ? {} : { parentDeadline: invokeOptions.parentDeadline }),
      });
    },
    fork(turnId: string, forkOptions: { entityId?: string } = {}) {
      const turn = loom.has(turnId) ? loom.get(turnId) : undefined;
      if (!turn || turn.cantrip_id !== id || turn.role === 'call') {
        throw new CantripError('unknown_turn', `no turn '${turnId}' of this cantrip to fork from`);
      }
      // Only this cantrip's own stretch of the path: for a child, the parent's turns above its call turn are not its context.
      const path = loom.pathTo(turnId);
      const lineage = path.slice(path.map((step) => step.role).lastIndexOf('call') + 1);
      return new Entity(cantrip, forkOptions.entityId ?? newEntityId(), castWithChildren, {
        parentTurnId: turnId,
        sequence: turn.sequence,
        messages: contextFromThread(lineage, options.circle.medium),
        fork: { from_turn_id: turnId, strategy: options.circle.medium.forkStrategy },
        restoreFrom: lineage,
      });
    },
  });
  return cantrip;
}

/**
 * The loop every entity of a cantrip runs its casts with, handed the spawner its composition gates
 * call (COMP-2). The spawner builds each child's cantrip with `createCantrip`, so it is wired here,
 * where both are known, rather than imported by the loop: that import would run in a circle.
 */
function castWithChildren(entity: Entity, start: CastStart): Promise<CastResult> {
  return runCast(entity, start, spawnChildCantrip);
}

const spawnChildCantrip: ChildSpawner = (parent, spawningTurnId, signal, request, parentDeadline) =>
  spawnChild(parent, spawningTurnId, signal, request, parentDeadline, createCantrip);

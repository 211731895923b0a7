import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Adapter, CantripSetup, CastOutcome, Description, Host, MutationAttempt, Result } from '../../schemas/index.ts';
import { CRYSTAL_TRANSPORTS, OPTIONAL_WARDS, PROTOCOL_VERSION } from '../../schemas/index.ts';
import { CODE_ARGUMENT, CODE_TOOL } from '../circle/medium/code/presentation.ts';
import type { Cantrip } from '../entity/cantrip.ts';
import type { Entity } from '../entity/entity.ts';
import type { CastResult } from '../entity/loop.ts';
import { CantripError } from '../errors.ts';
import { JsonlStorage } from '../loom/jsonl-storage.ts';
import { Loom } from '../loom/loom.ts';
import { buildCantrip } from './setup.ts';

/**
 * The reference implementation behind the adapter contract (`schemas/adapter.ts`): the harness
 * reaches the reference only through this, exactly as it reaches any other implementation.
 *
 * Everything here is translation: case setups into cantrips, results into outcomes, and
 * {@link CantripError} codes into `{ ok: false, error }`. All cantrips of one adapter share one loom,
 * so a case sees one tree (LOOM-12). The loom is a JSONL file in a directory of the adapter's own, so
 * `reopen` can read it back as a restarted process would (LOOM-1).
 */
export function createReferenceAdapter(): Adapter {
  const directory = mkdtempSync(join(tmpdir(), 'cantrip-loom-'));
  const file = join(directory, 'loom.jsonl');
  let storage = new JsonlStorage(file);
  let loom = new Loom(storage);
  const cantrips = new Map<string, Cantrip>();
  const entities = new Map<string, Entity>();
  /** What each cantrip was built from, to build it again over a reopened loom. */
  const built = new Map<string, { setup: CantripSetup; host: Host }>();

  return {
    async describe(): Promise<Description> {
      return {
        name: 'cantrip-reference',
        version: '0.1.0',
        spec_version: '0.1.0-draft',
        protocol_version: PROTOCOL_VERSION,
        features: ['fork', 'code-fork', 'streaming', 'composition', 'code-medium', 'loom-exposure', 'folding', 'ephemeral-gates', 'file-gates', 'caller-entity-id', 'persistence'],
        sandbox: { language: 'javascript', tool: CODE_TOOL, argument: CODE_ARGUMENT },
        fork_strategies: ['snapshot', 'replay'],
        // Every ward kind the kit knows is enforced (reference/circle/wards.ts).
        wards: [...OPTIONAL_WARDS],
        // Its own providers speak both wire formats, plain and streamed (reference/crystal/providers).
        crystal_transports: [...CRYSTAL_TRANSPORTS],
      };
    },

    construct: (setup, host) =>
      attempt(async () => {
        const cantrip = buildCantrip(setup, host, loom);
        cantrips.set(cantrip.id, cantrip);
        built.set(cantrip.id, { setup: structuredClone(setup), host });
        return { cantrip: cantrip.id };
      }),

    cast: (handle, intent) =>
      attempt(async () => {
        const cantrip = lookup(cantrips, handle, 'cantrip');
        if (typeof intent !== 'string' || intent.trim() === '') throw new CantripError('missing_intent', 'cast needs an intent');
        const entity = cantrip.invoke();
        try {
          return toOutcome(await entity.cast(intent));
        } finally {
          entity.dispose();
        }
      }),

    invoke: (handle, options) =>
      attempt(async () => {
        const chosen = options?.entity_id;
        // ENTITY-2: a caller-chosen id must still be unique among the entities this adapter made.
        if (chosen !== undefined && (entities.has(chosen) || loom.turns().some((turn) => turn.entity_id === chosen))) {
          throw new CantripError('duplicate_entity_id', `an entity with id '${chosen}' already exists`);
        }
        const entity = lookup(cantrips, handle, 'cantrip').invoke(chosen === undefined ? {} : { entityId: chosen });
        entities.set(entity.id, entity);
        return { entity: entity.id };
      }),

    send: (handle, intent) =>
      attempt(async () => {
        const entity = lookup(entities, handle, 'entity');
        return toOutcome(await entity.cast(intent as string));
      }),

    fork: (turnId, intent) =>
      attempt(async () => {
        if (!loom.has(turnId)) throw new CantripError('unknown_turn', `no turn '${turnId}'`);
        const cantrip = lookup(cantrips, loom.get(turnId).cantrip_id, 'cantrip');
        const entity = cantrip.fork(turnId);
        entities.set(entity.id, entity);
        const strategy = entity.forkedFrom?.strategy ?? 'snapshot';
        const outcome = toOutcome(await (intent === undefined ? entity.resume() : entity.cast(intent)));
        return { entity: entity.id, strategy, outcome };
      }),

    loom: () => attempt(async () => ({ turns: loom.turns() })),

    thread: (leaf) => attempt(async () => ({ turns: loom.thread(leaf) })),

    mutate: (change) => attempt(async () => mutate(change, cantrips, loom)),

    /** A restart: memory goes, the file stays; cantrips come back with their ids over the reloaded loom. */
    reopen: () =>
      attempt(async () => {
        for (const entity of entities.values()) entity.dispose();
        entities.clear();
        storage.close();
        storage = new JsonlStorage(file);
        loom = new Loom(storage);
        for (const [id, { setup, host }] of built) cantrips.set(id, buildCantrip(setup, host, loom, id));
        return {};
      }),

    async dispose() {
      for (const entity of entities.values()) entity.dispose();
      entities.clear();
      cantrips.clear();
      storage.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/**
 * Changes a case attempts to prove they are refused. Each one is really tried against the object the
 * reference holds, and reported as refused only if it did not take effect (CALL-1, LOOM-3).
 */
function mutate(change: MutationAttempt, cantrips: Map<string, Cantrip>, loom: Loom): Record<string, never> {
  if (change.target === 'reward') {
    loom.annotateReward(change.turn_id, change.reward);
    return {};
  }
  if (change.target === 'call') {
    const call = lookup(cantrips, change.cantrip, 'cantrip').call;
    try {
      (call as { systemPrompt: string | null }).systemPrompt = change.system_prompt;
    } catch {
      // A frozen call throws in strict mode; what matters is the check below.
    }
    if (call.systemPrompt === change.system_prompt) return {};
    throw new CantripError('call_immutable', 'the call cannot change after construction');
  }
  const stored = loom.get(change.turn_id);
  // LOOM-3: the loom offers no way to remove a turn, so a deletion is refused with the turn still there.
  if (change.target === 'delete') throw new CantripError('loom_append_only', `turn '${stored.id}' cannot be deleted`);
  try {
    (stored as unknown as Record<string, unknown>)[change.field] = change.value;
  } catch {
    // Stored turns are frozen; fall through to the loom's own refusal.
  }
  return loom.amend(change.turn_id, change.field, change.value);
}

function toOutcome(result: CastResult): CastOutcome {
  return {
    entity_id: result.entityId,
    status: result.status,
    ...(result.result === undefined ? {} : { result: result.result }),
    ...(result.truncationCause ? { truncation_cause: result.truncationCause } : {}),
    ...(result.summary ? { summary: result.summary } : {}),
    ...(result.error ? { error: { code: result.error.code, message: result.error.message } } : {}),
    usage: result.usage,
  };
}

function lookup<T>(map: Map<string, T>, handle: string, kind: 'cantrip' | 'entity'): T {
  const found = map.get(handle);
  if (!found) throw new CantripError(kind === 'entity' ? 'unknown_entity' : 'unsupported', `no ${kind} '${handle}'`);
  return found;
}


/** Runs an operation; a {@link CantripError} becomes a coded result, anything else is a bug and is rethrown. */
async function attempt<T>(operation: () => Promise<T>): Promise<Result<T>> {
  try {
    return { ok: true, value: await operation() };
  } catch (error) {
    if (error instanceof CantripError) return { ok: false, error: { code: error.code, message: error.message } };
    throw error;
  }
}

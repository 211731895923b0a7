import type { Adapter, CantripSetup, CastOutcome, Description, Host, MutationAttempt, Result } from '../../schemas/index.ts';
import { CRYSTAL_TRANSPORTS, OPTIONAL_WARDS, PROTOCOL_VERSION } from '../../schemas/index.ts';
import { CODE_ARGUMENT, CODE_TOOL } from '../circle/medium/code/presentation.ts';
import type { Cantrip } from '../entity/cantrip.ts';
import type { Entity } from '../entity/entity.ts';
import type { CastResult } from '../entity/cast-result.ts';
import { CantripError } from '../errors.ts';
import { JsonlStorage } from '../loom/jsonl-storage.ts';
import { Loom } from '../loom/loom.ts';
import { removeLoomFile, scratchLoomFile } from './scratch.ts';
import { buildCantrip } from './setup.ts';
import { OverlayRegistry, ownStretch } from './overlay-registry.ts';
import type { FileOverlay, FileOverlayOptions } from '../circle/overlay.ts';
import { DEFAULT_EVENT_BOUND } from '../production/event-stream.ts';
import { OperationalLog } from '../production/operational-log.ts';
import { REFERENCE_DRAFTS } from '../drafts/draft.ts';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * How the kit starts the reference's ACP agent (PROD-6, PROD-7): `reference/acp/stdio-agent` beside
 * this folder, through tsx from the sources (from the package root, where tsx is installed) or plainly
 * when built; its crystal is the kit's OpenAI-compatible endpoint, reached with the run's key.
 */
function acpLaunch(): NonNullable<Description['acp']> {
  const here = fileURLToPath(import.meta.url);
  const fromSources = here.endsWith('.ts');
  const agent = join(dirname(here), '..', 'acp', `stdio-agent${fromSources ? '.ts' : '.js'}`);
  return {
    command: [process.execPath, ...(fromSources ? ['--import', 'tsx'] : []), agent, '--crystal', 'openai:{base_url}#{model}'],
    env: { OPENAI_API_KEY: '{api_key}' },
    cwd: join(dirname(here), '..', '..'),
    crystal: 'openai',
  };
}

/**
 * The reference implementation behind the adapter contract (`schemas/adapter.ts`): the harness
 * reaches the reference only through this, exactly as it reaches any other implementation.
 *
 * Everything here is translation: case setups into cantrips, results into outcomes, and
 * {@link CantripError} codes into `{ ok: false, error }`. All cantrips of one adapter share one loom,
 * so a case sees one tree (LOOM-12). The loom is a JSONL file of the adapter's own (./scratch.ts), so
 * `reopen` can read it back as a restarted process would (LOOM-1).
 */
export function createReferenceAdapter(options: ReferenceAdapterOptions = {}): Adapter {
  const file = scratchLoomFile();
  let storage = new JsonlStorage(file);
  let loom = new Loom(storage);
  /** File overlays per gate root (feature overlay-file-gates); they read the loom to start a fork's overlay. */
  let overlays = new OverlayRegistry((turnId) => ownStretch(loom, turnId), options.fileOverlay);
  const cantrips = new Map<string, Cantrip>();
  const entities = new Map<string, Entity>();
  /** What each cantrip was built from, to build it again over a reopened loom. */
  const built = new Map<string, { setup: CantripSetup; host: Host }>();
  /** What the cantrips logged (feature log-output), each line scrubbed of its setup's secrets (PROD-8). */
  const log = new OperationalLog();

  return {
    async describe(): Promise<Description> {
      return {
        name: 'cantrip-reference',
        version: '0.1.0',
        spec_version: '0.1.0-draft',
        protocol_version: PROTOCOL_VERSION,
        features: ['fork', 'code-fork', 'streaming', 'composition', 'code-medium', 'loom-exposure', 'folding', 'ephemeral-gates', 'file-gates', 'caller-entity-id', 'persistence', 'verifier-wards', 'child-circle-wards', 'overlay-file-gates', 'bounded-events', 'folding-turn-trigger', 'done-parameters', 'child-crystal', 'child-call', 'child-gates', 'loom-during-cast', 'acp', 'gate-credentials', 'retry-limit', 'loom-export', 'log-output'],
        // PROD-6, PROD-7: the reference served as an ACP agent over stdio (reference/acp/, docs/acp.md), on the crystal the kit serves.
        acp: acpLaunch(),
        sandbox: { language: 'javascript', tool: CODE_TOOL, argument: CODE_ARGUMENT },
        fork_strategies: ['snapshot', 'replay'],
        // Every ward kind the kit knows is enforced (reference/circle/wards.ts).
        wards: [...OPTIONAL_WARDS],
        // Its own providers speak both wire formats, plain and streamed (reference/crystal/providers).
        crystal_transports: [...CRYSTAL_TRANSPORTS],
        // bounded-events: at most this many events wait for the host's acknowledgement (production/event-stream.ts).
        event_buffer: DEFAULT_EVENT_BOUND,
        // Each cantrip is built for the draft its setup names (reference/drafts/, docs/reference.md "Drafts").
        drafts: [...REFERENCE_DRAFTS],
      };
    },

    construct: (setup, host) =>
      attempt(async () => {
        const cantrip = buildCantrip(setup, host, loom, undefined, overlays, log);
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

    /**
     * LOOM-4. With `options.crystal` the fork continues on that crystal: the turn's cantrip is built
     * again from its setup with only the crystal swapped (spec 2.2) and under the same id, so it shares
     * the call turn every thread of the cantrip starts from (CALL-4), and that copy forks.
     */
    fork: (turnId, intent, options) =>
      attempt(async () => {
        if (!loom.has(turnId)) throw new CantripError('unknown_turn', `no turn '${turnId}'`);
        const owner = loom.get(turnId).cantrip_id;
        let cantrip = lookup(cantrips, owner, 'cantrip');
        if (options?.crystal !== undefined) {
          const origin = built.get(owner);
          if (!origin) throw new CantripError('unsupported', `turn '${turnId}' belongs to a child cantrip; only a constructed cantrip's turns can be forked onto another crystal`);
          cantrip = buildCantrip({ ...origin.setup, crystal: options.crystal }, origin.host, loom, owner, overlays, log);
        }
        // §6.6: the medium decides how a fork's state comes back (conversation: snapshot, code: replay); a fork asked for the other way is refused, not made the wrong way.
        const made = cantrip.circle.medium.forkStrategy;
        if (options?.strategy !== undefined && options.strategy !== made) {
          throw new CantripError('unsupported', `a fork of this circle's medium is made by ${made}, not ${options.strategy}`);
        }
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
        // Overlays live in memory, so a restart loses them, as it loses invoked entities.
        overlays = new OverlayRegistry((turnId) => ownStretch(loom, turnId), options.fileOverlay);
        for (const [id, { setup, host }] of built) cantrips.set(id, buildCantrip(setup, host, loom, id, overlays, log));
        return {};
      }),

    /**
     * The host's decision on an entity's file overlays (overlay-file-gates): accept merges them into
     * their roots, reject discards them. Any entity the loom knows will do, ended or not.
     */
    overlay: (entityId, decision) =>
      attempt(async () => {
        if (decision !== 'accept' && decision !== 'reject') throw new CantripError('unsupported', `no overlay decision '${String(decision)}'`);
        const own = loom.turns().filter((turn) => turn.entity_id === entityId);
        const running = entities.get(entityId);
        if (!running && own.length === 0) throw new CantripError('unknown_entity', `no entity '${entityId}'`);
        await overlays.decide(entityId, decision, running?.lastTurn ?? own.at(-1)?.id);
        return {};
      }),

    /** PROD-8: the default export, every turn as JSONL; turns are recorded already scrubbed of the setup's secrets. */
    exportLoom: () => attempt(async () => ({ text: loom.exportAll(), format: 'jsonl' })),

    /** PROD-8: what the cantrips logged since the last read, already scrubbed. */
    logs: () => attempt(async () => ({ text: log.read() })),

    async dispose() {
      for (const entity of entities.values()) entity.dispose();
      entities.clear();
      cantrips.clear();
      storage.close();
      removeLoomFile(file);
    },
  };
}

/** What a host of the reference may swap in. */
export interface ReferenceAdapterOptions {
  /** How each file overlay is made (feature overlay-file-gates): the reference's {@link FileOverlay} by default. */
  fileOverlay?: (options: FileOverlayOptions) => FileOverlay;
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

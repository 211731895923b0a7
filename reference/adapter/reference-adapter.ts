import type {
  Adapter,
  CallSetup,
  CantripSetup,
  CastOutcome,
  Description,
  GateSetup,
  Host,
  MutationAttempt,
  Result,
} from '../../schemas/index.ts';
import { ERROR_CODES, PROTOCOL_VERSION, type ErrorCode } from '../../schemas/index.ts';
import { createCall } from '../call/call.ts';
import { createCircle } from '../circle/circle.ts';
import { doneGate } from '../circle/done.ts';
import { listDirGate, readGate } from '../circle/file-gates.ts';
import { defineGate, type Gate } from '../circle/gate.ts';
import type { Wards } from '../circle/wards.ts';
import { CRYSTAL_CONTRACT_VERSION, type Crystal } from '../crystal/contract.ts';
import { CrystalError } from '../crystal/crystal-error.ts';
import { createCantrip, type Cantrip } from '../entity/cantrip.ts';
import type { Entity } from '../entity/entity.ts';
import type { CastResult } from '../entity/loop.ts';
import { CantripError } from '../errors.ts';
import { Loom } from '../loom/loom.ts';
import { codeMedium } from '../circle/medium/code-medium.ts';
import { conversationMedium } from '../circle/medium/conversation.ts';
import { CODE_ARGUMENT, CODE_TOOL } from '../circle/medium/code/presentation.ts';
import { callEntityBatchGate } from '../composition/call-entity-batch.ts';
import { callEntityGate } from '../composition/call-entity.ts';
import { withRetry } from '../production/retry.ts';

/**
 * The reference implementation behind the adapter contract (`schemas/adapter.ts`): the harness
 * reaches the reference only through this, exactly as it reaches any other implementation.
 *
 * Everything here is translation: case setups into cantrips, results into outcomes, and
 * {@link CantripError} codes into `{ ok: false, error }`. All cantrips of one adapter share one loom,
 * so a case sees one tree (LOOM-12).
 */
export function createReferenceAdapter(): Adapter {
  const loom = new Loom();
  const cantrips = new Map<string, Cantrip>();
  const entities = new Map<string, Entity>();

  return {
    async describe(): Promise<Description> {
      return {
        name: 'cantrip-reference',
        version: '0.1.0',
        spec_version: '0.1.0-draft',
        protocol_version: PROTOCOL_VERSION,
        features: ['fork', 'code-fork', 'streaming', 'composition', 'code-medium', 'loom-exposure', 'folding', 'ephemeral-gates', 'file-gates'],
        sandbox: { language: 'javascript', tool: CODE_TOOL, argument: CODE_ARGUMENT },
        fork_strategies: ['snapshot', 'replay'],
      };
    },

    construct: (setup, host) =>
      attempt(async () => {
        const cantrip = buildCantrip(setup, host, loom);
        cantrips.set(cantrip.id, cantrip);
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

    invoke: (handle) =>
      attempt(async () => {
        const entity = lookup(cantrips, handle, 'cantrip').invoke();
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

    async dispose() {
      for (const entity of entities.values()) entity.dispose();
      entities.clear();
      cantrips.clear();
    },
  };
}

function buildCantrip(setup: CantripSetup, host: Host, loom: Loom): Cantrip {
  if (!setup.crystal) throw new CantripError('missing_crystal', 'the setup names no crystal');
  if (!setup.call) throw new CantripError('missing_call', 'the setup has no call');
  if (!setup.circle) throw new CantripError('missing_circle', 'the setup has no circle');
  const wards: Wards = {
    maxTurns: setup.circle.wards.max_turns,
    timeoutMs: setup.circle.wards.timeout_ms,
    maxTokens: setup.circle.wards.max_tokens,
    maxDepth: setup.circle.wards.max_depth,
    maxConcurrency: setup.circle.wards.max_concurrency,
    removeGates: setup.circle.wards.remove_gates,
    evalTimeoutMs: setup.circle.wards.eval_timeout_ms,
    memoryLimitBytes: setup.circle.wards.memory_limit_bytes,
    maxOutputChars: setup.circle.wards.max_output_chars,
  };
  for (const key of Object.keys(wards) as (keyof Wards)[]) if (wards[key] === undefined) delete (wards as Record<string, unknown>)[key];
  return createCantrip({
    crystal: withRetry(hostCrystal(host, setup.crystal.name, setup.crystal.context_window), { sleep: (ms) => host.sleep(ms) }),
    call: toCall(setup.call),
    circle: createCircle({
      gates: setup.circle.gates.map((gate) => buildGate(gate, host, wards)),
      wards,
      medium: setup.circle.medium === 'code' ? codeMedium(wards) : conversationMedium,
    }),
    exposeLoom: setup.expose_loom ?? false,
    ...(setup.folding
      ? {
          folding: {
            ...(setup.folding.threshold === undefined ? {} : { threshold: setup.folding.threshold }),
            ...(setup.folding.keep_recent_turns === undefined ? {} : { keepRecentTurns: setup.folding.keep_recent_turns }),
          },
        }
      : {}),
    requireDone: setup.require_done ?? false,
    loom,
    onEvent: host.event ? (event) => host.event?.(event) : undefined,
  });
}

function buildGate(setup: GateSetup, host: Host, wards: Wards): Gate {
  if ('test' in setup) {
    return defineGate(
      setup.test,
      async (args, context) => {
        const reply = await host.callGate(setup.name, args, { entity_id: context.entityId, tool_call_id: context.toolCallId });
        if (reply.ok) return reply.result;
        throw Object.assign(new Error(reply.error.message), { name: reply.error.name });
      },
      { ephemeral: setup.ephemeral ?? false },
    );
  }
  if (setup.name === 'done') return doneGate();
  if (setup.name === 'read' || setup.name === 'list_dir') {
    const { root } = setup as { root: string };
    return setup.name === 'read' ? readGate({ root }) : listDirGate({ root });
  }
  if (setup.name === 'call_entity' || setup.name === 'call_entity_batch') {
    const composition = setup as { crystal?: string; call?: CallSetup };
    const dependencies = {
      ...(composition.crystal ? { crystal: withRetry(hostCrystal(host, composition.crystal, undefined), { sleep: (ms: number) => host.sleep(ms) }) } : {}),
      ...(composition.call ? { call: toCall(composition.call) } : {}),
    };
    return setup.name === 'call_entity'
      ? callEntityGate(dependencies)
      : callEntityBatchGate(dependencies, wards.maxConcurrency === undefined ? {} : { maxConcurrency: wards.maxConcurrency });
  }
  throw new CantripError('unsupported', `gate '${setup.name}' is not supported by this adapter yet`);
}

function toCall(setup: CallSetup) {
  return createCall({ systemPrompt: setup.system_prompt ?? null, hyperparameters: setup.hyperparameters ?? {} });
}

/** A crystal that forwards each query to the harness's scripted crystal. */
function hostCrystal(host: Host, name: string, contextWindow: number | undefined): Crystal {
  return {
    contractVersion: CRYSTAL_CONTRACT_VERSION,
    name,
    ...(contextWindow === undefined ? {} : { contextWindow }),
    async query(request) {
      const reply = await host.queryCrystal(name, request);
      if (reply.ok) return reply.response;
      const code = isErrorCode(reply.error.code) ? reply.error.code : 'crystal_error';
      throw new CrystalError(code, reply.error.message, reply.error.status === undefined ? {} : { status: reply.error.status });
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

function isErrorCode(code: string | undefined): code is ErrorCode {
  return code !== undefined && (ERROR_CODES as readonly string[]).includes(code);
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

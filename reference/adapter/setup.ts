import type { CallSetup, CantripSetup, GateSetup, Host } from '../../schemas/index.ts';
import { ERROR_CODES, type ErrorCode } from '../../schemas/index.ts';
import { createCall } from '../call/call.ts';
import { createCircle } from '../circle/circle.ts';
import { doneGate } from '../circle/done.ts';
import { listDirGate, readGate } from '../circle/file-gates.ts';
import { defineGate, type Gate } from '../circle/gate.ts';
import { codeMedium } from '../circle/medium/code-medium.ts';
import { conversationMedium } from '../circle/medium/conversation.ts';
import type { Wards } from '../circle/wards.ts';
import { callEntityBatchGate } from '../composition/call-entity-batch.ts';
import { callEntityGate } from '../composition/call-entity.ts';
import { CRYSTAL_CONTRACT_VERSION, type Crystal } from '../crystal/contract.ts';
import { CrystalError } from '../crystal/crystal-error.ts';
import { createCantrip, type Cantrip } from '../entity/cantrip.ts';
import { CantripError } from '../errors.ts';
import type { Loom } from '../loom/loom.ts';
import { withRetry } from '../production/retry.ts';
import { requireToolUse } from '../crystal/providers/tool-choice.ts';
import { createAnthropicCrystal } from '../crystal/providers/anthropic.ts';
import { createOpenAICrystal } from '../crystal/providers/openai.ts';

/**
 * Builds a cantrip from a case's setup (`CantripSetup`, wire names) with the reference's own
 * constructors. Test gates and crystals are bridged to the harness through `host`; everything else is
 * the reference's own (done, composition and file gates, the mediums, the loom, retries).
 */
export function buildCantrip(setup: CantripSetup, host: Host, loom: Loom, id?: string): Cantrip {
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
    ...(id === undefined ? {} : { id }),
    crystal: crystalFor(host, setup.crystal.name, setup, setup.crystal.context_window, setup.crystal.forces_tool_use),
    call: toCall(setup.call),
    circle: createCircle({
      gates: setup.circle.gates.map((gate) => buildGate(gate, host, wards, setup)),
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
    ...(setup.tool_choice === undefined ? {} : { toolChoice: setup.tool_choice }),
    loom,
    onEvent: host.event ? (event) => host.event?.(event) : undefined,
  });
}

function buildGate(setup: GateSetup, host: Host, wards: Wards, cantrip: CantripSetup): Gate {
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
      ...(composition.crystal ? { crystal: crystalFor(host, composition.crystal, cantrip, undefined, undefined) } : {}),
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

/**
 * The crystal named `name`: over a wire transport, the reference's own provider for that format,
 * pointed at the harness's server (its retries wait through `host.sleep`, PROD-2); otherwise a crystal
 * that hands each query to the harness, with the same retry policy.
 */
function crystalFor(host: Host, name: string, setup: CantripSetup, contextWindow: number | undefined, forces: boolean | undefined): Crystal {
  const sleep = (ms: number): Promise<void> => host.sleep(ms);
  const endpoint = setup.crystal_endpoints?.[name];
  if (!endpoint) return simulateForcing(withRetry(hostCrystal(host, name, contextWindow), { sleep }), forces);
  // Providers re-prompt for `tool_choice: required` themselves (CRYSTAL-5), natively forced or not.
  const options = { baseUrl: endpoint.base_url, apiKey: endpoint.api_key, stream: endpoint.stream, retry: { sleep }, ...(contextWindow === undefined ? {} : { contextWindow }) };
  return endpoint.format === 'anthropic' ? createAnthropicCrystal(endpoint.model, options) : createOpenAICrystal(endpoint.model, options);
}

/** CRYSTAL-5: a crystal declared unable to force tool use gets the re-prompting wrapper. */
function simulateForcing(crystal: Crystal, forces: boolean | undefined): Crystal {
  return forces === false ? requireToolUse(crystal) : crystal;
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

function isErrorCode(code: string | undefined): code is ErrorCode {
  return code !== undefined && (ERROR_CODES as readonly string[]).includes(code);
}

import type { CallSetup, CantripSetup, GateSetup, Host } from '../../schemas/index.ts';
import { ERROR_CODES, type ErrorCode } from '../../schemas/index.ts';
import { createCall } from '../call/call.ts';
import { createCircle } from '../circle/circle.ts';
import { doneGate } from '../circle/done.ts';
import { listDirGate, readGate } from '../circle/file-gates.ts';
import { overlayFileGate } from '../circle/overlay-file-gates.ts';
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
import { boundedEvents, DEFAULT_EVENT_BOUND } from '../production/event-stream.ts';
import { OverlayRegistry, ownStretch } from './overlay-registry.ts';
import { requireToolUse } from '../crystal/providers/tool-choice.ts';
import { createAnthropicCrystal } from '../crystal/providers/anthropic.ts';
import { createGeminiCrystal } from '../crystal/providers/gemini.ts';
import { createOpenAICrystal } from '../crystal/providers/openai.ts';
import { toChildLimits, toVerifiers } from './ward-setup.ts';
import { draftOf, type Draft } from '../drafts/draft.ts';
import { secretRedactor, type Redactor } from '../production/redaction.ts';
import type { LogWriter, OperationalLog } from '../production/operational-log.ts';

/**
 * Builds a cantrip from a case's setup (`CantripSetup`, wire names) with the reference's own
 * constructors. Test gates and crystals are bridged to the harness through `host`; everything else is
 * the reference's own (done, composition and file gates, the mediums, the loom, retries).
 *
 * The cantrip is built for the setup's `draft` (default 0.1.0; one the reference lacks is refused,
 * `unsupported`): what differs between drafts is decided in reference/drafts/, which the done gate,
 * the composition gates, the loop and the spawner consult. What goes wrong on the way (failed gates and
 * LLM queries, retries) is written to `log`, scrubbed of the setup's secrets (PROD-8).
 */
export function buildCantrip(setup: CantripSetup, host: Host, loom: Loom, id?: string, overlays = new OverlayRegistry((turnId) => ownStretch(loom, turnId)), log?: OperationalLog): Cantrip {
  const draft = draftOf(setup.draft);
  const secrets = secretsOf(setup);
  const write: LogWriter = log ? log.writer(secrets.redact) : () => {};
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
    maxRejections: setup.circle.wards.max_rejections,
  };
  for (const key of Object.keys(wards) as (keyof Wards)[]) if (wards[key] === undefined) delete (wards as Record<string, unknown>)[key];
  return createCantrip({
    ...(id === undefined ? {} : { id }),
    crystal: crystalFor(host, setup.crystal.name, setup, setup.crystal.context_window, setup.crystal.forces_tool_use, write),
    call: toCall(setup.call),
    circle: createCircle({
      gates: setup.circle.gates.map((gate) => buildGate(gate, host, wards, setup, overlays, draft, write)),
      wards,
      medium: mediumOf(setup.circle.medium, wards),
      verifiers: toVerifiers(setup.circle.verifiers),
      ...(setup.circle.child_limits ? { childLimits: toChildLimits(setup.circle.child_limits)! } : {}),
    }),
    exposeLoom: setup.expose_loom ?? false,
    ...(setup.folding
      ? {
          folding: {
            ...(setup.folding.threshold === undefined ? {} : { threshold: setup.folding.threshold }),
            ...(setup.folding.keep_recent_turns === undefined ? {} : { keepRecentTurns: setup.folding.keep_recent_turns }),
            ...(setup.folding.after_turns === undefined ? {} : { afterTurns: setup.folding.after_turns }),
          },
        }
      : {}),
    requireDone: setup.require_done ?? false,
    draft,
    ...secrets,
    ...(setup.tool_choice === undefined ? {} : { toolChoice: setup.tool_choice }),
    loom,
    onEvent: host.event ? eventSink(host, setup.event_buffer) : undefined,
  });
}

/**
 * MEDIUM-1 (0.3.1): a circle has one medium, and a setup that names none gets conversation. The reference
 * does the same at every draft: 0.1.0 (every circle has exactly one medium) and 0.2.0 (MEDIUM-1: a circle
 * declares exactly one) name no default, and giving one breaks neither, so no draft module decides it.
 * A setup that declares two mediums at once is refused at every draft: keeping one of them would choose
 * for the caller which circle it gets.
 */
function mediumOf(named: NonNullable<CantripSetup['circle']>['medium'], wards: Wards) {
  if (Array.isArray(named)) throw new CantripError('unsupported', `a circle has exactly one medium (MEDIUM-1); this setup declares ${named.length}: ${named.join(', ')}`);
  return named === 'code' ? codeMedium(wards) : conversationMedium;
}

/**
 * Events go to the host through a bounded buffer (feature `bounded-events`): the host's returned
 * promise is its acknowledgement, and the loop waits while `bound` events are unacknowledged.
 */
function eventSink(host: Host, bound: number | undefined) {
  if (bound !== undefined && (!Number.isInteger(bound) || bound < 1)) throw new CantripError('unsupported', `event_buffer must be a positive integer, not ${String(bound)}`);
  return boundedEvents((event) => host.event?.(event), { bound: bound ?? DEFAULT_EVENT_BOUND });
}

/**
 * PROD-8: what the reference treats as a secret in a setup, the API keys of its crystal endpoints and
 * the credentials its gates are built with (feature `gate-credentials`). A key reaches only the
 * provider's request headers, a gate credential only its gate's calls; the redactor keeps either out of
 * observations, recorded turns (and so the loom's exports), streamed events and results, should a gate
 * or an LLM repeat one. Children share it (reference/composition/spawn.ts). At every draft: 0.2.0 and
 * 0.3.1 ask for it (PROD-8), and 0.1.0 has no rule about secrets that it could break.
 */
function secretsOf(setup: CantripSetup): { redact?: Redactor } {
  const keys = Object.values(setup.crystal_endpoints ?? {}).flatMap((endpoint) => (endpoint.api_key ? [endpoint.api_key] : []));
  // A gate bound for children only (a delegation gate's child_gates) is built with its credential here too,
  // though the parent never holds it: its children share this redactor.
  const withChildGates = (gate: GateSetup): GateSetup[] => [gate, ...(('child_gates' in gate ? gate.child_gates : undefined) ?? []).flatMap(withChildGates)];
  const gates = (setup.circle?.gates ?? []).flatMap(withChildGates);
  const credentials = gates.flatMap((gate) => ('test' in gate && gate.credential ? [gate.credential] : []));
  const secrets = [...keys, ...credentials];
  return secrets.length === 0 ? {} : { redact: secretRedactor(secrets) };
}

function buildGate(setup: GateSetup, host: Host, wards: Wards, cantrip: CantripSetup, overlays: OverlayRegistry, draft: Draft, write: LogWriter): Gate {
  if ('test' in setup) {
    // CIRCLE-10, PROD-8: the gate's credential is bound here, once; it goes back with each call and nowhere else.
    const credential = setup.credential;
    return defineGate(
      setup.test,
      async (args, context) => {
        const reply = await host.callGate(setup.name, args, { entity_id: context.entityId, tool_call_id: context.toolCallId, ...(credential === undefined ? {} : { credential }) });
        if (reply.ok) return reply.result;
        write(`gate ${setup.name} failed: ${reply.error.name}: ${reply.error.message}`);
        throw Object.assign(new Error(reply.error.message), { name: reply.error.name });
      },
      { ephemeral: setup.ephemeral ?? false },
    );
  }
  if (setup.name === 'done') return doneGate('parameters' in setup ? setup.parameters : undefined, draft);
  if (setup.name === 'read' || setup.name === 'list_dir' || setup.name === 'write' || setup.name === 'delete') {
    const { root, overlay } = setup as { root: string; overlay?: boolean };
    // CIRCLE-10: the overlay, like the root, is bound here, before any entity exists.
    if (overlay) return overlayFileGate(setup.name, overlays.forRoot(root));
    if (setup.name === 'write' || setup.name === 'delete') throw new CantripError('unsupported', `the ${setup.name} gate works only through an overlay (overlay: true)`);
    return setup.name === 'read' ? readGate({ root }) : listDirGate({ root });
  }
  if (setup.name === 'call_entity' || setup.name === 'call_entity_batch') {
    const composition = setup as { crystal?: string; call?: CallSetup; child_gates?: GateSetup[] };
    const dependencies = {
      ...(composition.crystal ? { crystal: crystalFor(host, composition.crystal, cantrip, undefined, undefined, write) } : {}),
      ...(composition.call ? { call: toCall(composition.call) } : {}),
      // COMP-1, COMP-7 from 0.2.0: gates a child may hold beyond its parent's, bound here (CIRCLE-10); drafts/child-circle.ts ignores them at 0.1.0.
      ...(composition.child_gates ? { childGates: composition.child_gates.map((gate) => buildGate(gate, host, wards, cantrip, overlays, draft, write)) } : {}),
      draft,
      // From 0.2.0 a request may name its child's LLM (COMP-7): any crystal the harness serves, bound here (CIRCLE-10).
      crystalNamed: (name: string) => crystalFor(host, name, cantrip, undefined, undefined, write),
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
 * that hands each query to the harness, with the same retry policy. The setup's `retry` (feature
 * retry-limit, PROD-2 from 0.2.0) sets how many retries one query gets; absent, the default three.
 */
function crystalFor(host: Host, name: string, setup: CantripSetup, contextWindow: number | undefined, forces: boolean | undefined, write: LogWriter): Crystal {
  const sleep = (ms: number): Promise<void> => {
    write(`a query of ${name} failed and is tried again after ${ms} ms`);
    return host.sleep(ms);
  };
  const retry = { sleep, ...maxRetriesOf(setup) };
  const endpoint = setup.crystal_endpoints?.[name];
  if (!endpoint) return simulateForcing(withRetry(hostCrystal(host, name, contextWindow, write), retry), forces);
  // Providers re-prompt for `tool_choice: required` themselves (CRYSTAL-5), natively forced or not.
  const options = { baseUrl: endpoint.base_url, apiKey: endpoint.api_key, stream: endpoint.stream, retry, ...(contextWindow === undefined ? {} : { contextWindow }) };
  if (endpoint.format === 'anthropic') return createAnthropicCrystal(endpoint.model, options);
  if (endpoint.format === 'gemini') return createGeminiCrystal(endpoint.model, options);
  return createOpenAICrystal(endpoint.model, options);
}

/** CRYSTAL-5: a crystal declared unable to force tool use gets the re-prompting wrapper. */
function simulateForcing(crystal: Crystal, forces: boolean | undefined): Crystal {
  return forces === false ? requireToolUse(crystal) : crystal;
}

/** PROD-2: the configured maximum of retries, refused when it is not a whole number of at least 0. */
function maxRetriesOf(setup: CantripSetup): { maxRetries?: number } {
  if (setup.retry === undefined) return {};
  const max = setup.retry.max_retries;
  if (!Number.isInteger(max) || max < 0) throw new CantripError('unsupported', `retry.max_retries must be a whole number of at least 0, not ${String(max)}`);
  return { maxRetries: max };
}

/** A crystal that forwards each query to the harness's scripted crystal; a failure is logged before it is thrown. */
function hostCrystal(host: Host, name: string, contextWindow: number | undefined, write: LogWriter): Crystal {
  return {
    contractVersion: CRYSTAL_CONTRACT_VERSION,
    name,
    ...(contextWindow === undefined ? {} : { contextWindow }),
    async query(request) {
      const reply = await host.queryCrystal(name, request);
      if (reply.ok) return reply.response;
      write(`a query of ${name} failed${reply.error.status === undefined ? '' : ` with status ${reply.error.status}`}: ${reply.error.message}`);
      const code = isErrorCode(reply.error.code) ? reply.error.code : 'crystal_error';
      throw new CrystalError(code, reply.error.message, reply.error.status === undefined ? {} : { status: reply.error.status });
    },
  };
}

function isErrorCode(code: string | undefined): code is ErrorCode {
  return code !== undefined && (ERROR_CODES as readonly string[]).includes(code);
}

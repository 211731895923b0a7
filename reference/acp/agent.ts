import { agent, methods, PROTOCOL_VERSION, RequestError, type AgentApp, type InitializeResponse, type PromptResponse, type SessionUpdate } from '@agentclientprotocol/sdk';
import type { StreamEvent } from '../../schemas/index.ts';
import { DONE } from '../circle/done.ts';
import type { Cantrip } from '../entity/cantrip.ts';
import type { CastResult } from '../entity/cast-result.ts';
import type { EventSink } from '../production/events.ts';
import type { Redactor } from '../production/redaction.ts';
import { parsePromptIntent } from './prompt-intent.ts';
import { AcpSession } from './session.ts';
import { redactDeep, SessionUpdates } from './session-updates.ts';
import { crystalFailed, stopReasonOf } from './stop-reason.ts';
import { readRecords } from '../drafts/gate-call-records.ts';

/** How the agent names itself in `initialize`. */
export const AGENT_INFO = { name: 'cantrip-reference', title: 'Cantrip reference implementation', version: '0.1.0' } as const;

export interface AcpAgentOptions {
  /** Builds the cantrip every session is an entity of, streaming its events into `onEvent`. */
  cantrip: (onEvent: EventSink) => Cantrip;
  /** PROD-8: scrubs credentials from everything sent to the client. */
  redact: Redactor;
}

/**
 * The reference as an ACP agent, built on the protocol's SDK (PROD-6):
 *
 * - `initialize` answers protocol version 1 (the only one the SDK's stable API speaks) with what the
 *   agent can take: text, resource links and embedded resources in prompts; no session loading.
 * - `session/new` summons an entity of the cantrip; the session id is its entity id (PROD-7).
 * - `session/prompt` casts the prompt's text as the entity's next intent, streams the cast's turns as
 *   session updates, and answers with the stop reason its end maps to ({@link stopReasonOf}) and, under
 *   `_meta.cantrip`, how the cast ended in the reference's own terms.
 * - `session/cancel` cancels the running cast; the prompt then answers `cancelled`.
 */
export function createAcpAgent(options: AcpAgentOptions): AgentApp {
  const sessions = new Map<string, AcpSession>();
  const onEvent: EventSink = (event: StreamEvent) => {
    const prompt = sessions.get(event.entity_id)?.prompt;
    const update = prompt?.updates.fromEvent(event);
    return update === undefined ? undefined : prompt!.send(update);
  };
  const cantrip = options.cantrip(onEvent);
  const sessionOf = (sessionId: string): AcpSession => {
    const session = sessions.get(sessionId);
    if (!session) throw RequestError.sessionNotFound(sessionId);
    return session;
  };

  return agent({ name: AGENT_INFO.name })
    .onRequest(methods.agent.initialize, (): InitializeResponse => ({
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: false,
        promptCapabilities: { image: false, audio: false, embeddedContext: true },
      },
      authMethods: [],
      agentInfo: { ...AGENT_INFO },
    }))
    .onRequest(methods.agent.session.new, ({ params }) => {
      const session = new AcpSession(cantrip.invoke(), params.cwd);
      sessions.set(session.id, session);
      return { sessionId: session.id };
    })
    // Our own parser rather than the SDK's schema: PROD-6 asks that common variants of the prompt be accepted.
    .onRequest(methods.agent.session.prompt, parsePromptIntent, async ({ params, client, signal }): Promise<PromptResponse> => {
      const session = sessionOf(params.sessionId);
      if (session.prompt) throw RequestError.invalidRequest({ sessionId: session.id }, 'this session is already running a prompt');
      const cancel = new AbortController();
      const abort = () => cancel.abort();
      signal.addEventListener('abort', abort, { once: true });
      const updates = new SessionUpdates(options.redact);
      const send = (update: SessionUpdate) => client.notify(methods.client.session.update, { sessionId: session.id, update });
      session.prompt = { cancel, updates, send };
      try {
        const result = await session.entity.cast(params.intent, { signal: cancel.signal });
        if (crystalFailed(result)) {
          const message = options.redact(result.error?.message ?? 'the crystal failed');
          throw RequestError.internalError({ cantrip: outcomeOf(result) }, message);
        }
        const answer = endedWithDone(result) ? updates.answer(result.result) : undefined;
        if (answer) await send(answer);
        return { stopReason: stopReasonOf(result), _meta: { cantrip: redactDeep(outcomeOf(result), options.redact) } };
      } finally {
        session.prompt = undefined;
        signal.removeEventListener('abort', abort);
      }
    })
    .onNotification(methods.agent.session.cancel, ({ params }) => {
      // A notification has no answer: a cancel for an unknown or idle session has nothing to stop.
      sessions.get(params.sessionId)?.prompt?.cancel.abort();
    })
    .onConnect((connection) => {
      // The entities end with the connection; their turns stay in the loom (ENTITY-4).
      void connection.closed.finally(() => {
        for (const session of sessions.values()) {
          session.prompt?.cancel.abort();
          session.entity.dispose();
        }
        sessions.clear();
      });
    });
}

/** How a cast ended, in the reference's terms, for the prompt response's `_meta`. */
function outcomeOf(result: CastResult): Record<string, unknown> {
  return {
    entityId: result.entityId,
    status: result.status,
    ...(result.truncationCause === undefined ? {} : { truncationCause: result.truncationCause }),
    ...(result.error === undefined ? {} : { errorCode: result.error.code }),
    usage: result.usage,
  };
}

/** Whether the cast's last turn called `done`: its answer is then sent as the agent's message. */
function endedWithDone(result: CastResult): boolean {
  return result.status === 'terminated' && (readRecords(result.turns.at(-1)?.gate_calls ?? []).some((call) => call.gate === DONE && call.ok) ?? false);
}

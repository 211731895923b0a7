import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { Entity } from '../entity/entity.ts';
import type { SessionUpdates } from './session-updates.ts';

/** The prompt a session is working on: how to cancel it and where its updates go. */
export interface RunningPrompt {
  /** Aborted by `session/cancel` (or the request's own cancellation): the cast ends `cancelled`. */
  readonly cancel: AbortController;
  readonly updates: SessionUpdates;
  /** Sends one update to the client; the loop waits for it, so updates arrive before the response. */
  send(update: SessionUpdate): Promise<void>;
}

/**
 * One ACP session: one entity of the agent's cantrip, summoned by `session/new` and kept for the
 * connection's life (PROD-7). Each prompt is the entity's next intent, so every prompt runs with the
 * session's earlier exchanges in its context; the session id is the entity id.
 */
export class AcpSession {
  /** Set while a prompt runs; one at a time, as an entity runs one cast at a time. */
  prompt: RunningPrompt | undefined;

  constructor(
    readonly entity: Entity,
    /** The client's working directory for the session, as given (the circle's root is the agent's own). */
    readonly cwd: string,
  ) {}

  get id(): string {
    return this.entity.id;
  }
}

/**
 * The kit as an Agent Client Protocol client of an implementation's agent process (feature `acp`,
 * PROD-6, PROD-7). The protocol is spoken by the SDK's own client side (`client()` of
 * `@agentclientprotocol/sdk` 2.4, whose ClientApp/ClientContext replace the ClientSideConnection of
 * earlier SDKs), never by hand; this module adds what a conformance client needs around it:
 *
 * - bounds: the process's start-up (through the answer to `initialize`), every request, and the stop
 *   (stdin closed, then the process group ended, as for any implementation process);
 * - a record: every message the agent writes is read as it arrives, before the SDK parses it, so a
 *   `session/update` of the wrong shape is seen and described instead of silently dropped, and each
 *   update is filed under the prompt that was running in its session;
 * - a plain client: it advertises no file system and no terminal, refuses every permission the agent
 *   asks for, and answers any other request of the agent with "method not found"; each such request
 *   is recorded, since a conformant agent makes none it was not offered.
 */
import { Readable, Writable } from 'node:stream';
import { client, methods, ndJsonStream, PROTOCOL_VERSION, RequestError, type AnyMessage, type ClientConnection, type RequestPermissionResponse } from '@agentclientprotocol/sdk';
import { describeExit, ImplementationProcess } from '../child-process.ts';
import type { FilledLaunch } from './launch.ts';
import { sessionUpdateProblems } from './update-shape.ts';

export interface AcpClientBounds {
  /** From the spawn to the answer to `initialize`: the agent's start-up. */
  startupMs: number;
  /** Each later request, from its sending to its answer (a prompt's whole turn). */
  requestMs: number;
  /** Grace for the process to leave once stdin is closed, before its group is ended. */
  stopMs: number;
}

/** An answer of the agent: its result, or the JSON-RPC error it answered with. */
export type AcpAnswer<T> = { ok: true; value: T } | { ok: false; error: { code: number; message: string; data?: unknown } };

/** One `session/update` as it came, with what is wrong with its shape ([] when nothing). */
export interface ReceivedUpdate {
  params: unknown;
  problems: string[];
}

/** What a prompt brought: the answer, and the updates of its session that arrived while it ran, in order. */
export interface PromptExchange {
  answer: AcpAnswer<{ stopReason: string; _meta?: unknown }>;
  /** At most {@link MAX_UPDATES_KEPT}: the first half and the last half of what came, in order. */
  updates: ReceivedUpdate[];
  /** Updates that came but were not kept (between the kept first and last ones); 0 when none. */
  dropped: number;
}

/**
 * Updates the kit keeps per prompt (and outside prompts): an agent may send any number, and the kit's
 * memory must not follow. Far beyond what a scripted case's prompt streams (a few dozen).
 */
export const MAX_UPDATES_KEPT = 20_000;
/**
 * Requests of the agent the kit keeps per connection (file reads and writes, permissions, terminals: a
 * conformant agent makes none it was not offered); the rest are answered alike and counted.
 */
export const MAX_CLIENT_REQUESTS_KEPT = 1_000;
/**
 * Messages of the agent kept as sent per connection (for the secret search, PROD-8). Beyond them, only a
 * message carrying one of the secrets the client watches for is kept (at most {@link MAX_INBOUND_WITH_SECRET_KEPT}
 * more), so the search still finds a leak however late it comes; the rest are counted.
 */
export const MAX_INBOUND_KEPT = 20_000;
const MAX_INBOUND_WITH_SECRET_KEPT = 100;
/** Characters kept of an unreadable line the agent wrote, for the message. */
const MAX_NOTED_CHARS = 200;
/** Answer ids the client remembers, for the message of a request left unanswered. */
const MAX_NOTED_IDS = 10;

/** A list that keeps its first and last {@link MAX_UPDATES_KEPT}/2 entries and counts the rest. */
export class KeptUpdates {
  readonly head: ReceivedUpdate[] = [];
  private tail: ReceivedUpdate[] = [];
  dropped = 0;
  push(update: ReceivedUpdate): void {
    if (this.head.length < MAX_UPDATES_KEPT / 2) return void this.head.push(update);
    this.tail.push(update);
    if (this.tail.length > MAX_UPDATES_KEPT / 2) {
      // Cut in batches, so a flood costs amortised O(1) per update.
      const over = this.tail.length - MAX_UPDATES_KEPT / 2;
      if (over >= MAX_UPDATES_KEPT / 2) {
        this.tail = this.tail.slice(over);
        this.dropped += over;
      }
    }
  }
  /** The kept updates in order, and how many were dropped; empties the list. */
  take(): { updates: ReceivedUpdate[]; dropped: number } {
    const extra = Math.max(0, this.tail.length - MAX_UPDATES_KEPT / 2);
    const taken = { updates: [...this.head.splice(0), ...this.tail.slice(extra)], dropped: this.dropped + extra };
    this.tail = [];
    this.dropped = 0;
    return taken;
  }
}

/** A request the agent made of the kit, and how the kit answered it. */
export interface ClientRequestSeen {
  method: string;
  params: unknown;
  answered: 'refused-permission' | 'method-not-found';
}

/**
 * A bound was reached, or the agent left, before an answer came: no verdict can be drawn from that
 * (a busy machine can be slow), so the drive lets it propagate and the case is errored, not failed.
 */
export class AcpAgentUnanswered extends Error {
  override readonly name = 'AcpAgentUnanswered';
  constructor(
    message: string,
    /** What the agent wrote instead of the answer while the request waited. */
    readonly instead: { unreadable_lines: number; stray_answer_ids: unknown[] } = { unreadable_lines: 0, stray_answer_ids: [] },
  ) {
    super(message);
  }
}

/**
 * How a prompt's text is written (PROD-6 asks agents to accept the usual client variants): `blocks` is
 * ACP's own, `prompt: [{type: text, text}]`; `content` puts the same blocks under `content`; `string`
 * gives `prompt` the bare text.
 */
export const PROMPT_FORMS = ['blocks', 'content', 'string'] as const;
export type PromptForm = (typeof PROMPT_FORMS)[number];

function promptParams(sessionId: string, text: string, form: PromptForm): Record<string, unknown> {
  if (form === 'content') return { sessionId, content: [{ type: 'text', text }] };
  if (form === 'string') return { sessionId, prompt: text };
  return { sessionId, prompt: [{ type: 'text', text }] };
}

/** The capabilities the kit offers an agent: none of the optional client services. */
export const KIT_CLIENT_CAPABILITIES = { fs: { readTextFile: false, writeTextFile: false }, terminal: false } as const;

export class AcpClient {
  readonly process: ImplementationProcess;
  /** Updates that arrived for a session while none of its prompts ran (after `session/new`, say), bounded. */
  readonly outsidePrompts = new KeptUpdates();
  /** The agent's requests of the kit, the first {@link MAX_CLIENT_REQUESTS_KEPT}. */
  readonly clientRequests: ClientRequestSeen[] = [];
  /** Requests of the agent beyond {@link MAX_CLIENT_REQUESTS_KEPT}: answered, not kept. */
  clientRequestsNotKept = 0;
  /**
   * The messages the agent wrote, as they came, in order: responses, notifications of any method, requests.
   * What a search of everything the agent sent reads (a secret it was handed, PROD-8), whatever the
   * kit makes of each message elsewhere. The first {@link MAX_INBOUND_KEPT}, then only those carrying a watched secret.
   */
  readonly inbound: unknown[] = [];
  /** Messages beyond {@link MAX_INBOUND_KEPT} that carried no watched secret: not kept. */
  inboundNotKept = 0;
  private inboundWithSecretKept = 0;
  private readonly connection: ClientConnection;
  /** Per session id, where its updates go while one of its prompts runs. */
  private readonly running = new Map<string, KeptUpdates>();
  private initialized = false;
  /** Lines of the agent's stdout that were not a JSON object, and the last of them (cut). */
  private unreadableLines = 0;
  private lastUnreadable = '';
  /** Ids of the answers (responses) the agent sent, the last {@link MAX_NOTED_IDS}. */
  private answerIds: unknown[] = [];

  constructor(
    launch: FilledLaunch,
    private readonly bounds: AcpClientBounds,
    /** Secrets handed to the agent (its crystal's key): a message carrying one is kept beyond {@link MAX_INBOUND_KEPT}. */
    private readonly watchedSecrets: readonly string[] = [],
    /** What is kept of the agent's requests and messages; the defaults outside the kit's own tests. */
    private readonly keep: { clientRequests: number; inbound: number } = { clientRequests: MAX_CLIENT_REQUESTS_KEPT, inbound: MAX_INBOUND_KEPT },
  ) {
    this.process = new ImplementationProcess(launch.commandLine, { ...(launch.cwd !== undefined && { cwd: launch.cwd }), env: launch.env });
    const { child } = this.process;
    // Lines that are not a JSON object never reach the SDK's handlers: noted here, so a wait that ends
    // without an answer can say the agent wrote something unreadable rather than nothing.
    let partial = '';
    child.stdout.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = (lines.pop() ?? '').slice(-MAX_NOTED_CHARS);
      for (const line of lines) {
        const text = line.trim();
        if (text !== '' && !(text.startsWith('{') && text.endsWith('}'))) {
          this.unreadableLines++;
          this.lastUnreadable = text.slice(0, MAX_NOTED_CHARS);
        }
      }
    });
    const wire = ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>);
    // Every message the agent writes passes here first, as it came.
    const tapped = wire.readable.pipeThrough(
      new TransformStream<AnyMessage, AnyMessage>({
        transform: (message, controller) => {
          this.noteInbound(message);
          controller.enqueue(message);
        },
      }),
    );
    const app = client({ name: 'cantrip-conformance' })
      .onRequest(methods.client.session.requestPermission, ({ params }) => this.refusePermission(params))
      // Updates are collected from the tap above, shape problems included; the SDK's parsed copy is not needed.
      .onNotification(methods.client.session.update, () => undefined)
      .onRequest('*', ({ method, params }) => {
        this.noteClientRequest({ method, params, answered: 'method-not-found' });
        throw RequestError.methodNotFound(method);
      });
    this.connection = app.connect({ readable: tapped, writable: wire.writable });
  }

  /** `initialize`, bounded by the start-up bound: the protocol version the kit speaks and no client services. */
  initialize(): Promise<AcpAnswer<Record<string, unknown>>> {
    this.initialized = true;
    const request = this.connection.agent.request(methods.agent.initialize, {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: { ...KIT_CLIENT_CAPABILITIES, fs: { ...KIT_CLIENT_CAPABILITIES.fs } },
      clientInfo: { name: 'cantrip-conformance', version: '1' },
    });
    return this.answerOf('initialize', request as Promise<unknown> as Promise<Record<string, unknown>>, this.bounds.startupMs);
  }

  /** `session/new` in `cwd` (absolute), with no MCP servers. */
  newSession(cwd: string): Promise<AcpAnswer<{ sessionId: string } & Record<string, unknown>>> {
    const request = this.connection.agent.request(methods.agent.session.new, { cwd, mcpServers: [] });
    return this.answerOf('session/new', request as Promise<unknown> as Promise<{ sessionId: string }>, this.bounds.requestMs);
  }

  /**
   * `session/prompt` with the text in `form` ({@link PROMPT_FORMS}; default the protocol's own, one text
   * block under `prompt`); the updates of the session that arrive before the answer belong to it.
   */
  async prompt(sessionId: string, text: string, form: PromptForm = 'blocks'): Promise<PromptExchange> {
    const kept = new KeptUpdates();
    this.running.set(sessionId, kept);
    try {
      // The SDK sends params as given: the other forms reach the agent as a lenient client would write them.
      const request = this.connection.agent.request<unknown, Record<string, unknown>>(methods.agent.session.prompt, promptParams(sessionId, text, form));
      const answer = await this.answerOf('session/prompt', request as Promise<unknown> as Promise<{ stopReason: string }>, this.bounds.requestMs);
      return { answer, ...kept.take() };
    } finally {
      this.running.delete(sessionId);
    }
  }

  /** The last lines the agent wrote on stderr. */
  stderr(): string {
    return this.process.stderrTail();
  }

  /** Closes the connection and stops the process and its group; bounded, never throws. */
  async close(): Promise<void> {
    this.connection.close();
    await this.process.stop(this.bounds.stopMs);
  }

  /** Keeps a request of the agent, or counts it once {@link MAX_CLIENT_REQUESTS_KEPT} are kept. */
  private noteClientRequest(seen: ClientRequestSeen): void {
    if (this.clientRequests.length < this.keep.clientRequests) this.clientRequests.push(seen);
    else this.clientRequestsNotKept++;
  }

  /** Keeps a message as sent while under the bound, and past it only one that carries a watched secret. */
  private keepInbound(message: AnyMessage): void {
    if (this.inbound.length < this.keep.inbound) return void this.inbound.push(message);
    if (this.inboundWithSecretKept < MAX_INBOUND_WITH_SECRET_KEPT && this.watchedSecrets.length > 0) {
      const text = JSON.stringify(message);
      if (this.watchedSecrets.some((secret) => text.includes(secret))) {
        this.inboundWithSecretKept++;
        return void this.inbound.push(message);
      }
    }
    this.inboundNotKept++;
  }

  private noteInbound(message: AnyMessage): void {
    this.keepInbound(message);
    const m = message as { method?: unknown; params?: unknown; id?: unknown };
    if (m.method === undefined && m.id !== undefined) this.answerIds = [...this.answerIds.slice(-(MAX_NOTED_IDS - 1)), m.id];
    if (m.method !== methods.client.session.update || m.id !== undefined) return;
    const received: ReceivedUpdate = { params: m.params, problems: sessionUpdateProblems(m.params) };
    const sessionId = (m.params as { sessionId?: unknown } | undefined)?.sessionId;
    const prompt = typeof sessionId === 'string' ? this.running.get(sessionId) : undefined;
    (prompt ?? this.outsidePrompts).push(received);
  }

  /**
   * A conformance client grants nothing: it picks a rejecting option when the agent offers one, and
   * otherwise answers that the request was cancelled (the only outcome ACP gives without an option).
   */
  private refusePermission(params: { options: { optionId: string; kind: string }[] }): RequestPermissionResponse {
    this.noteClientRequest({ method: methods.client.session.requestPermission, params, answered: 'refused-permission' });
    const reject = params.options.find((o) => o.kind === 'reject_once') ?? params.options.find((o) => o.kind === 'reject_always');
    return { outcome: reject ? { outcome: 'selected', optionId: reject.optionId } : { outcome: 'cancelled' } };
  }

  /** The agent's answer to `request`, or {@link AcpAgentUnanswered} when the bound passes or the agent leaves first. */
  private async answerOf<T>(method: string, request: Promise<T>, boundMs: number): Promise<AcpAnswer<T>> {
    if (!this.initialized) throw new Error(`${method} before initialize`);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), boundMs)));
    const gone = this.process.exited.then((info) => ({ gone: info }));
    const before = { unreadable: this.unreadableLines, answers: this.answerIds.length };
    try {
      const settled = await Promise.race([request.then((value) => ({ value }), (error: unknown) => ({ error })), late, gone]);
      if (settled === 'late') throw new AcpAgentUnanswered(`the ACP agent (${this.process.label}) gave no answer to ${method} within ${boundMs} ms${this.wrongAnswersNote(before)}${this.stderrNote()}`, this.instead(before));
      if ('gone' in settled) throw new AcpAgentUnanswered(`the ACP agent (${this.process.label}) ${describeExit(settled.gone)} before answering ${method}${this.stderrNote()}`);
      if ('value' in settled) return { ok: true, value: settled.value };
      const error = settled.error;
      if (error instanceof RequestError) return { ok: false, error: { code: error.code, message: error.message, ...(error.data !== undefined && { data: error.data }) } };
      // Not an answer of the agent: the connection itself failed (closed, unreadable output). An agent that
      // exits closes its stdout before its stderr is read to the end: wait (bounded) for the exit, so the
      // message and stderr() keep what it wrote last.
      await this.exitOrBound();
      throw new AcpAgentUnanswered(`no answer to ${method} from the ACP agent (${this.process.label}): ${error instanceof Error ? error.message : String(error)}${this.wrongAnswersNote(before)}${this.stderrNote()}`, this.instead(before));
    } finally {
      clearTimeout(timer);
      request.catch(() => undefined);
    }
  }

  /** Waits until the agent's process has exited and its output is read, or the stop bound passes. */
  private async exitOrBound(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.process.exited, new Promise((resolve) => (timer = setTimeout(resolve, this.bounds.stopMs)))]);
    clearTimeout(timer);
  }

  private instead(before: { unreadable: number; answers: number }): AcpAgentUnanswered['instead'] {
    return { unreadable_lines: this.unreadableLines - before.unreadable, stray_answer_ids: this.answerIds.slice(Math.min(before.answers, this.answerIds.length)) };
  }

  /** What the agent wrote instead of an answer while a request waited: unreadable lines, answers to no request. */
  private wrongAnswersNote(before: { unreadable: number; answers: number }): string {
    const unreadable = this.unreadableLines - before.unreadable;
    const answers = this.answerIds.slice(Math.min(before.answers, this.answerIds.length));
    const parts = [
      unreadable > 0 ? `it wrote ${unreadable} line${unreadable === 1 ? '' : 's'} that ${unreadable === 1 ? 'is' : 'are'} not JSON-RPC (the last: ${JSON.stringify(this.lastUnreadable)})` : '',
      answers.length > 0 ? `it sent answer${answers.length === 1 ? '' : 's'} with id ${answers.map((id) => JSON.stringify(id)).join(', ')}, which matched no request waiting` : '',
    ].filter(Boolean);
    return parts.length > 0 ? `; ${parts.join('; ')}` : '';
  }

  private stderrNote(): string {
    const tail = this.stderr();
    return tail ? `; its stderr ends with:\n${tail}` : '';
  }
}

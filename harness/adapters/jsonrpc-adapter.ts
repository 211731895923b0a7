/**
 * The adapter for implementations in any language: each instance spawns the implementation's command and
 * speaks the adapter protocol with it (JSON-RPC 2.0, one JSON object per line over stdio; see
 * docs/adapter-protocol.md and schemas/protocol/). The harness calls the implementation; the
 * implementation calls back for crystal queries, test gates and sleeps, answered by the {@link Host} given
 * to construct, and streams events as notifications.
 *
 * One adapter instance is one session (`describe` ... `dispose`). Sessions reuse a process when the previous
 * one ended cleanly and the process stayed up; otherwise a new process is started. Every wait is bounded:
 * the handshake, each request (by the peer's silence), and dispose. Anything the peer does wrong (a bad
 * line, an unknown id, a result off its schema, silence, an exit) rejects the operation in progress with a
 * {@link ProtocolError} naming the method and the field; that process is never reused, so the harness
 * marks the case errored and the next case starts clean.
 */
import type {
  Adapter,
  CantripSetup,
  ForkOptions,
  CastOutcome,
  Description,
  Host,
  MutationAttempt,
  OverlayDecision,
  LoomExport,
  LogOutput,
  Result,
} from '../../schemas/adapter.ts';
import { PROTOCOL_VERSION } from '../../schemas/adapter.ts';
import type { Turn } from '../../schemas/records.ts';
import { ProtocolError, RemoteError } from '../../schemas/protocol/connection.ts';
import type { AdapterMethod } from '../../schemas/protocol/methods.ts';
import { Channel } from './channel.ts';
import { parseCommandSpec, type CommandLine } from './command-line.ts';
import { stretchedForLoad } from '../values/index.ts';

export interface JsonRpcAdapterOptions {
  /** Working directory of the implementation's process. */
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Bound on the implementation's silence while a request waits for its answer. */
  silenceMs?: number;
  /** Bound on the handshake (process start included). */
  handshakeMs?: number;
  /** Bound on the dispose request, and again on the process's exit. */
  disposeMs?: number;
  /** Reuse a process across sessions when it stays up after dispose. Default true. */
  reuse?: boolean;
}

export const DEFAULT_SILENCE_MS = 8_000;
export const DEFAULT_HANDSHAKE_MS = 20_000;
/** Two of these fit inside the harness's 2 s bound on dispose(). */
const DEFAULT_DISPOSE_MS = 600;
/** A parked process not claimed within this time is stopped. */
const PARK_MS = 3_000;

type Params = Record<string, unknown>;

/** One session with an implementation, over a {@link Channel}. Built by {@link openSession}. */
export class JsonRpcAdapter implements Adapter {
  private disposing = false;
  /** The request this session waits on, and since when (for a timeout's reason). */
  private inFlight: { method: string; since: number } | undefined;

  constructor(
    private readonly channel: Channel,
    private readonly description: Description,
    private readonly options: { disposeMs: number; release: (channel: Channel) => void },
  ) {}

  /** The implementation's description, as it answered the handshake (its protocol version may differ). */
  async describe(): Promise<Description> {
    return structuredClone(this.description);
  }

  construct(setup: CantripSetup, host: Host): Promise<Result<{ cantrip: string }>> {
    // Callbacks carry no cantrip handle, so they go to the latest host; the harness gives one host per case.
    this.channel.host = host;
    return this.call('construct', { setup: setup as unknown as Params });
  }

  cast(cantrip: string, intent?: string): Promise<Result<CastOutcome>> {
    return this.call('cast', { cantrip, ...withIntent(arguments.length > 1, intent) });
  }

  invoke(cantrip: string, options?: { entity_id?: string }): Promise<Result<{ entity: string }>> {
    return this.call('invoke', { cantrip, ...(options?.entity_id === undefined ? {} : { entity_id: options.entity_id }) });
  }

  send(entity: string, intent?: string): Promise<Result<CastOutcome>> {
    return this.call('send', { entity, ...withIntent(arguments.length > 1, intent) });
  }

  fork(turn_id: string, intent?: string, options?: ForkOptions): Promise<Result<{ entity: string; strategy: 'snapshot' | 'replay'; outcome: CastOutcome }>> {
    return this.call('fork', { turn_id, ...(intent !== undefined && { intent }), ...(options?.crystal !== undefined && { crystal: options.crystal }), ...(options?.strategy !== undefined && { strategy: options.strategy }) });
  }

  loom(): Promise<Result<{ turns: Turn[] }>> {
    return this.call('loom', {});
  }

  thread(leaf_turn_id: string): Promise<Result<{ turns: Turn[] }>> {
    return this.call('thread', { leaf_turn_id });
  }

  mutate(attempt: MutationAttempt): Promise<Result<Record<string, never>>> {
    return this.call('mutate', attempt as unknown as Params);
  }

  reopen(): Promise<Result<Record<string, never>>> {
    return this.call('reopen', {});
  }

  overlay(entity: string, decision: OverlayDecision): Promise<Result<Record<string, never>>> {
    return this.call('overlay', { entity, decision });
  }

  exportLoom(): Promise<Result<LoomExport>> {
    return this.call('export_loom', {});
  }

  logs(): Promise<Result<LogOutput>> {
    return this.call('logs', {});
  }

  /** Ends the session: a clean end parks the process for the next session, anything else stops it. Bounded; never throws. */
  async dispose(): Promise<void> {
    if (this.disposing) return;
    this.disposing = true;
    const { connection } = this.channel;
    if (connection.broken === undefined && !connection.idle) await this.channel.endCallbacks();
    const clean = connection.broken === undefined && connection.idle && (await answeredWithin(connection.request('dispose', {}), stretchedForLoad(this.options.disposeMs)));
    this.channel.host = undefined;
    if (clean && this.channel.reusable) this.options.release(this.channel);
    else await this.channel.stop();
  }

  /** What this session is waiting for, if anything: `the implementation's answer to 'cast' (sent 2000 ms earlier)`. */
  waitingFor(): string | undefined {
    if (!this.inFlight) return undefined;
    return `the implementation's answer to '${this.inFlight.method}' (sent ${Math.round(performance.now() - this.inFlight.since)} ms earlier)`;
  }

  private async call<T>(method: Exclude<AdapterMethod, 'describe' | 'dispose'>, params: Params): Promise<T> {
    if (this.disposing) throw new ProtocolError(`'${method}' was called after dispose()`);
    if (this.description.protocol_version !== PROTOCOL_VERSION) {
      throw new ProtocolError(`the implementation speaks adapter protocol version ${this.description.protocol_version}; this harness speaks ${PROTOCOL_VERSION}`);
    }
    const inFlight = { method, since: performance.now() };
    this.inFlight = inFlight;
    try {
      return (await this.channel.connection.request(method, params)) as T;
    } catch (error) {
      throw withStderr(error, this.channel);
    } finally {
      if (this.inFlight === inFlight) this.inFlight = undefined;
    }
  }
}

/** Starts a session on `channel`: the handshake, bounded by `ms`. Stops the channel if it fails. */
export async function openSession(channel: Channel, idleMs: number): Promise<Description> {
  // The bound holds on an idle machine; a loaded one stretches it, like the case limits.
  const ms = stretchedForLoad(idleMs);
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProtocolError(`the implementation (${channel.process.label}) did not answer the handshake (describe) within ${ms} ms`)), ms);
  });
  channel.process.clearStderrTail();
  channel.handshaking = true;
  try {
    const description = (await Promise.race([channel.connection.request('describe', { protocol_version: PROTOCOL_VERSION }), limit])) as Description;
    // A version the kit does not speak makes every request after this one meaningless: stop here, once,
    // rather than let each case error on it.
    if (description.protocol_version !== PROTOCOL_VERSION) throw new ProtocolError(versionMismatch(channel, `speaks adapter protocol version ${description.protocol_version}`));
    return description;
  } catch (error) {
    await channel.stop();
    if (error instanceof RemoteError && error.code === PROTOCOL_VERSION_NOT_SPOKEN) throw withStderr(new ProtocolError(versionMismatch(channel, `does not speak adapter protocol version ${PROTOCOL_VERSION} (it answered describe with error ${error.code}: ${error.message})`)), channel);
    throw withStderr(error, channel);
  } finally {
    channel.handshaking = false;
    clearTimeout(timer);
  }
}

/** The JSON-RPC error an implementation answers `describe` with when it does not speak the harness's protocol version. */
const PROTOCOL_VERSION_NOT_SPOKEN = -32001;

/** The handshake's verdict on a version mismatch: both versions, and where the protocol is described. */
function versionMismatch(channel: Channel, what: string): string {
  return `the implementation (${channel.process.label}) ${what}; this kit speaks adapter protocol version ${PROTOCOL_VERSION} only (docs/adapter-protocol.md), so no case can run`;
}

/**
 * Factory for `--adapter cmd:<command line>`: each adapter is a fresh session; a process that ended its
 * last session cleanly is reused (at most one waits, parked), otherwise a new one is started.
 */
export function commandAdapterFactory(spec: string | CommandLine, options: JsonRpcAdapterOptions = {}): () => Promise<Adapter> {
  const commandLine = typeof spec === 'string' ? parseCommandSpec(spec) : spec;
  // Held on an idle machine; the channel and the handshake stretch them with the load where they wait (channel.ts, openSession).
  const handshakeMs = options.handshakeMs ?? DEFAULT_HANDSHAKE_MS;
  const silenceMs = options.silenceMs ?? DEFAULT_SILENCE_MS;
  const channelOptions = {
    ...(options.cwd && { cwd: options.cwd }),
    ...(options.env && { env: options.env }),
    silenceMs,
    handshakeMs,
    stopMs: options.disposeMs ?? DEFAULT_DISPOSE_MS,
  };
  let parked: { channel: Channel; timer: NodeJS.Timeout } | undefined;
  const release = (channel: Channel): void => {
    if (options.reuse === false || parked) return void channel.stop();
    channel.park();
    const timer = setTimeout(() => {
      if (parked?.channel === channel) parked = undefined;
      void channel.stop();
    }, PARK_MS);
    timer.unref();
    parked = { channel, timer };
  };
  return async () => {
    const waiting = parked;
    parked = undefined;
    if (waiting) {
      clearTimeout(waiting.timer);
      waiting.channel.unpark();
      // The parked process may have died or misbehaved meanwhile: then start a new one, once.
      if (waiting.channel.reusable) {
        try {
          const description = await openSession(waiting.channel, handshakeMs);
          return new JsonRpcAdapter(waiting.channel, description, { disposeMs: channelOptions.stopMs, release });
        } catch {
          // fall through to a fresh process
        }
      } else {
        await waiting.channel.stop();
      }
    }
    const channel = new Channel(commandLine, channelOptions);
    const description = await openSession(channel, handshakeMs);
    return new JsonRpcAdapter(channel, description, { disposeMs: channelOptions.stopMs, release });
  };
}

/** An absent intent stays absent and a null one stays null, as an in-process caller passes them. */
function withIntent(given: boolean, intent: string | undefined): Params {
  return given && intent !== undefined ? { intent } : {};
}

/** Adds the implementation's stderr tail to a protocol or remote error, where the cause often is. */
function withStderr(error: unknown, channel: Channel): Error {
  if (!(error instanceof ProtocolError) && !(error instanceof RemoteError)) return error as Error;
  const tail = channel.process.stderrTail();
  if (!tail) return error;
  const text = `${error.message}\n--- last lines of the implementation's stderr ---\n${tail}`;
  if (error instanceof ProtocolError) return new ProtocolError(text);
  // A remote error belongs to this one request, so it can carry the tail itself.
  error.message = text;
  return error;
}

/** Whether `promise` resolved within `ms`. */
async function answeredWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true, () => false), limit]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The factory for `--adapter cmd:...`, after one handshake to prove the command starts and speaks the
 * protocol (else this throws, with the reason and the command's stderr). The probe's process is parked
 * and serves the first session, so the check costs no extra start.
 */
export async function startCommandAdapter(spec: string, options: JsonRpcAdapterOptions = {}): Promise<() => Promise<Adapter>> {
  const factory = commandAdapterFactory(spec, options);
  const probe = await factory();
  await probe.dispose();
  return factory;
}

/**
 * One implementation process and the JSON-RPC connection over its stdio. A channel outlives a session:
 * after a clean dispose it can be parked and reused by the next session (the implementation then starts
 * afresh on the next `describe`), which saves a process start per case. Host callbacks go to the host of
 * the session in progress; between sessions there is none, and a callback then breaks the channel.
 */
import type { Host, StreamEvent } from '../../schemas/adapter.ts';
import type { CrystalRequest } from '../../schemas/records.ts';
import { Connection, ProtocolError } from '../../schemas/protocol/connection.ts';
import { frame, MAX_LINE_CHARS, readLines } from '../../schemas/protocol/lines.ts';
import { describeExit, ImplementationProcess } from './child-process.ts';
import type { CommandLine } from './command-line.ts';
import { stretchedForLoad } from '../values/index.ts';

export interface ChannelOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Bound on the implementation's silence while a request waits for its answer. */
  silenceMs: number;
  /** Bound on the implementation's silence during the handshake, which includes the process's start-up. */
  handshakeMs: number;
  /** Grace given to the process to exit once stdin is closed, before it is killed. */
  stopMs: number;
}

export class Channel {
  readonly process: ImplementationProcess;
  readonly connection: Connection;
  /** The host of the session in progress (set by construct, cleared at dispose). */
  host: Host | undefined;
  /** True while the handshake (`describe`) is waiting: the silence bound is then the handshake's. */
  handshaking = false;
  private exitedCleanly = false;
  /** Rejects when the session ends, to end the answers to callbacks still in progress (see endCallbacks). */
  private sessionEnd = rejectLater();

  constructor(commandLine: CommandLine, private readonly options: ChannelOptions) {
    this.process = new ImplementationProcess(commandLine, { ...(options.cwd && { cwd: options.cwd }), ...(options.env && { env: options.env }) });
    const channel = this;
    this.connection = new Connection({
      peer: 'the implementation',
      // Read each time the connection starts its silence clock, so the handshake gets the start-up bound.
      // Stretched with the machine's load like the case limits (harness/values/machine-load.ts): a slow
      // machine makes a large answer slow, never silent.
      get silenceMs() {
        return stretchedForLoad(channel.handshaking ? options.handshakeMs : options.silenceMs);
      },
      write: (line) => this.process.write(frame(line)),
      onBroken: () => void this.stop(),
      handlers: {
        'host.queryCrystal': async (p) => this.inSession(this.hostFor('host.queryCrystal').queryCrystal(p.crystal as string, p.request as unknown as CrystalRequest)),
        'host.callGate': async (p) =>
          this.inSession(
            this.hostFor('host.callGate').callGate(p.gate as string, p.args, {
              entity_id: p.entity_id as string,
              tool_call_id: p.tool_call_id as string,
              // Feature gate-credentials: the gate's credential, passed back as the implementation got it.
              ...(typeof p.credential === 'string' && { credential: p.credential }),
            }),
          ),
        'host.sleep': async (p) => {
          await this.inSession(this.hostFor('host.sleep').sleep(p.ms as number));
          return {};
        },
        // bounded-events: an event sent as a request is answered once the host's consumer acknowledges it.
        'host.event': async (p) => {
          await this.inSession(Promise.resolve(this.hostFor('host.event').event?.(p as unknown as StreamEvent)));
          return {};
        },
      },
      notifications: {
        'host.event': (p) => this.hostFor('host.event').event?.(p as unknown as StreamEvent),
      },
    });
    readLines(
      this.process.child.stdout,
      (line) => this.connection.receive(line),
      (chars) =>
        this.connection.break(
          new ProtocolError(`the implementation wrote a line longer than the protocol allows (${chars} characters without a newline; the limit is ${MAX_LINE_CHARS})`),
        ),
    );
    void this.process.exited.then((info) => {
      this.connection.break(new ProtocolError(this.exitedCleanly ? 'the implementation was stopped' : `the implementation (${this.process.label}) ${describeExit(info)} before answering`));
    });
  }

  /** True when the channel can carry another session: alive, unbroken, nothing in flight. */
  get reusable(): boolean {
    return this.process.running && this.connection.broken === undefined && this.connection.idle;
  }

  /** Closes stdin, waits, kills if needed. Never throws; bounded by about twice the stop grace. */
  async stop(): Promise<void> {
    this.exitedCleanly = true;
    await this.process.stop(stretchedForLoad(this.options.stopMs));
  }

  /**
   * Gives an error answer at once to every callback the harness is still answering. For the end of a
   * session, when its last step is over: a cast cut off by a ward can leave its crystal query or gate call
   * running here, though the implementation has stopped waiting for it. The connection is then idle, so
   * the process can serve the next session instead of being replaced.
   */
  async endCallbacks(): Promise<void> {
    this.sessionEnd.reject(new Error('the session ended before the harness finished answering this callback'));
    this.sessionEnd = rejectLater();
    // The connection sends those answers a few promise jobs later; a macrotask is after all of them.
    await new Promise((resolve) => setImmediate(resolve));
  }

  /** `work`, or a rejection once the session it belongs to ends. */
  private inSession<T>(work: Promise<T>): Promise<T> {
    return Promise.race([work, this.sessionEnd.promise]);
  }

  /** A parked channel must not keep the harness alive: unref it (its process exits when our end of stdin closes). */
  park(): void {
    this.host = undefined;
    this.process.setReferenced(false);
  }

  unpark(): void {
    this.process.setReferenced(true);
  }

  private hostFor(method: string): Host {
    if (this.host) return this.host;
    const error = new ProtocolError(`the implementation called '${method}' outside a session (before construct or after dispose), so no host can answer it`);
    this.connection.break(error);
    throw error;
  }
}

/** A promise that rejects when told to; never an unhandled rejection when nobody waits on it. */
function rejectLater(): { promise: Promise<never>; reject: (error: Error) => void } {
  let reject: (error: Error) => void = () => undefined;
  const promise = new Promise<never>((_, r) => (reject = r));
  promise.catch(() => undefined);
  return { promise, reject };
}

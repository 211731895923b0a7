/**
 * One implementation process and the JSON-RPC connection over its stdio. A channel outlives a session:
 * after a clean dispose it can be parked and reused by the next session (the implementation then starts
 * afresh on the next `describe`), which saves a process start per case. Host callbacks go to the host of
 * the session in progress; between sessions there is none, and a callback then breaks the channel.
 */
import type { Host, StreamEvent } from '../../schemas/adapter.ts';
import type { CrystalRequest } from '../../schemas/records.ts';
import { Connection, ProtocolError } from '../../schemas/protocol/connection.ts';
import { frame, readLines } from '../../schemas/protocol/lines.ts';
import { describeExit, ImplementationProcess } from './child-process.ts';
import type { CommandLine } from './command-line.ts';

export interface ChannelOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Bound on the implementation's silence while a request waits for its answer. */
  silenceMs: number;
  /** Grace given to the process to exit once stdin is closed, before it is killed. */
  stopMs: number;
}

export class Channel {
  readonly process: ImplementationProcess;
  readonly connection: Connection;
  /** The host of the session in progress (set by construct, cleared at dispose). */
  host: Host | undefined;
  private exitedCleanly = false;

  constructor(commandLine: CommandLine, private readonly options: ChannelOptions) {
    this.process = new ImplementationProcess(commandLine, { ...(options.cwd && { cwd: options.cwd }), ...(options.env && { env: options.env }) });
    this.connection = new Connection({
      peer: 'the implementation',
      silenceMs: options.silenceMs,
      write: (line) => this.process.write(frame(line)),
      onBroken: () => void this.stop(),
      handlers: {
        'host.queryCrystal': async (p) => this.hostFor('host.queryCrystal').queryCrystal(p.crystal as string, p.request as unknown as CrystalRequest),
        'host.callGate': async (p) =>
          this.hostFor('host.callGate').callGate(p.gate as string, p.args, { entity_id: p.entity_id as string, tool_call_id: p.tool_call_id as string }),
        'host.sleep': async (p) => {
          await this.hostFor('host.sleep').sleep(p.ms as number);
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
      (chars) => this.connection.break(new ProtocolError(`the implementation wrote ${chars} characters without a newline`)),
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
    await this.process.stop(this.options.stopMs);
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

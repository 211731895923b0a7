/**
 * One end of the adapter protocol: JSON-RPC 2.0, one JSON object per line, requests in both directions.
 * Transport-free (lines in through {@link Connection.receive}, lines out through `write`), so the harness
 * (over a child's stdio) and a TypeScript implementation (over its own stdio) share it.
 *
 * Every incoming line is checked against the envelope and its method's schema. A line that breaks the
 * protocol breaks the connection: every pending request is rejected with a {@link ProtocolError} that
 * says which method and which field, so a caller never waits on a peer that has stopped making sense.
 */
import { formatProblems, type SchemaProblem } from '../loader.ts';
import { checkEnvelope, checkPart, isProtocolMethod, type ProtocolMethod } from './methods.ts';

/** JSON-RPC error codes used by this protocol. */
export const RPC_ERRORS = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** The implementation does not speak the harness's protocol version. */
  unsupportedVersion: -32001,
} as const;

/** The peer broke the protocol (bad line, unknown id, schema failure, silence, exit). The connection is unusable. */
export class ProtocolError extends Error {
  override name = 'ProtocolError';
}

/** The peer answered a request with a JSON-RPC error object. The connection stays usable. */
export class RemoteError extends Error {
  override name = 'RemoteError';
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
    readonly data?: unknown,
    peer = 'the peer',
  ) {
    super(`${peer} answered '${method}' with JSON-RPC error ${code}: ${message}`);
  }
}

/** Raised by a handler to answer with a specific JSON-RPC error instead of -32603. */
export class HandlerError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export interface ConnectionOptions {
  /** Sends one line (without its newline). */
  write: (line: string) => void;
  /** Who is on the other side, for messages: `the implementation`, `the harness`. */
  peer: string;
  /** Requests this side answers, by method. */
  handlers: Partial<Record<ProtocolMethod, (params: Record<string, unknown>) => Promise<unknown>>>;
  /** Notifications this side accepts, by method. */
  notifications?: Partial<Record<ProtocolMethod, (params: Record<string, unknown>) => void>>;
  /**
   * Bound on the peer's silence while this side waits for an answer, in ms. The clock stops while this
   * side is itself answering one of the peer's requests (the peer is then waiting on us, not silent).
   */
  silenceMs: number;
  /** Called once, when the connection breaks. */
  onBroken?: (error: ProtocolError) => void;
}

interface Pending {
  method: ProtocolMethod;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

const MAX_SHOWN = 200;

export class Connection {
  private nextId = 1;
  private readonly pending = new Map<number | string, Pending>();
  /** Requests from the peer this side is still answering. */
  private answering = 0;
  private watchdog: NodeJS.Timeout | undefined;
  private brokenBy: ProtocolError | undefined;
  private lineNumber = 0;

  constructor(private readonly options: ConnectionOptions) {}

  /** Why the connection broke, if it did. */
  get broken(): ProtocolError | undefined {
    return this.brokenBy;
  }

  /** True when nothing is in flight in either direction. */
  get idle(): boolean {
    return this.pending.size === 0 && this.answering === 0;
  }

  /** Sends a request and resolves with its (schema-checked) result. */
  request(method: ProtocolMethod, params: Record<string, unknown>): Promise<unknown> {
    if (this.brokenBy) return Promise.reject(this.brokenBy);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { method, resolve, reject });
      this.send({ jsonrpc: '2.0', id, method, params });
      this.arm();
    });
  }

  /** Sends a notification (no answer expected). */
  notify(method: ProtocolMethod, params: Record<string, unknown>): void {
    if (!this.brokenBy) this.send({ jsonrpc: '2.0', method, params });
  }

  /** Breaks the connection: every pending and later request is rejected with `error`. Idempotent. */
  break(error: ProtocolError): void {
    if (this.brokenBy) return;
    this.brokenBy = error;
    clearTimeout(this.watchdog);
    for (const entry of this.pending.values()) entry.reject(error);
    this.pending.clear();
    this.options.onBroken?.(error);
  }

  /** Handles one received line (without its newline). */
  receive(line: string): void {
    this.lineNumber++;
    if (this.brokenBy || line.trim() === '') return;
    this.arm(true);
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.send({ jsonrpc: '2.0', id: null, error: { code: RPC_ERRORS.parseError, message: 'not valid JSON' } });
      return this.violation(`line ${this.lineNumber} from ${this.options.peer} is not valid JSON (stdout is reserved for protocol messages; logs go to stderr): ${show(line)}`);
    }
    const { kind, problems } = checkEnvelope(message);
    const m = message as Record<string, unknown>;
    if (problems.length > 0) {
      const what = typeof m?.method === 'string' ? `'${m.method}' ${kind}` : (kind ?? 'message');
      return this.violation(`line ${this.lineNumber} from ${this.options.peer} is not a valid JSON-RPC ${what}:\n${formatProblems(problems)}`);
    }
    if (kind === 'request') return void this.answer(m.id as number | string, m.method as string, m.params as Record<string, unknown>);
    if (kind === 'notification') return this.notification(m.method as string, m.params as Record<string, unknown>);
    this.response(m);
  }

  private response(m: Record<string, unknown>): void {
    const id = m.id as number | string | null;
    const entry = id === null ? undefined : this.pending.get(id);
    if (!entry) {
      const error = m.error as { code: number; message: string } | undefined;
      const detail = error ? ` (error ${error.code}: ${error.message})` : '';
      return this.violation(`${this.options.peer} sent a response with id ${JSON.stringify(id)}, which matches no pending request${detail}`);
    }
    this.pending.delete(id!);
    this.arm();
    if ('error' in m) {
      const error = m.error as { code: number; message: string; data?: unknown };
      entry.reject(new RemoteError(entry.method, error.code, error.message, error.data, this.options.peer));
      return;
    }
    const problems = checkPart(entry.method, 'result', m.result);
    if (problems.length > 0) {
      // Reject this request first with the precise reason, then break the connection with the same one.
      const error = new ProtocolError(`the result ${this.options.peer} sent for '${entry.method}' does not match protocol/${entry.method}.schema.json#/$defs/result:\n${formatProblems(problems)}`);
      entry.reject(error);
      return this.break(error);
    }
    entry.resolve(m.result);
  }

  private async answer(id: number | string, method: string, params: Record<string, unknown>): Promise<void> {
    const handler = isProtocolMethod(method) ? this.options.handlers[method] : undefined;
    if (!handler) {
      this.send({ jsonrpc: '2.0', id, error: { code: RPC_ERRORS.methodNotFound, message: `unknown method '${method}'` } });
      return this.violation(`${this.options.peer} called an unknown method '${method}'`);
    }
    const problems = checkPart(method as ProtocolMethod, 'params', params);
    if (problems.length > 0) {
      this.send({ jsonrpc: '2.0', id, error: { code: RPC_ERRORS.invalidParams, message: `invalid params for '${method}'`, data: problems } });
      return this.violation(paramsProblem(this.options.peer, method, problems));
    }
    this.answering++;
    this.arm();
    try {
      const result = await handler(params);
      this.send({ jsonrpc: '2.0', id, result });
    } catch (error) {
      const code = error instanceof HandlerError ? error.code : RPC_ERRORS.internalError;
      const data = error instanceof HandlerError ? error.data : undefined;
      this.send({ jsonrpc: '2.0', id, error: { code, message: (error as Error).message ?? String(error), ...(data !== undefined && { data }) } });
    } finally {
      this.answering--;
      this.arm(true);
    }
  }

  private notification(method: string, params: Record<string, unknown>): void {
    const handler = isProtocolMethod(method) ? this.options.notifications?.[method] : undefined;
    if (!handler) return this.violation(`${this.options.peer} sent an unknown notification '${method}'`);
    const problems = checkPart(method as ProtocolMethod, 'params', params);
    if (problems.length > 0) return this.violation(paramsProblem(this.options.peer, method, problems));
    handler(params);
  }

  private violation(message: string): void {
    this.break(new ProtocolError(message));
  }

  private send(message: Record<string, unknown>): void {
    if (this.brokenBy && 'method' in message) return;
    try {
      this.options.write(JSON.stringify(message));
    } catch (error) {
      this.break(new ProtocolError(`cannot write to ${this.options.peer}: ${(error as Error).message}`));
    }
  }

  /** (Re)starts the silence clock when this side waits on the peer and is not itself busy answering it. */
  private arm(activity = false): void {
    if (activity || this.pending.size === 0 || this.answering > 0) {
      clearTimeout(this.watchdog);
      this.watchdog = undefined;
    }
    if (this.pending.size === 0 || this.answering > 0 || this.brokenBy || this.watchdog) return;
    this.watchdog = setTimeout(() => {
      const [id, oldest] = [...this.pending.entries()][0] ?? [];
      this.violation(`${this.options.peer} sent nothing for ${this.options.silenceMs} ms while '${oldest?.method}' (id ${id}) waited for its answer`);
    }, this.options.silenceMs);
  }
}

function paramsProblem(peer: string, method: string, problems: SchemaProblem[]): string {
  return `${peer} called '${method}' with params that do not match protocol/${method}.schema.json#/$defs/params:\n${formatProblems(problems)}`;
}

function show(line: string): string {
  return JSON.stringify(line.length > MAX_SHOWN ? `${line.slice(0, MAX_SHOWN)}...` : line);
}

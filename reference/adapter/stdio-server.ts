/**
 * The reference implementation served over the adapter protocol (JSON-RPC 2.0, one JSON object per line
 * on stdin/stdout; see docs/adapter-protocol.md). It wraps {@link createReferenceAdapter} and adds nothing:
 * every request becomes one adapter call, every host callback one request back to the harness (PROD-1:
 * the protocol adapter must not alter the entity's behaviour, so the suite gives the same verdicts over
 * stdio as in-process).
 *
 * A process serves sessions one after another: each `describe` starts one on a fresh adapter (a fresh loom,
 * nothing carried over) and `dispose` ends it; the process exits when stdin ends.
 *
 * Run it with `npx tsx reference/adapter/stdio-server.ts`; the harness does, with
 * `--adapter 'cmd:npx tsx reference/adapter/stdio-server.ts'`. stdout carries protocol lines only, so
 * console output is redirected to stderr.
 */
import { pathToFileURL } from 'node:url';
import type { Readable, Writable } from 'node:stream';
import type { Adapter, CantripSetup, CrystalReply, CrystalSetup, GateReply, Host, MutationAttempt, OverlayDecision, StreamEvent } from '../../schemas/adapter.ts';
import { PROTOCOL_VERSION } from '../../schemas/adapter.ts';
import type { CrystalRequest, ForkStrategy } from '../../schemas/records.ts';
import { Connection, HandlerError, ProtocolError, RPC_ERRORS } from '../../schemas/protocol/connection.ts';
import { frame, readLines } from '../../schemas/protocol/lines.ts';
import { createReferenceAdapter } from './reference-adapter.ts';

/** Bound on the harness's silence while a host callback waits (the harness's own delays are capped at 2 s). */
const HARNESS_SILENCE_MS = 60_000;

export interface ServeOptions {
  input: Readable;
  output: Writable;
  /** Called once when the process should end: at end of input, or when the harness broke the protocol. */
  onEnd: (error?: ProtocolError) => void;
}

/**
 * PROD-1: serves adapters made by `createAdapter`, one per session, over the protocol. Intents and turn
 * ids pass through untouched; an intent the harness left out stays absent, a null one stays null, exactly
 * as an in-process caller passes them.
 */
export function serveAdapter(createAdapter: () => Adapter, options: ServeOptions): Connection {
  let session: Adapter | undefined;
  let ended = false;
  const end = (error?: ProtocolError): void => {
    if (ended) return;
    ended = true;
    options.onEnd(error);
  };
  const current = (): Adapter => {
    if (session) return session;
    throw new HandlerError(RPC_ERRORS.invalidRequest, 'no session: describe starts one, and dispose ended the last');
  };
  const has = (params: Record<string, unknown>, key: string): boolean => Object.hasOwn(params, key);
  const connection: Connection = new Connection({
    peer: 'the harness',
    silenceMs: HARNESS_SILENCE_MS,
    write: (line) => options.output.write(frame(line)),
    onBroken: (error) => end(error),
    handlers: {
      describe: async (params) => {
        if (params.protocol_version !== PROTOCOL_VERSION) {
          throw new HandlerError(RPC_ERRORS.unsupportedVersion, `this implementation speaks protocol version ${PROTOCOL_VERSION}, not ${String(params.protocol_version)}`);
        }
        await session?.dispose();
        session = createAdapter();
        return session.describe();
      },
      construct: (params) => current().construct(params.setup as CantripSetup, hostOver(connection)),
      cast: (params) => (has(params, 'intent') ? current().cast(params.cantrip as string, params.intent as string) : current().cast(params.cantrip as string)),
      invoke: (params) =>
        current().invoke(params.cantrip as string, typeof params.entity_id === 'string' ? { entity_id: params.entity_id } : undefined),
      send: (params) => (has(params, 'intent') ? current().send(params.entity as string, params.intent as string) : current().send(params.entity as string)),
      fork: (params) =>
        has(params, 'crystal') || has(params, 'strategy')
          ? current().fork(params.turn_id as string, params.intent as string | undefined, {
              ...(has(params, 'crystal') && { crystal: params.crystal as CrystalSetup }),
              ...(has(params, 'strategy') && { strategy: params.strategy as ForkStrategy }),
            })
          : has(params, 'intent')
            ? current().fork(params.turn_id as string, params.intent as string)
            : current().fork(params.turn_id as string),
      loom: () => current().loom(),
      thread: (params) => current().thread(params.leaf_turn_id as string),
      mutate: (params) => current().mutate(params as unknown as MutationAttempt),
      reopen: async () => {
        const adapter = current();
        return adapter.reopen ? adapter.reopen() : { ok: false, error: { message: 'this implementation has no durable loom to reopen' } };
      },
      overlay: async (params) => {
        const adapter = current();
        return adapter.overlay
          ? adapter.overlay(params.entity as string, params.decision as OverlayDecision)
          : { ok: false, error: { message: 'this implementation has no file overlays' } };
      },
      export_loom: async () => {
        const adapter = current();
        return adapter.exportLoom ? adapter.exportLoom() : { ok: false, error: { message: 'this implementation offers no loom export' } };
      },
      logs: async () => {
        const adapter = current();
        return adapter.logs ? adapter.logs() : { ok: false, error: { message: 'this implementation offers no log output' } };
      },
      dispose: async () => {
        const ending = session;
        session = undefined;
        await ending?.dispose();
        return {};
      },
    },
  });
  readLines(
    options.input,
    (line) => connection.receive(line),
    (chars) => connection.break(new ProtocolError(`a line from the harness exceeded ${chars} characters without a newline`)),
  );
  options.input.on('end', () => {
    void Promise.resolve(session?.dispose()).finally(() => end());
  });
  return connection;
}

/** The harness's {@link Host}, reached over the connection. */
function hostOver(connection: Connection): Host {
  return {
    queryCrystal: async (crystal: string, request: CrystalRequest) =>
      (await connection.request('host.queryCrystal', { crystal, request: request as unknown as Record<string, unknown> })) as CrystalReply,
    callGate: async (gate, args, context) =>
      (await connection.request('host.callGate', { gate, ...(args !== undefined && { args }), entity_id: context.entity_id, tool_call_id: context.tool_call_id, ...(context.credential !== undefined && { credential: context.credential }) })) as GateReply,
    sleep: async (ms) => {
      await connection.request('host.sleep', { ms: Math.max(0, Math.round(ms)) });
    },
    // bounded-events: each event is a request, and the harness's answer is the acknowledgement.
    event: async (event: StreamEvent) => {
      await connection.request('host.event', event as unknown as Record<string, unknown>);
    },
  };
}

function main(): void {
  // stdout is the protocol channel: anything logged goes to stderr instead.
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  console.warn = console.error;
  serveAdapter(createReferenceAdapter, {
    input: process.stdin,
    output: process.stdout,
    onEnd: (error) => {
      if (error) console.error(`cantrip-reference: ${error.message}`);
      process.exitCode = error ? 1 : 0;
      // Let the last answer flush, then leave even if a sandbox or timer would keep the process alive.
      process.stdout.write('', () => process.exit());
    },
  });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main();

/**
 * A case's crystals over a wire transport: the crystal server serves them on loopback in a provider's
 * format, and the implementation reaches them with its own provider code (docs/crystal-server.md).
 */
import type { CrystalEndpoint, CrystalTransport } from '../../schemas/adapter.ts';
import type { CrystalServer, Exchange, WireFormat } from '../crystal-server/index.ts';
import type { KitLimitReached } from './kit-limits.ts';
import type { CrystalFault } from './mock-crystal.ts';

/** What a wire transport adds to a case: the endpoints `construct` receives, and the server to read problems from. */
export type Wire = { endpoints: Record<string, CrystalEndpoint>; server: CrystalServer } | undefined;

/** The wire format and streaming of a transport other than the callback. */
export function wireOf(transport: CrystalTransport): { format: WireFormat; stream: boolean } | undefined {
  if (transport === 'callback') return undefined;
  const format: WireFormat = transport.startsWith('anthropic') ? 'anthropic' : transport.startsWith('gemini') ? 'gemini' : 'openai';
  return { format, stream: transport.endsWith('-stream') };
}

/**
 * Per crystal, the wait before each request after the first: from the end of the answer before (as
 * the server wrote it) to the arrival of this request. Requests that overlapped give a negative wait.
 */
export function wireWaits(server: CrystalServer): Record<string, number[]> {
  const waits: Record<string, number[]> = {};
  const lastEnd = new Map<string, number>();
  for (const e of server.exchanges) {
    if (e.crystal === undefined || e.format === 'unknown') continue;
    const before = lastEnd.get(e.crystal);
    if (before !== undefined) (waits[e.crystal] ??= []).push(Math.round((e.at_ms - before) * 1000) / 1000);
    lastEnd.set(e.crystal, e.ended_ms ?? e.at_ms);
  }
  return waits;
}

/** Why a case cannot be judged when the kit's crystal server refused one of its requests itself, or undefined. */
export function refusedByKit(exchanges: readonly Exchange[]): string | undefined {
  const refused = exchanges.filter((e) => e.refused_by_kit !== undefined);
  if (refused.length === 0) return undefined;
  return `the kit's crystal server refused ${refused.length} request${refused.length === 1 ? '' : 's'} of the implementation (seq ${refused.map((e) => e.seq).join(', ')}) as larger than it reads (HTTP 413): the crystal never saw ${refused.length === 1 ? 'it' : 'them'}, so the case is not judged`;
}

/**
 * The crystal server's own bounds a case reached, into the drive's faults and limits (for an adapter's
 * wire transport and an ACP agent's crystal alike):
 * - a request refused for its size never reached the scripted crystal: what follows (no crystal queried,
 *   say) is the kit's limit, not the implementation's fault; the case is not judged;
 * - bodies answered without a copy kept (past the server's bound): nothing a verdict reads comes from
 *   those copies (the crystal's requests are the mock crystal's), so the case is still judged.
 */
export function noteServerLimits(state: { limits: KitLimitReached[]; faults: CrystalFault[] }, server: CrystalServer): void {
  const refused = refusedByKit(server.exchanges);
  if (refused !== undefined) {
    state.faults.push({ kind: 'error', message: refused });
    const seqs = server.exchanges.filter((e) => e.refused_by_kit !== undefined).map((e) => e.seq);
    state.limits.push({ kind: 'request_size', bound: server.maxBodyBytes, seen: seqs.length, judged: false, seqs });
  }
  // The bound a reader sees is the bodies kept: the count bound, or fewer when the total size bound came first.
  const { kept, notKept } = server.bodiesKept;
  if (notKept > 0) state.limits.push({ kind: 'request_bodies', bound: kept, seen: kept + notKept, judged: true });
}

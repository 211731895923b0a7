/**
 * A case's crystals over a wire transport: the crystal server serves them on loopback in a provider's
 * format, and the implementation reaches them with its own provider code (docs/crystal-server.md).
 */
import type { CrystalEndpoint, CrystalTransport } from '../../schemas/adapter.ts';
import type { CrystalServer, WireFormat } from '../crystal-server/index.ts';

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

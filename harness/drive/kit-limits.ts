/**
 * The bounds the kit holds per case whatever the implementation sends (docs/adapter-protocol.md, "Limits
 * and promises"), as a report states each one reached: what was bounded, the bound, how much came, and
 * whether the case was still judged on what was kept. A structured record, so a report reader (or a
 * test) tells "the kit's limit" from a verdict without reading a sentence.
 */

/**
 * What a bound applies to:
 * - `loom_turns`: the turns of a loom read (beyond the bound the case is not judged);
 * - `acp_updates`: an ACP agent's session updates per prompt or outside prompts (likewise);
 * - `acp_client_requests`: the requests an ACP agent made of the kit (kept in part, still judged);
 * - `acp_inbound`: the messages an ACP agent sent, kept as sent (beyond the bound, only those that carry
 *   a secret the kit handed over are kept, so the secret search still sees every leak; still judged);
 * - `request_bodies`: the crystal server's copies of request bodies (nothing judges them; still judged);
 * - `crystal_requests`: the characters (as JSON) of the crystal requests the mock crystals keep, which the
 *   case's expectations read (beyond the bound the case is not judged);
 * - `request_size`: requests the crystal server refused as larger than it reads (HTTP 413): the crystal
 *   never saw them, so the case is not judged.
 */
export type BoundedKind = 'loom_turns' | 'acp_updates' | 'acp_client_requests' | 'acp_inbound' | 'request_bodies' | 'request_size' | 'crystal_requests';

export interface KitLimitReached {
  kind: BoundedKind;
  /** The bound: entries kept (`request_bodies`: bodies kept; `crystal_requests`: characters; `request_size`: bytes read of one request). */
  bound: number;
  /** How many came (`crystal_requests`: characters; `request_size`: how many requests were refused). */
  seen: number;
  /** Whether the case was still judged, on what was kept. */
  judged: boolean;
  /** The crystal server's sequence numbers of the refused requests (`request_size` only). */
  seqs?: number[];
}

/** One line a reader can act on: what was cut, after how many, and what that did to the verdict. */
export function limitNote(l: KitLimitReached): string {
  const what: Record<BoundedKind, string> = {
    loom_turns: 'loom turns',
    acp_updates: 'ACP session updates',
    acp_client_requests: "ACP agent's requests to the kit",
    acp_inbound: "ACP agent's messages",
    request_bodies: 'crystal request bodies',
    request_size: 'crystal requests larger than the kit reads',
    crystal_requests: 'characters of crystal requests',
  };
  if (l.kind === 'request_size') return `${l.seen} ${what[l.kind]} (over ${l.bound} bytes, HTTP 413; seq ${(l.seqs ?? []).join(', ')}): not judged`;
  return `${what[l.kind]}: ${l.seen} came, truncated after ${l.bound}${l.judged ? '; judged on what was kept' : '; not judged'}`;
}

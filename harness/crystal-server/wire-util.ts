/**
 * Small helpers shared by the wire formats of the crystal server: type guards, cutting strings into
 * deltas, SSE framing, cutting a byte stream at awkward places.
 */
import type { StreamSplit, WireProblem } from './types.ts';

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Collects the problems found while reading one request. */
export class ProblemList {
  readonly items: WireProblem[] = [];
  error(check: string, message: string, at?: string): void {
    this.items.push({ severity: 'error', check, message, ...(at !== undefined && { at }) });
  }
  note(check: string, message: string, at?: string): void {
    this.items.push({ severity: 'note', check, message, ...(at !== undefined && { at }) });
  }
}

/** The settings a split resolves to. */
export interface ResolvedSplit {
  textChars: number;
  argumentChars: number;
  bytes: 'awkward' | number | undefined;
  pauseMs: number;
}

export function resolveSplit(split: 'awkward' | StreamSplit | undefined): ResolvedSplit {
  if (split === 'awkward') return { textChars: 2, argumentChars: 3, bytes: 'awkward', pauseMs: 1 };
  const bytes = split?.bytes;
  return {
    textChars: Math.max(1, split?.text_chars ?? 24),
    argumentChars: Math.max(1, split?.argument_chars ?? 24),
    bytes,
    pauseMs: split?.pause_ms ?? (bytes === undefined ? 0 : 1),
  };
}

/**
 * Cuts text into pieces of at most `size` code points (a surrogate pair is never cut: that would
 * make a piece that is not valid Unicode, which no provider sends). With `size` 2 the pieces
 * alternate 1 and 2 code points, so cuts fall at odd and even places alike.
 */
export function cutText(text: string, size: number): string[] {
  const points = Array.from(text);
  const pieces: string[] = [];
  let i = 0;
  let turn = 0;
  while (i < points.length) {
    const n = size === 2 ? 1 + (turn++ % 2) : size;
    pieces.push(points.slice(i, i + n).join(''));
    i += n;
  }
  return pieces;
}

/** One SSE event: an optional `event:` line, one `data:` line, a blank line. */
export function sseFrame(data: string, event?: string): string {
  return `${event !== undefined ? `event: ${event}\n` : ''}data: ${data}\n\n`;
}

/**
 * Cuts the bytes of a stream for writing. `awkward`: after the first byte of every multi-byte UTF-8
 * character, and every 11 bytes elsewhere; a number: every that many bytes; otherwise at the given
 * frame boundaries only.
 */
export function cutBytes(frames: string[], bytes: 'awkward' | number | undefined): Buffer[] {
  if (bytes === undefined) return frames.map((f) => Buffer.from(f, 'utf8'));
  const all = Buffer.from(frames.join(''), 'utf8');
  const cuts = new Set<number>();
  if (bytes === 'awkward') {
    let sinceCut = 0;
    for (let i = 0; i < all.length; i++) {
      const b = all[i] ?? 0;
      // A lead byte of a multi-byte sequence (11xxxxxx): cut after it, inside the character.
      if (b >= 0xc0 && i + 1 < all.length) {
        cuts.add(i + 1);
        sinceCut = 0;
      } else if (++sinceCut >= 11 && (b & 0xc0) !== 0x80) {
        cuts.add(i + 1);
        sinceCut = 0;
      }
    }
  } else {
    const step = Math.max(1, Math.floor(bytes));
    for (let i = step; i < all.length; i += step) cuts.add(i);
  }
  const pieces: Buffer[] = [];
  let start = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    if (cut > start && cut < all.length) {
      pieces.push(all.subarray(start, cut));
      start = cut;
    }
  }
  pieces.push(all.subarray(start));
  return pieces.filter((p) => p.length > 0);
}

/** Whether `piece` ends part-way through a multi-byte UTF-8 character. */
export function endsInsideCharacter(piece: Buffer): boolean {
  for (let back = 1; back <= Math.min(4, piece.length); back++) {
    const b = piece[piece.length - back] ?? 0;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back for the lead byte
    const length = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return length > back;
  }
  return false;
}

/** The text of content given as a string or as an array of `{type:'text', text}` parts. */
export function textOfParts(
  content: unknown,
  at: string,
  problems: ProblemList,
  partName: string,
): { text: string | null; ok: boolean } {
  if (content === null || content === undefined) return { text: null, ok: true };
  if (typeof content === 'string') return { text: content, ok: true };
  if (!Array.isArray(content)) {
    problems.error('content_type', `${at}: content is neither a string nor an array of ${partName}s`, at);
    return { text: null, ok: false };
  }
  const texts: string[] = [];
  content.forEach((part, j) => {
    if (isRecord(part) && part['type'] === 'text' && typeof part['text'] === 'string') texts.push(part['text']);
    else if (isRecord(part) && part['type'] === 'text') problems.error('content_type', `${at}[${j}]: a text ${partName} without a string text`, `${at}[${j}]`);
    else problems.note('unsupported_content', `${at}[${j}]: a ${partName} of type ${JSON.stringify(isRecord(part) ? part['type'] : part)} is ignored`, `${at}[${j}]`);
  });
  return { text: texts.join(''), ok: true };
}

/** Best effort: the tokens and limit named in an overflow message such as "~1234 tokens exceeds the window of 1000". */
export function overflowNumbers(message: string): { tokens?: number; limit?: number } {
  const numbers = [...message.matchAll(/\d+/g)].map((m) => Number(m[0]));
  if (numbers.length >= 2 && numbers[0]! > numbers[1]!) return { tokens: numbers[0]!, limit: numbers[1]! };
  return {};
}

/** Replaces every occurrence of `secret` in `text`. */
export function redact(text: string, secret: string): string {
  return secret === '' ? text : text.split(secret).join('[redacted]');
}

/** Deep copy with every string redacted. */
export function redactDeep<T>(value: T, secret: string): T {
  if (typeof value === 'string') return redact(value, secret) as T;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, secret)) as T;
  if (isRecord(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[redact(k, secret)] = redactDeep(v, secret);
    return out as T;
  }
  return value;
}

/**
 * Newline-delimited framing of the adapter protocol: each message is one line of UTF-8 JSON ending in
 * `\n` (a `\r` before it is tolerated). JSON text never needs a raw newline, so no length header is used.
 */
import type { Readable } from 'node:stream';

/**
 * Longest line accepted, in characters (UTF-16 code units, as JavaScript counts a string's length), so
 * a peer that never sends a newline cannot grow memory without bound: 64 MiB of ASCII JSON.
 */
export const MAX_LINE_CHARS = 64 * 1024 * 1024;

/**
 * Calls `onLine` for every complete line read from `stream`, and `onOverflow` (once, then stops) if a
 * line grows past `maxChars` (default {@link MAX_LINE_CHARS}), with how many characters it had reached.
 * A partial last line at end of stream is dropped: it was torn.
 *
 * Linear in the input: each chunk is searched for newlines once, and the pieces of an unfinished line
 * are kept apart and joined once, when its newline arrives.
 */
export function readLines(stream: Readable, onLine: (line: string) => void, onOverflow: (chars: number) => void, maxChars = MAX_LINE_CHARS): void {
  const pieces: string[] = [];
  let pendingChars = 0;
  let stopped = false;
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    let start = 0;
    while (!stopped) {
      const newline = chunk.indexOf('\n', start);
      const piece = newline === -1 ? chunk.slice(start) : chunk.slice(start, newline);
      if (pendingChars + piece.length > maxChars) {
        stopped = true;
        pieces.length = 0;
        return onOverflow(pendingChars + piece.length);
      }
      if (newline === -1) {
        if (piece !== '') pieces.push(piece);
        pendingChars += piece.length;
        return;
      }
      const line = pieces.length === 0 ? piece : pieces.join('') + piece;
      pieces.length = 0;
      pendingChars = 0;
      start = newline + 1;
      onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
    }
  });
}

/** One message as one line. */
export function frame(message: string): string {
  return `${message}\n`;
}

/**
 * Newline-delimited framing of the adapter protocol: each message is one line of UTF-8 JSON ending in
 * `\n` (a `\r` before it is tolerated). JSON text never needs a raw newline, so no length header is used.
 */
import type { Readable } from 'node:stream';

/** Longest line accepted, so a peer that never sends a newline cannot grow memory without bound. */
export const MAX_LINE_CHARS = 64 * 1024 * 1024;

/**
 * Calls `onLine` for every complete line read from `stream`, and `onOverflow` (once, then stops) if a
 * line grows past {@link MAX_LINE_CHARS}. A partial last line at end of stream is dropped: it was torn.
 */
export function readLines(stream: Readable, onLine: (line: string) => void, onOverflow: (chars: number) => void, maxChars = MAX_LINE_CHARS): void {
  let buffer = '';
  let stopped = false;
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    if (stopped) return;
    buffer += chunk;
    let newline = buffer.indexOf('\n');
    while (newline !== -1) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
      if (stopped) return;
      newline = buffer.indexOf('\n');
    }
    if (buffer.length > maxChars) {
      stopped = true;
      onOverflow(buffer.length);
      buffer = '';
    }
  });
}

/** One message as one line. */
export function frame(message: string): string {
  return `${message}\n`;
}

/**
 * Reads the bytes of a JSONL loom file: one {@link LoomLine} per `\n`-terminated line.
 */
import type { LoomLine } from '../../schemas/records.ts';
import { LoomLoadError } from './load-error.ts';
import { parseLoomLine } from './loom-line.ts';
import type { LoomLoad } from './storage.ts';

const NEWLINE = 0x0a;

/**
 * Parses a whole JSONL loom (LOOM-1: every complete record comes back).
 *
 * A crash mid-write can only leave a partial record at the very end, with no `\n` after it (each record
 * and its newline go out in one write). So an unusable final line without a newline is reported as the
 * torn tail and everything before it is returned. A final line without a newline that does parse is a
 * whole record that only lost its terminator, and is kept. Any other unusable line, including a blank
 * one, means the file was damaged some other way: that throws a {@link LoomLoadError} naming the file
 * and line rather than guessing.
 */
export function readJsonl(bytes: Uint8Array, location: string): LoomLoad {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const lines: LoomLine[] = [];
  let start = 0;
  let lineNumber = 0;
  while (start < buffer.length) {
    lineNumber += 1;
    const newline = buffer.indexOf(NEWLINE, start);
    const end = newline === -1 ? buffer.length : newline;
    const parsed = parseLoomLine(buffer.toString('utf8', start, end));
    if ('problem' in parsed) {
      if (newline === -1) {
        return { lines, torn: { line: lineNumber, offset: start, reason: `unterminated final line: ${parsed.problem}` } };
      }
      throw new LoomLoadError(location, lineNumber, parsed.problem);
    }
    lines.push(parsed.line);
    start = end + 1;
  }
  return { lines };
}

/** The byte offset just after the last `\n` among the first `size` bytes that `read` reaches (0 when there is none). Reads backwards in chunks, so a long file costs one chunk. */
export function lastLineStart(read: (into: Buffer, position: number) => void, size: number): number {
  const chunk = Buffer.alloc(Math.min(64 * 1024, size));
  let end = size;
  while (end > 0) {
    const from = Math.max(0, end - chunk.length);
    const window = chunk.subarray(0, end - from);
    read(window, from);
    const index = window.lastIndexOf(NEWLINE);
    if (index !== -1) return from + index + 1;
    end = from;
  }
  return 0;
}

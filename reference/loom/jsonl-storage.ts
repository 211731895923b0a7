/**
 * The reference loom storage: a JSONL file, one {@link LoomLine} per line, in append order (LOOM-3).
 */
import { appendFileSync, closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, readFileSync, readSync } from 'node:fs';
import type { LoomLine } from '../../schemas/records.ts';
import { lastLineStart, readJsonl } from './jsonl-reader.ts';
import { parseLoomLine } from './loom-line.ts';
import type { LoomLoad, LoomStorage } from './storage.ts';

export interface JsonlStorageOptions {
  /**
   * Flush each record to the device before `append` returns. Off by default: a returned append has
   * reached the operating system, which survives a crash of this process but not a power cut. Turn it
   * on when the loom must survive the machine going down (it costs one fsync per turn).
   */
  fsync?: boolean;
}

/**
 * A JSONL file opened once for appending (LOOM-1, LOOM-3). The file is created if missing. One writer
 * per file: two storages appending to the same path at once are not supported.
 *
 * Torn tails: {@link load} reports a record cut off by a crash and skips it. Before the first append,
 * the storage makes sure the new record starts on a fresh line: if the file ends in an unterminated
 * record that parses, it only gets its missing `\n`; if it ends in torn bytes, those bytes are copied
 * to `<path>.torn` (appended, so nothing is ever discarded) and then cut from the loom file. Cutting
 * rather than starting a new line keeps the file loadable: a torn record left in the middle would read
 * as corruption next time.
 */
export class JsonlStorage implements LoomStorage {
  readonly location: string;
  readonly #fsync: boolean;
  #fd: number | undefined;
  #tailChecked = false;

  constructor(
    readonly path: string,
    options: JsonlStorageOptions = {},
  ) {
    this.location = path;
    this.#fsync = options.fsync ?? false;
    this.#fd = openSync(path, 'a+');
  }

  /** Writes one record and its newline in a single synchronous write (LOOM-1). */
  append(line: LoomLine): void {
    const fd = this.#fd;
    if (fd === undefined) throw new Error(`${this.path}: loom storage is closed`);
    if (!this.#tailChecked) {
      this.#startFreshLine(fd);
      this.#tailChecked = true;
    }
    try {
      appendFileSync(fd, `${JSON.stringify(line)}\n`);
      if (this.#fsync) fsyncSync(fd);
    } catch (error) {
      // A failed write may have left partial bytes; check the tail again before the next record.
      this.#tailChecked = false;
      throw error;
    }
  }

  /** Every complete record, and the torn tail if the last write was cut off (LOOM-1). */
  load(): LoomLoad {
    return readJsonl(readFileSync(this.path), this.path);
  }

  /** Releases the file. Loading still works; appending afterwards throws. */
  close(): void {
    if (this.#fd === undefined) return;
    closeSync(this.#fd);
    this.#fd = undefined;
  }

  #startFreshLine(fd: number): void {
    const size = fstatSync(fd).size;
    const read = (into: Buffer, position: number): void => {
      readSync(fd, into, 0, into.length, position);
    };
    const start = lastLineStart(read, size);
    if (start === size) return;
    const tail = Buffer.alloc(size - start);
    read(tail, start);
    if ('line' in parseLoomLine(tail.toString('utf8'))) {
      appendFileSync(fd, '\n');
      return;
    }
    appendFileSync(`${this.path}.torn`, Buffer.concat([tail, Buffer.from('\n')]));
    ftruncateSync(fd, start);
  }
}

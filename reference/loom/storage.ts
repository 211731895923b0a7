/**
 * The storage contract behind a {@link Loom}: an append-only sequence of {@link LoomLine}s.
 */
import type { LoomLine } from '../../schemas/records.ts';

/** A final record that was cut off mid-write (a crash) and so was not loaded. */
export interface TornTail {
  /** 1-based line number of the torn record. */
  line: number;
  /** Byte offset where the torn record starts; every byte before it was loaded. */
  offset: number;
  /** Why the record could not be read. */
  reason: string;
}

/** What a storage holds: every complete line in append order, and the torn tail if one was found. */
export interface LoomLoad {
  lines: LoomLine[];
  torn?: TornTail;
}

/**
 * Where a loom's lines live (LOOM-1, LOOM-3).
 *
 * `append` is synchronous on purpose: when it returns, the line is written, so the loop can start its
 * next turn knowing the previous one is recorded (LOOM-1). Storages only ever add lines; a reward change
 * is a new `reward` line, never an edit (LOOM-3).
 */
export interface LoomStorage {
  append(line: LoomLine): void;
  load(): LoomLoad;
  /** A human-readable place (a file path, `memory`), used in error messages. */
  readonly location?: string;
}

/**
 * A loom storage held in memory: for tests, scratch runs, and looms nobody needs after the process.
 */
import type { LoomLine } from '../../schemas/records.ts';
import type { LoomLoad, LoomStorage } from './storage.ts';

/**
 * Keeps lines in an array (LOOM-1, LOOM-3: append only, nothing is ever removed). Lines are kept as
 * given; the {@link Loom} only hands it frozen records. Two looms built over one MemoryStorage see the
 * same history, which is how tests model reopening.
 */
export class MemoryStorage implements LoomStorage {
  readonly location = 'memory';
  readonly #lines: LoomLine[] = [];

  append(line: LoomLine): void {
    this.#lines.push(line);
  }

  load(): LoomLoad {
    return { lines: [...this.#lines] };
  }
}

/**
 * Where reference adapters keep their JSONL looms: one scratch directory per process, made on first use
 * and removed when the process exits; each adapter's loom is a file of its own in it, which the adapter
 * removes when disposed. (A directory per adapter cost a `mkdtemp` and a recursive removal per case, the
 * dearest file-system calls of a kit run, about 2 ms each; a file costs one create and one unlink.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let directory: string | undefined;
let made = 0;

/** A fresh path for one adapter's loom file, in this process's scratch directory. */
export function scratchLoomFile(): string {
  directory ??= makeDirectory();
  made += 1;
  return join(directory, `loom-${made}.jsonl`);
}

/** Removes a loom file and the `.torn` file its storage may have set beside it (reference/loom/jsonl-storage.ts). */
export function removeLoomFile(file: string): void {
  rmSync(file, { force: true });
  rmSync(`${file}.torn`, { force: true });
}

function makeDirectory(): string {
  const fresh = mkdtempSync(join(tmpdir(), 'cantrip-loom-'));
  // Catches what a dispose never removed (an adapter a test dropped, an interrupted run).
  process.once('exit', () => rmSync(fresh, { recursive: true, force: true }));
  return fresh;
}

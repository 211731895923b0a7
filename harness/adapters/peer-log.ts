/**
 * Reading what fixtures/adapters/broken-peer.mjs logs with `--log FILE` (its pids, its orphan's pids, its
 * casts), and telling whether a process is gone, for the harness's process-hygiene tests.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh, not yet existing log file for `--log`. */
export function tempLog(): string {
  return join(mkdtempSync(join(tmpdir(), 'cantrip-peer-log-')), 'peer.log');
}

/** The peer processes, the children they left behind, and the intents of the casts they received, in order. */
export function peerLog(file: string): { peers: number[]; children: number[]; casts: string[] } {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // not written yet
  }
  const lines = text.split('\n').filter(Boolean);
  const values = (kind: string): string[] => lines.filter((l) => l.startsWith(`${kind} `)).map((l) => l.slice(kind.length + 1));
  return { peers: values('peer').map(Number), children: values('child').map(Number), casts: values('cast') };
}

/** Whether `pid` no longer runs: it does not exist, or it is a zombie (dead, not yet reaped by its parent). */
export function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    // Field 3 of /proc/<pid>/stat is the state; the command name before it is in parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/**
 * Whether `pid` is gone, allowing a signal already sent some time to take effect. The allowance only
 * bounds the wait; a process nobody ended stays up however long it is given.
 */
export async function processGone(pid: number, allowanceMs = 10_000): Promise<boolean> {
  for (let waited = 0; waited < allowanceMs; waited += 50) {
    if (gone(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return gone(pid);
}

/** Resolves once `condition` holds, looking every 50 ms; rejects after `ms` with `what`. */
export async function until(condition: () => boolean, what: string, ms = 60_000): Promise<void> {
  for (let waited = 0; !condition(); waited += 50) {
    if (waited >= ms) throw new Error(`gave up waiting for ${what} after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

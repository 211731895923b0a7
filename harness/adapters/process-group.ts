/**
 * Signals to a whole process group: the implementation is spawned as the leader of a group of its own
 * (its pid is the group id), so whatever it starts and leaves behind (a helper, a server, a child it
 * forgot) is in the group and ends with it. On Windows there are no process groups: the leader alone
 * is signalled.
 */

const GROUPS = process.platform !== 'win32';
/** How often an ending group is looked at while it is given its grace. */
const POLL_MS = 25;

/** Sends `signal` to every process of the group led by `pid`; a group that is already gone is fine. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(GROUPS ? -pid : pid, signal);
  } catch {
    // ESRCH: nothing left to signal. EPERM cannot happen for a group we started.
  }
}

/** Whether any process of the group led by `pid` still exists (a zombie counts until it is reaped). */
export function groupAlive(pid: number): boolean {
  try {
    process.kill(GROUPS ? -pid : pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Ends what is left of the group led by `pid` once its leader is gone: SIGTERM, then SIGKILL if
 * anything is still there after `graceMs`. Resolves when the group is empty or the SIGKILL is sent.
 */
export async function endGroup(pid: number, graceMs: number): Promise<void> {
  if (!groupAlive(pid)) return;
  signalGroup(pid, 'SIGTERM');
  for (let waited = 0; waited < graceMs; waited += POLL_MS) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    if (!groupAlive(pid)) return;
  }
  signalGroup(pid, 'SIGKILL');
}

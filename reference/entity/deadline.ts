/** The reason a cast's controller is aborted when its wall-clock ward fires; never escapes the loop. */
export class DeadlinePassed extends Error {
  override readonly name = 'DeadlinePassed';
}

/**
 * Waits for `work`, but only while `controller` is not aborted, and no later than `deadline` (epoch ms,
 * when given): so no crystal or gate can hold a cast past its timeout ward or past its parent's end.
 * On expiry it aborts `controller` with a {@link DeadlinePassed} reason; in either case the wait
 * rejects with the abort reason, and `work` is left to settle on its own.
 */
export async function bounded<T>(work: Promise<T>, deadline: number | undefined, controller: AbortController): Promise<T> {
  const signal = controller.signal;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    if (deadline !== undefined) {
      timer = setTimeout(() => controller.abort(new DeadlinePassed('timeout ward')), Math.max(0, deadline - Date.now()));
    }
  });
  try {
    return await Promise.race([work, stopped]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener('abort', onAbort);
    // The losing promise may still reject later; mark it handled so it cannot crash the process.
    work.catch(() => {});
    stopped.catch(() => {});
  }
}

/** The reason a cast's controller is aborted when its wall-clock ward fires; never escapes the loop. */
export class DeadlinePassed extends Error {
  override readonly name = 'DeadlinePassed';
}

/** Bounds every wait of one cast by its controller and, when there is one, its deadline. */
export interface CastBound {
  /** Waits for `work` while the cast is still allowed to run; rejects with the abort reason otherwise. */
  wait<T>(work: Promise<T>): Promise<T>;
  /** Stops the deadline timer; call when the cast ends. */
  clear(): void;
}

/**
 * Sets up the bound of one cast: a single timer that aborts `controller` at `deadline` (epoch ms) with
 * a {@link DeadlinePassed} reason, and a single promise that rejects when the controller is aborted
 * (by that timer, or by a parent stopping its child). Every crystal query and gate call of the cast is
 * raced against it, so nothing can hold a cast past its timeout ward (LOOP-2, CIRCLE-6).
 */
export function boundCast(controller: AbortController, deadline: number | undefined): CastBound {
  const signal = controller.signal;
  const stopped = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  stopped.catch(() => {}); // observed through wait(); never an unhandled rejection
  const timer = deadline === undefined ? undefined : setTimeout(() => controller.abort(new DeadlinePassed('timeout ward')), Math.max(0, deadline - Date.now()));
  return {
    wait<T>(work: Promise<T>): Promise<T> {
      // The losing promise may still reject later; mark it handled so it cannot crash the process.
      work.catch(() => {});
      return Promise.race([work, stopped]);
    },
    clear: () => clearTimeout(timer),
  };
}

/** The reason a cast's controller is aborted when its wall-clock ward fires; never escapes the loop. */
export class DeadlinePassed extends Error {
  override readonly name = 'DeadlinePassed';
}

/** Bounds every wait of one cast by its abort signal and, when there is one, its deadline. */
export interface CastBound {
  /** Aborted when the cast must stop: handed to the crystal, the gates and any children. */
  readonly signal: AbortSignal;
  /** Waits for `work` while the cast is still allowed to run; rejects with the abort reason otherwise. */
  wait<T>(work: Promise<T>): Promise<T>;
  /** Stops the cast now: aborts the signal and rejects every wait in progress with `reason`. */
  abort(reason: unknown): void;
  /** Stops the deadline timer; call when the cast ends. */
  clear(): void;
}

const ignore = (): void => {};

/**
 * Sets up the bound of one cast: an abort controller that only this bound aborts (by its deadline
 * timer, with a {@link DeadlinePassed} reason, or through {@link CastBound.abort}, e.g. when a parent
 * stops its child), and the waits in progress. Every crystal query and gate call of the cast goes
 * through `wait`, so nothing can hold a cast past its timeout ward (LOOP-2, CIRCLE-6).
 *
 * Each wait is a promise of its own that forgets the cast once its work settles. (Racing every wait
 * against one long-lived "aborted" promise would be shorter to write, but each race leaves a reaction
 * on that promise which holds the work's result until the cast ends: a cast of n turns would keep n
 * responses and observations alive.)
 */
export function boundCast(deadline: number | undefined): CastBound {
  const controller = new AbortController();
  const signal = controller.signal;
  /**
   * The reject functions of the waits still in progress: usually one. (A list rather than a Set: a Set
   * that keeps emptying reallocates its table on every delete, and this one empties after every wait.)
   */
  const waiting: ((reason: unknown) => void)[] = [];
  const settled = (reject: (reason: unknown) => void): void => {
    const at = waiting.indexOf(reject);
    if (at < 0) return; // already rejected by abort
    waiting[at] = waiting[waiting.length - 1]!;
    waiting.pop();
  };
  const abort = (reason: unknown): void => {
    if (signal.aborted) return;
    controller.abort(reason);
    for (const reject of waiting.splice(0)) reject(reason);
  };
  const timer = deadline === undefined ? undefined : setTimeout(() => abort(new DeadlinePassed('timeout ward')), Math.max(0, deadline - Date.now()));
  return {
    signal,
    wait<T>(work: Promise<T>): Promise<T> {
      if (signal.aborted) {
        work.catch(ignore); // the work lost; its later failure must not crash the process
        return Promise.reject(signal.reason);
      }
      return new Promise<T>((resolve, reject) => {
        waiting.push(reject);
        work.then(
          (value) => {
            settled(reject);
            resolve(value);
          },
          (error: unknown) => {
            settled(reject);
            reject(error);
          },
        );
      });
    },
    abort,
    clear: () => clearTimeout(timer),
  };
}

/**
 * The real waits of one case: scripted crystal delays, the delay gate, a slow event consumer. They are
 * measured with performance.now(), the clock cases compare timings against.
 */

/**
 * Waits at least `ms` as performance.now() measures it: a timer may fire up to a millisecond early by
 * that clock, and cases compare gate and crystal timings against the delays they scripted.
 */
export const realWait = async (ms: number): Promise<void> => {
  const until = performance.now() + ms;
  for (let left = ms; left > 0; left = until - performance.now()) {
    await new Promise((resolve) => setTimeout(resolve, Math.ceil(left)));
  }
};

/**
 * Real waits of one case (scripted crystal delays, the delay gate) that end with it. A hold the case no
 * longer needs (a ward cut the query it delayed) is dropped when the case is over: its timer is cleared
 * and the reply never comes, as from a provider that went silent. Without this, a 16 s hold would keep
 * the process alive long after the run finished.
 */
export class CaseWaits {
  private readonly timers = new Set<NodeJS.Timeout>();
  private ended = false;

  readonly wait = async (ms: number): Promise<void> => {
    const until = performance.now() + ms;
    for (let left = ms; left > 0; left = until - performance.now()) {
      if (this.ended) return new Promise<void>(() => undefined);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          resolve();
        }, Math.ceil(left));
        this.timers.add(timer);
      });
    }
  };

  end(): void {
    this.ended = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}

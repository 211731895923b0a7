/** What a command of the command line writes to and listens on; tests pass their own. */
export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
  /** Rewrites the progress line; absent when stderr is not a terminal. */
  progress?: (text: string) => void;
  /**
   * Prints one progress line per finished case or property, for logs (CI): used when stderr is not a
   * terminal. The line format is stable (docs/ci.md): `case <n>/<total> <status> <id> <ms>ms` and
   * `property <n>/<total> <status> <id> <ms>ms`.
   */
  progressLine?: (line: string) => void;
  cwd: string;
  /** Aborted (with the signal's name as reason) when the user interrupts the run. */
  interrupt?: AbortSignal;
}

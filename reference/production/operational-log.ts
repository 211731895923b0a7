/**
 * The reference's operational log (PROD-8): short lines about what went wrong or was tried again while a
 * cantrip ran (a gate that failed and why, an LLM query that failed, a retry's wait). A host reads it the
 * way an operator reads a log file, so every line passes the writer's redactor before it is kept: a
 * gate's error that quotes its credential is logged with the credential scrubbed.
 */
import type { Redactor } from './redaction.ts';

/** Writes one line to the log. */
export type LogWriter = (line: string) => void;

/** Lines kept in memory until a host reads them. */
export class OperationalLog {
  #lines: string[] = [];

  /** A writer whose lines are scrubbed by `redact` (the cantrip's secrets) before they are kept. */
  writer(redact: Redactor | undefined): LogWriter {
    return (line) => {
      this.#lines.push(redact ? redact(line) : line);
    };
  }

  /** The lines written since the last read, one per line of text; read lines are not kept. */
  read(): string {
    const text = this.#lines.map((line) => `${line}\n`).join('');
    this.#lines = [];
    return text;
  }
}

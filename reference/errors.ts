import type { ErrorCode } from '../schemas/records.ts';

/**
 * The one error class the reference throws for misuse and run failures. It carries a code from the
 * closed list in `schemas/records.ts`, so callers (and the conformance harness, via the adapter)
 * branch on `code`, never on message text.
 */
export class CantripError extends Error {
  override readonly name: string = 'CantripError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

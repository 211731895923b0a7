import type { ErrorCode } from '../../schemas/index.ts';
import { CantripError } from '../errors.ts';

/**
 * A failed crystal query. `status` is the HTTP status where there was one; `retryable` says whether
 * the retry layer may try again (PROD-2: 429 and 5xx yes, other 4xx never).
 */
export class CrystalError extends CantripError {
  readonly status: number | undefined;
  readonly retryable: boolean;
  constructor(code: ErrorCode, message: string, options: { status?: number; retryable?: boolean; cause?: unknown } = {}) {
    super(code, message, { cause: options.cause });
    this.status = options.status;
    this.retryable = options.retryable ?? (options.status !== undefined && isRetryableStatus(options.status));
  }
}

/** PROD-2: rate limits and server errors are worth retrying; every other client error is final. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

import type { CrystalResponse } from '../../../schemas/index.ts';
import { CrystalError } from '../crystal-error.ts';
import { validateResponse } from '../validate.ts';

/**
 * Runs the shared response validator (CRYSTAL-3, CRYSTAL-4) on every normalized provider response,
 * and prefixes any failure with the crystal's label so the message says which provider erred. The
 * code (`invalid_crystal_response`, `duplicate_tool_call_id`, `invalid_tool_call`) is kept as is.
 */
export function checkResponse(response: CrystalResponse, label: string): CrystalResponse {
  try {
    return validateResponse(response);
  } catch (error) {
    if (!(error instanceof CrystalError)) throw error;
    throw new CrystalError(error.code, `${label}: ${error.message}`, { retryable: false, cause: error });
  }
}

import { CrystalError } from '../crystal-error.ts';
import { isRecord } from './http.ts';

/**
 * A tool call's JSON-string arguments as the object the provider's wire format wants (Anthropic's
 * `input`, Gemini's `args`); anything else is refused with `invalid_tool_call` (CRYSTAL-4).
 */
export function parseArguments(text: string, where: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    if (isRecord(value)) return value;
  } catch {
    // reported below
  }
  throw new CrystalError('invalid_tool_call', `${where}.arguments is not a JSON object string`);
}

/**
 * The provider extras every family puts in `CrystalResponse.metadata` (CRYSTAL-6). Consumers may read
 * them for logs and cost accounting; the loop never needs them. A unified finish reason sits beside
 * the provider's raw value, so nothing the provider said is lost.
 */
export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'other';

export interface ProviderMetadata {
  /** `openai`, `openrouter`, `local`, `anthropic` or `gemini`. */
  provider: string;
  /** The model id the provider reports having used. */
  model?: string;
  /** The provider's id for this response. */
  response_id?: string;
  finish_reason: FinishReason;
  /** The provider's own stop value (`stop_reason`, `finish_reason`, `finishReason`). */
  raw_finish_reason: string | null;
  [extra: string]: unknown;
}

/** Drops undefined entries so metadata from the streamed and the plain path compare equal. */
export function compact(metadata: ProviderMetadata): ProviderMetadata {
  return Object.fromEntries(Object.entries(metadata).filter(([, value]) => value !== undefined)) as ProviderMetadata;
}

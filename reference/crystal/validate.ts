import type { CrystalResponse, ToolCall } from '../../schemas/index.ts';
import { CrystalError } from './crystal-error.ts';

/**
 * Checks a crystal's response before the loop acts on it, and returns it unchanged when it is sound.
 *
 * - CRYSTAL-3: a response must say something: text, or at least one gate call.
 * - CRYSTAL-4: every gate call needs an id unique within the response, a gate name, and arguments
 *   that are a JSON string encoding an object.
 *
 * Failures throw a {@link CrystalError} with `invalid_crystal_response`, `duplicate_tool_call_id` or
 * `invalid_tool_call`; none is retryable, since asking again would not make a malformed reply valid.
 */
export function validateResponse(response: unknown): CrystalResponse {
  if (typeof response !== 'object' || response === null) {
    throw invalid('invalid_crystal_response', 'the response is not an object');
  }
  const candidate = response as Partial<CrystalResponse>;
  const content = candidate.content;
  if (content !== null && content !== undefined && typeof content !== 'string') {
    throw invalid('invalid_crystal_response', 'content must be a string or null');
  }
  const toolCalls = candidate.tool_calls ?? [];
  if (!Array.isArray(toolCalls)) throw invalid('invalid_crystal_response', 'tool_calls must be an array');
  const hasText = typeof content === 'string' && content.length > 0;
  if (!hasText && toolCalls.length === 0) {
    throw invalid('invalid_crystal_response', 'the response has neither content nor tool calls');
  }
  // Ids seen so far, kept only when there can be a duplicate: most replies make one call.
  const seen = toolCalls.length > 1 ? new Set<string>() : undefined;
  const copies = new Array<ToolCall>(toolCalls.length);
  for (let index = 0; index < toolCalls.length; index++) {
    const call = toolCalls[index] as ToolCall;
    checkToolCall(call, index);
    if (seen) {
      if (seen.has(call.id)) throw invalid('duplicate_tool_call_id', `tool call id '${call.id}' appears twice`);
      seen.add(call.id);
    }
    copies[index] = Object.freeze({ id: call.id, gate: call.gate, arguments: call.arguments });
  }
  const usage = candidate.usage ?? NO_USAGE;
  // Fresh objects throughout, so the loop owns what it stores and the crystal cannot change it later.
  // The tool calls are frozen already: they go into the entity's sealed message log as they are.
  const checked: CrystalResponse = {
    content: content ?? null,
    usage: { prompt: usage.prompt, completion: usage.completion, cached: usage.cached },
  };
  if (copies.length > 0) checked.tool_calls = Object.freeze(copies) as ToolCall[];
  if (candidate.thinking !== undefined) checked.thinking = candidate.thinking;
  if (candidate.metadata !== undefined) checked.metadata = candidate.metadata;
  return checked;
}

const NO_USAGE = Object.freeze({ prompt: 0, completion: 0, cached: 0 });

function checkToolCall(call: ToolCall, index: number): void {
  const where = `tool_calls[${index}]`;
  if (typeof call !== 'object' || call === null) throw invalid('invalid_tool_call', `${where} is not an object`);
  if (typeof call.id !== 'string' || call.id === '') throw invalid('invalid_tool_call', `${where} has no id`);
  if (typeof call.gate !== 'string' || call.gate === '') throw invalid('invalid_tool_call', `${where} has no gate name`);
  if (typeof call.arguments !== 'string') throw invalid('invalid_tool_call', `${where}.arguments is not a JSON string`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(call.arguments);
  } catch {
    throw invalid('invalid_tool_call', `${where}.arguments is not valid JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw invalid('invalid_tool_call', `${where}.arguments does not encode an object`);
  }
}

function invalid(code: 'invalid_crystal_response' | 'duplicate_tool_call_id' | 'invalid_tool_call', message: string) {
  return new CrystalError(code, message, { retryable: false });
}

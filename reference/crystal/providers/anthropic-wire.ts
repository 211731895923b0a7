/**
 * Translation between the crystal contract and the Anthropic Messages API (`POST /v1/messages`),
 * following its published reference: a top-level `system`, alternating user/assistant turns whose
 * content is blocks (`text`, `tool_use` with `id`/`name`/`input`, `tool_result` with `tool_use_id`),
 * `tools: [{name, description, input_schema}]`, `tool_choice: {type: 'auto'|'any'|'none'}`, usage with
 * `cache_read_input_tokens` / `cache_creation_input_tokens`, and `thinking` blocks.
 */
import type { CrystalRequest, CrystalResponse, Message } from '../../../schemas/index.ts';
import { CrystalError } from '../crystal-error.ts';
import { isRecord } from './http.ts';
import { parseArguments } from './arguments.ts';
import { compact, type FinishReason } from './metadata.ts';

type Block = Record<string, unknown>;
interface WireMessage {
  role: 'user' | 'assistant';
  content: Block[];
}

/** Anthropic requires `max_tokens`; this is used when the call's hyperparameters give none. */
export const DEFAULT_MAX_TOKENS = 4096;

/**
 * Whether `tool_choice: 'required'` can be sent as `{type:'any'}`. Anthropic's extended-thinking guide
 * lists forced tool use as incompatible with thinking, so with thinking on it is simulated (CRYSTAL-5).
 */
export function canForceTools(request: CrystalRequest): boolean {
  const thinking = request.hyperparameters?.['thinking'];
  return !(isRecord(thinking) && thinking['type'] === 'enabled');
}

/** Builds the JSON body. Hyperparameters pass through (CALL-2); `stop` is renamed `stop_sequences`. */
export function toAnthropicBody(request: CrystalRequest, model: string, stream: boolean): Record<string, unknown> {
  const { stop, ...rest } = request.hyperparameters ?? {};
  const body: Record<string, unknown> = { max_tokens: DEFAULT_MAX_TOKENS, ...rest, model };
  if (stop !== undefined) body['stop_sequences'] = Array.isArray(stop) ? stop : [stop];
  const system = request.messages.filter((m) => m.role === 'system').map((m) => m.content ?? '');
  if (system.length > 0) body['system'] = system.join('\n\n');
  body['messages'] = toAnthropicMessages(request.messages);
  const tools = request.tools ?? [];
  if (tools.length > 0) {
    body['tools'] = tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
    const choice = request.tool_choice;
    if (choice === 'none') body['tool_choice'] = { type: 'none' };
    else if (choice === 'required' && canForceTools(request)) body['tool_choice'] = { type: 'any' };
    else if (choice !== undefined) body['tool_choice'] = { type: 'auto' };
  }
  if (stream) body['stream'] = true;
  else delete body['stream'];
  return body;
}

/** Consecutive messages of one role merge into one turn; a lone text block is sent as a plain string. */
function toAnthropicMessages(messages: Message[]): Array<{ role: string; content: string | Block[] }> {
  const turns: WireMessage[] = [];
  messages.forEach((message, index) => {
    if (message.role === 'system') return;
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks = toBlocks(message, index);
    const last = turns[turns.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  });
  return turns.map((turn) => {
    const only = turn.content.length === 1 ? turn.content[0] : undefined;
    return only && only['type'] === 'text' ? { role: turn.role, content: only['text'] as string } : turn;
  });
}

function toBlocks(message: Message, index: number): Block[] {
  if (message.role === 'tool') {
    if (!message.tool_call_id) throw new CrystalError('invalid_tool_call', `messages[${index}]: a tool message needs tool_call_id`);
    return [{ type: 'tool_result', tool_use_id: message.tool_call_id, content: message.content ?? '' }];
  }
  const blocks: Block[] = message.content ? [{ type: 'text', text: message.content }] : [];
  (message.tool_calls ?? []).forEach((call, j) => {
    blocks.push({ type: 'tool_use', id: call.id, name: call.gate, input: parseArguments(call.arguments, `messages[${index}].tool_calls[${j}]`) });
  });
  return blocks;
}

/** Normalizes a Messages API `message` object. */
export function fromAnthropicBody(body: unknown, label: string): CrystalResponse {
  if (!isRecord(body) || !Array.isArray(body['content'])) {
    throw new CrystalError('invalid_crystal_response', `${label}: body is not a message with a content array`);
  }
  const texts: string[] = [];
  const thoughts: string[] = [];
  const calls: NonNullable<CrystalResponse['tool_calls']> = [];
  body['content'].forEach((block: unknown, i) => {
    if (!isRecord(block)) throw new CrystalError('invalid_crystal_response', `${label}: content[${i}] is not a block`);
    if (block['type'] === 'text' && typeof block['text'] === 'string') texts.push(block['text']);
    else if (block['type'] === 'thinking' && typeof block['thinking'] === 'string') thoughts.push(block['thinking']);
    else if (block['type'] === 'tool_use') {
      if (typeof block['id'] !== 'string' || typeof block['name'] !== 'string') {
        throw new CrystalError('invalid_tool_call', `${label}: content[${i}] tool_use lacks id or name`);
      }
      calls.push({ id: block['id'], gate: block['name'], arguments: JSON.stringify(block['input'] ?? {}) });
    }
  });
  const usage = isRecord(body['usage']) ? body['usage'] : {};
  const cacheRead = count(usage['cache_read_input_tokens']);
  const cacheWrite = count(usage['cache_creation_input_tokens']);
  const raw = typeof body['stop_reason'] === 'string' ? body['stop_reason'] : null;
  const text = texts.join('');
  const thinking = thoughts.join('');
  return {
    content: text === '' ? null : text,
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
    // input_tokens counts only what came after the last cache breakpoint; the prompt is all three.
    usage: { prompt: count(usage['input_tokens']) + cacheRead + cacheWrite, completion: count(usage['output_tokens']), cached: cacheRead },
    ...(thinking !== '' ? { thinking } : {}),
    metadata: compact({
      provider: 'anthropic',
      model: typeof body['model'] === 'string' ? body['model'] : undefined,
      response_id: typeof body['id'] === 'string' ? body['id'] : undefined,
      finish_reason: unify(raw),
      raw_finish_reason: raw,
      cache_creation_tokens: cacheWrite > 0 ? cacheWrite : undefined,
    }),
  };
}

function unify(raw: string | null): FinishReason {
  if (raw === 'end_turn' || raw === 'stop_sequence') return 'stop';
  if (raw === 'max_tokens') return 'length';
  if (raw === 'tool_use') return 'tool_calls';
  if (raw === 'refusal') return 'content_filter';
  return 'other';
}

/**
 * CRYSTAL-2: Anthropic answers an over-long prompt with 400 `invalid_request_error` "prompt is too
 * long: N tokens > M maximum", and an over-large request with 413 `request_too_large`.
 */
export function isAnthropicContextOverflow(status: number, body: unknown, message: string): boolean {
  const error = isRecord(body) ? body['error'] : undefined;
  if (status === 413 || (isRecord(error) && error['type'] === 'request_too_large')) return true;
  return status === 400 && /prompt is too long|context window|too many tokens/i.test(message);
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

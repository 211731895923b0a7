/**
 * Translation between the crystal contract and the OpenAI Chat Completions wire format
 * (`POST {base}/chat/completions`), shared by OpenAI, OpenRouter and local servers (CRYSTAL-6).
 * Wire facts follow the published Chat Completions reference: `tools: [{type:'function', function}]`,
 * `tool_choice: 'auto'|'required'|'none'`, tool results as `role:'tool'` messages linked by
 * `tool_call_id`, usage with `prompt_tokens_details.cached_tokens`, errors as `{error:{message, code}}`.
 */
import type { CrystalRequest, CrystalResponse, Message, ToolCall } from '../../../schemas/index.ts';
import { CrystalError } from '../crystal-error.ts';
import { isRecord } from './http.ts';
import type { IdMaker } from './ids.ts';
import { compact, type FinishReason } from './metadata.ts';

/** What differs between the servers that speak this format. */
export interface WireOptions {
  model: string;
  /** Whether the server honours `tool_choice` (CRYSTAL-5). When false, `required` is simulated and `none` drops the tools. */
  nativeToolChoice: boolean;
  stream: boolean;
}

/** Builds the JSON body. Hyperparameters pass through as given (CALL-2); the fields this module owns win. */
export function toWireBody(request: CrystalRequest, options: WireOptions): Record<string, unknown> {
  const body: Record<string, unknown> = { ...request.hyperparameters, model: options.model };
  body['messages'] = request.messages.map(toWireMessage);
  const tools = request.tools ?? [];
  const choice = request.tool_choice;
  const dropTools = choice === 'none' && !options.nativeToolChoice;
  if (tools.length > 0 && !dropTools) {
    body['tools'] = tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
    if (choice !== undefined && options.nativeToolChoice) body['tool_choice'] = choice;
  }
  if (options.stream) {
    body['stream'] = true;
    body['stream_options'] = { include_usage: true };
  } else {
    delete body['stream'];
  }
  return body;
}

function toWireMessage(message: Message, index: number): Record<string, unknown> {
  switch (message.role) {
    case 'tool':
      if (!message.tool_call_id) {
        throw new CrystalError('invalid_tool_call', `messages[${index}]: a tool message needs tool_call_id`);
      }
      return { role: 'tool', tool_call_id: message.tool_call_id, content: message.content ?? '' };
    case 'assistant': {
      const calls = message.tool_calls ?? [];
      return {
        role: 'assistant',
        content: message.content,
        ...(calls.length > 0
          ? { tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.gate, arguments: c.arguments } })) }
          : {}),
      };
    }
    default:
      return { role: message.role, content: message.content ?? '' };
  }
}

/** Normalizes a completion body into a response. Anything missing or mistyped is `invalid_crystal_response`. */
export function fromWireBody(body: unknown, provider: string, label: string, newId: IdMaker): CrystalResponse {
  const choice = isRecord(body) && Array.isArray(body['choices']) ? (body['choices'][0] as unknown) : undefined;
  if (!isRecord(body) || !isRecord(choice) || !isRecord(choice['message'])) {
    throw new CrystalError('invalid_crystal_response', `${label}: body has no choices[0].message`);
  }
  const message = choice['message'];
  const text = stringOrNull(message['content']) ?? stringOrNull(message['refusal']);
  const calls = Array.isArray(message['tool_calls']) ? message['tool_calls'].map((c, i) => toToolCall(c, i, label, newId)) : [];
  const thinking = stringOrNull(message['reasoning_content']) ?? stringOrNull(message['reasoning']);
  const usage = isRecord(body['usage']) ? body['usage'] : {};
  const details = isRecord(usage['prompt_tokens_details']) ? usage['prompt_tokens_details'] : {};
  const completionDetails = isRecord(usage['completion_tokens_details']) ? usage['completion_tokens_details'] : {};
  const raw = typeof choice['finish_reason'] === 'string' ? choice['finish_reason'] : null;
  return {
    content: text,
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
    usage: { prompt: count(usage['prompt_tokens']), completion: count(usage['completion_tokens']), cached: count(details['cached_tokens']) },
    ...(thinking !== null ? { thinking } : {}),
    metadata: compact({
      provider,
      model: typeof body['model'] === 'string' ? body['model'] : undefined,
      response_id: typeof body['id'] === 'string' ? body['id'] : undefined,
      finish_reason: unify(raw),
      raw_finish_reason: raw,
      reasoning_tokens: typeof completionDetails['reasoning_tokens'] === 'number' ? completionDetails['reasoning_tokens'] : undefined,
      refusal: typeof message['refusal'] === 'string' && message['refusal'] !== '' ? true : undefined,
    }),
  };
}

function toToolCall(value: unknown, index: number, label: string, newId: IdMaker): ToolCall {
  const fn = isRecord(value) ? value['function'] : undefined;
  if (!isRecord(value) || !isRecord(fn) || typeof fn['name'] !== 'string') {
    throw new CrystalError('invalid_tool_call', `${label}: tool_calls[${index}] has no function name`);
  }
  const args = fn['arguments'];
  return {
    // Some local servers leave ids blank; CRYSTAL-4 needs one, so make one.
    id: typeof value['id'] === 'string' && value['id'] !== '' ? value['id'] : newId(),
    gate: fn['name'],
    // Servers that send arguments as an object (or as nothing) are normalized to a JSON string.
    arguments: typeof args === 'string' ? (args.trim() === '' ? '{}' : args) : JSON.stringify(args ?? {}),
  };
}

function unify(raw: string | null): FinishReason {
  switch (raw) {
    case 'stop':
      return 'stop';
    case 'length':
      return 'length';
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    case 'content_filter':
      return 'content_filter';
    default:
      return 'other';
  }
}

/**
 * CRYSTAL-2: recognizes a context-overflow reply. OpenAI sends `error.code: 'context_length_exceeded'`;
 * OpenRouter, vLLM and LM Studio send a 400 whose message speaks of the context length.
 */
export function isWireContextOverflow(status: number, body: unknown, message: string): boolean {
  if (status < 400 || status >= 500) return false;
  const error = isRecord(body) ? body['error'] : undefined;
  if (isRecord(error) && error['code'] === 'context_length_exceeded') return true;
  return /context[ _-]?(length|window)|maximum context|prompt is too long|too many tokens/i.test(message);
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

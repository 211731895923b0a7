/**
 * The OpenAI Chat Completions wire format (`POST /v1/chat/completions`), as its published API
 * reference describes it: `messages` with roles system/developer/user/assistant/tool, assistant
 * `tool_calls: [{id, type:'function', function:{name, arguments}}]` whose arguments are a JSON
 * string, `tool` messages linked by `tool_call_id`, `tools: [{type:'function', function}]`,
 * `tool_choice` `auto|none|required|{type:'function', function:{name}}`; replies with
 * `choices[0].message`, `finish_reason`, and `usage` with `prompt_tokens_details.cached_tokens`;
 * streams of `chat.completion.chunk` objects as SSE `data:` lines ending with `data: [DONE]`, with a
 * final usage chunk (`choices: []`) when `stream_options.include_usage` is set; errors as
 * `{error:{message, type, param, code}}`.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { CrystalResponse, Message, ToolCall, ToolChoice, ToolDefinition } from '../../schemas/records.ts';
import { header, sameKey } from './auth.ts';
import { callsOf, count, wireCallId, type ParsedRequest, type ReplyContext, type WireCodec } from './codec.ts';
import { cutText, isRecord, ProblemList, sseFrame, textOfParts } from './wire-util.ts';

/** Request fields that are the request's structure, not hyperparameters. */
const STRUCTURE = new Set(['model', 'messages', 'tools', 'tool_choice', 'stream']);
/** Request fields that steer the transport or the account, kept apart from hyperparameters. */
const TRANSPORT = new Set(['stream_options', 'parallel_tool_calls', 'user', 'store', 'metadata', 'service_tier', 'prompt_cache_key', 'safety_identifier']);

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'invalid_request_error',
  403: 'invalid_request_error',
  404: 'invalid_request_error',
  429: 'requests',
};

const FINISH: Record<string, string> = { stop: 'stop', length: 'length', tool_calls: 'tool_calls', content_filter: 'content_filter' };

export const openaiCodec: WireCodec = {
  format: 'openai',
  requestIdHeader: 'x-request-id',

  auth(headers: IncomingHttpHeaders, key: string) {
    const value = header(headers, 'authorization');
    if (value === undefined || value.trim() === '') return 'missing';
    const match = /^Bearer\s+(.+)$/i.exec(value.trim());
    return match && sameKey(match[1]!, key) ? 'ok' : 'wrong';
  },

  authError(kind: 'missing' | 'wrong') {
    const message =
      kind === 'missing'
        ? "You didn't provide an API key. Provide it in an Authorization header using Bearer auth (Authorization: Bearer YOUR_KEY)."
        : 'Incorrect API key provided.';
    return { status: 401, body: this.errorBody(401, message) };
  },

  modelNotFound(crystal: string) {
    return { status: 404, body: this.errorBody(404, `The model \`${crystal}\` does not exist or you do not have access to it.`, 'model_not_found') };
  },

  brokenStreamFrame: 'data: {"id": "broken", "choices": [{"delta": \n\n',
  closingFrames: [sseFrame('[DONE]')],
  responseId: (n: number) => `chatcmpl-${n}`,

  parse(body: unknown, _headers: IncomingHttpHeaders, problems: ProblemList): ParsedRequest {
    const none: ParsedRequest = { stream: false, wireOptions: {}, includeUsage: false };
    if (!isRecord(body)) return { ...none, fatal: 'the request body is not a JSON object' };
    const stream = body['stream'] === true;
    const streamOptions = body['stream_options'];
    const includeUsage = stream && isRecord(streamOptions) && streamOptions['include_usage'] === true;
    const base = { ...none, stream, includeUsage };
    if (typeof body['model'] !== 'string' || body['model'] === '') return { ...base, fatal: "you must provide a model parameter ('model')" };
    const crystal = body['model'];
    if (!Array.isArray(body['messages'])) return { ...base, crystal, fatal: "'messages' is a required property and must be an array" };
    if (body['messages'].length === 0) return { ...base, crystal, fatal: "[] is too short - 'messages'" };
    if (body['stream'] !== undefined && typeof body['stream'] !== 'boolean') problems.error('field_type', "'stream' must be a boolean", 'stream');
    if (stream && !includeUsage) {
      problems.note('usage_not_requested', 'a stream without stream_options.include_usage: true carries no usage (token counts are lost)', 'stream_options');
    }
    const messages = readMessages(body['messages'], problems);
    const tools = readTools(body['tools'], problems);
    const { choice, wire } = readToolChoice(body['tool_choice'], tools, problems);
    const hyperparameters: Record<string, unknown> = {};
    const wireOptions: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(body)) {
      if (STRUCTURE.has(k)) continue;
      if (TRANSPORT.has(k)) wireOptions[k] = v;
      else hyperparameters[k] = v;
    }
    return {
      crystal,
      stream,
      includeUsage,
      wireOptions,
      ...(wire !== undefined && { toolChoiceWire: wire }),
      request: {
        messages,
        ...(tools !== undefined && { tools }),
        ...(choice !== undefined && { tool_choice: choice }),
        ...(Object.keys(hyperparameters).length > 0 && { hyperparameters }),
      },
    };
  },

  errorBody(status: number, message: string, code?: string) {
    const type = ERROR_TYPES[status] ?? (status >= 500 ? 'server_error' : 'invalid_request_error');
    const defaultCode = status === 401 ? 'invalid_api_key' : status === 429 ? 'rate_limit_exceeded' : null;
    return { error: { message, type, param: null, code: code ?? defaultCode } };
  },

  overflow(message: string, numbers: { tokens?: number; limit?: number }) {
    const text =
      numbers.limit !== undefined && numbers.tokens !== undefined
        ? `This model's maximum context length is ${numbers.limit} tokens. However, your messages resulted in ${numbers.tokens} tokens. Please reduce the length of the messages.`
        : `This model's maximum context length was exceeded (${message}). Please reduce the length of the messages.`;
    return { status: 400, body: { error: { message: text, type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } } };
  },

  replyBody(response: CrystalResponse, ctx: ReplyContext) {
    const message: Record<string, unknown> = { role: 'assistant', content: response.content ?? null, refusal: null };
    if (response.thinking !== undefined) message['reasoning_content'] = response.thinking;
    const raw = (response as { tool_calls?: unknown }).tool_calls;
    if (raw === null) message['tool_calls'] = null;
    else if (Array.isArray(raw)) message['tool_calls'] = callsOf(response).map((c) => wireCall(c, ctx));
    return {
      id: ctx.id,
      object: 'chat.completion',
      created: ctx.created,
      model: ctx.model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(response, ctx) }],
      usage: wireUsage(response),
      system_fingerprint: null,
    };
  },

  wrongShapeBody(ctx: ReplyContext) {
    return { id: ctx.id, object: 'chat.completion', created: ctx.created, model: ctx.model, choices: [] };
  },

  streamFrames(response: CrystalResponse, ctx: ReplyContext) {
    const frames: string[] = [];
    const chunk = (delta: Record<string, unknown>, finish: string | null = null): void => {
      const body: Record<string, unknown> = {
        id: ctx.id,
        object: 'chat.completion.chunk',
        created: ctx.created,
        model: ctx.model,
        system_fingerprint: null,
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      };
      if (ctx.includeUsage) body['usage'] = null;
      frames.push(sseFrame(JSON.stringify(body)));
    };
    chunk({ role: 'assistant', content: '', refusal: null });
    if (response.thinking) for (const piece of cutText(response.thinking, ctx.split.textChars)) chunk({ reasoning_content: piece });
    if (typeof response.content === 'string' && response.content !== '') {
      for (const piece of cutText(response.content, ctx.split.textChars)) chunk({ content: piece });
    }
    callsOf(response).forEach((call, index) => {
      const id = wireCallId(call, ctx.step);
      const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {});
      chunk({ tool_calls: [{ index, ...(id !== undefined && { id }), type: 'function', function: { name: call.gate, arguments: '' } }] });
      for (const piece of cutText(args, ctx.split.argumentChars)) chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
    });
    chunk({}, finishReason(response, ctx));
    if (ctx.includeUsage) {
      frames.push(
        sseFrame(JSON.stringify({ id: ctx.id, object: 'chat.completion.chunk', created: ctx.created, model: ctx.model, system_fingerprint: null, choices: [], usage: wireUsage(response) })),
      );
    }
    frames.push(sseFrame('[DONE]'));
    return frames;
  },

  streamErrorFrame(message: string, type: string | undefined) {
    return sseFrame(JSON.stringify({ error: { message, type: type ?? 'server_error', param: null, code: null } }));
  },
};

function wireCall(call: ToolCall, ctx: ReplyContext): Record<string, unknown> {
  const id = wireCallId(call, ctx.step);
  const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {});
  return { ...(id !== undefined && { id }), type: 'function', function: { name: call.gate, arguments: args } };
}

function finishReason(response: CrystalResponse, ctx: ReplyContext): string {
  if (ctx.step?.finish_reason !== undefined) return ctx.step.finish_reason;
  const declared = response.metadata?.['finish_reason'];
  if (typeof declared === 'string' && FINISH[declared]) return FINISH[declared]!;
  return callsOf(response).length > 0 ? 'tool_calls' : 'stop';
}

function wireUsage(response: CrystalResponse): Record<string, unknown> {
  const prompt = count(response.usage?.prompt);
  const completion = count(response.usage?.completion);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: count(response.usage?.cached), audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

/** Reads the messages, checking that tool messages answer the calls of the assistant message right before them. */
function readMessages(list: unknown[], problems: ProblemList): Message[] {
  const messages: Message[] = [];
  /** Calls of the latest assistant message with tool calls, while only tool messages have followed it. */
  let open: { index: number; ids: Set<string>; answered: Set<string> } | undefined;
  const closeOpen = (before: string): void => {
    if (!open) return;
    const missing = [...open.ids].filter((id) => !open!.answered.has(id));
    if (missing.length > 0) {
      problems.error(
        'tool_call_unanswered',
        `messages[${open.index}]: an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'; ${JSON.stringify(missing)} had none ${before}`,
        `messages[${open.index}]`,
      );
    }
    open = undefined;
  };
  const seenIds = new Set<string>();
  list.forEach((raw, i) => {
    const at = `messages[${i}]`;
    if (!isRecord(raw)) {
      problems.error('message_shape', `${at} is not an object`, at);
      return;
    }
    const role = raw['role'];
    if (role !== 'tool') closeOpen(`before ${at}`);
    switch (role) {
      case 'system':
      case 'developer': {
        const { text } = textOfParts(raw['content'], `${at}.content`, problems, 'content part');
        if (text === null) problems.error('content_type', `${at}: a ${role} message needs content`, `${at}.content`);
        messages.push({ role: 'system', content: text ?? '' });
        break;
      }
      case 'user': {
        const { text } = textOfParts(raw['content'], `${at}.content`, problems, 'content part');
        if (text === null) problems.error('content_type', `${at}: a user message needs content`, `${at}.content`);
        messages.push({ role: 'user', content: text ?? '' });
        break;
      }
      case 'assistant': {
        const { text } = textOfParts(raw['content'], `${at}.content`, problems, 'content part');
        const calls = readCalls(raw['tool_calls'], at, problems, seenIds);
        if (text === null && calls.length === 0) problems.error('content_type', `${at}: an assistant message needs content or tool_calls`, at);
        const message: Message = { role: 'assistant', content: text };
        if (calls.length > 0) {
          message.tool_calls = calls;
          open = { index: i, ids: new Set(calls.map((c) => c.id)), answered: new Set() };
        }
        messages.push(message);
        break;
      }
      case 'tool': {
        const id = raw['tool_call_id'];
        const { text } = textOfParts(raw['content'], `${at}.content`, problems, 'content part');
        if (typeof id !== 'string' || id === '') {
          problems.error('tool_result_unmatched', `${at}: a tool message needs a tool_call_id`, `${at}.tool_call_id`);
        } else if (!open) {
          problems.error(
            'tool_result_unmatched',
            `${at}: messages with role 'tool' must be a response to a preceding message with 'tool_calls' (tool_call_id ${JSON.stringify(id)})`,
            at,
          );
        } else if (!open.ids.has(id)) {
          problems.error('tool_result_unmatched', `${at}: tool_call_id ${JSON.stringify(id)} answers no tool call of messages[${open.index}]`, `${at}.tool_call_id`);
        } else if (open.answered.has(id)) {
          problems.error('tool_result_duplicate', `${at}: tool_call_id ${JSON.stringify(id)} is answered twice`, `${at}.tool_call_id`);
        } else {
          open.answered.add(id);
        }
        messages.push({ role: 'tool', content: text ?? '', ...(typeof id === 'string' && { tool_call_id: id }) });
        break;
      }
      default:
        problems.error('role', `${at}: role ${JSON.stringify(role)} is not one of system, developer, user, assistant, tool`, `${at}.role`);
    }
  });
  closeOpen('at the end of the messages');
  return messages;
}

function readCalls(value: unknown, at: string, problems: ProblemList, seenIds: Set<string>): ToolCall[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    problems.error('tool_call_shape', `${at}.tool_calls is not an array`, `${at}.tool_calls`);
    return [];
  }
  const calls: ToolCall[] = [];
  value.forEach((raw, j) => {
    const where = `${at}.tool_calls[${j}]`;
    const fn = isRecord(raw) ? raw['function'] : undefined;
    if (!isRecord(raw) || !isRecord(fn) || typeof fn['name'] !== 'string') {
      problems.error('tool_call_shape', `${where}: needs function.name`, where);
      return;
    }
    if (raw['type'] !== 'function') problems.error('tool_call_shape', `${where}: type must be 'function'`, `${where}.type`);
    const id = raw['id'];
    if (typeof id !== 'string' || id === '') problems.error('tool_call_id', `${where}: needs a non-empty id`, `${where}.id`);
    else if (seenIds.has(id)) problems.error('duplicate_tool_call_id', `${where}: id ${JSON.stringify(id)} was used by an earlier tool call`, `${where}.id`);
    else seenIds.add(id);
    const args = fn['arguments'];
    let text: string;
    if (typeof args === 'string') text = args;
    else {
      problems.error('arguments_type', `${where}: function.arguments must be a JSON string, not ${args === null ? 'null' : typeof args}`, `${where}.function.arguments`);
      text = JSON.stringify(args ?? {});
    }
    calls.push({ id: typeof id === 'string' ? id : '', gate: fn['name'], arguments: text });
  });
  return calls;
}

function readTools(value: unknown, problems: ProblemList): ToolDefinition[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) {
    problems.error('tool_definition', "'tools' must be an array", 'tools');
    return undefined;
  }
  const tools: ToolDefinition[] = [];
  value.forEach((raw, i) => {
    const at = `tools[${i}]`;
    const fn = isRecord(raw) ? raw['function'] : undefined;
    if (!isRecord(raw) || raw['type'] !== 'function' || !isRecord(fn) || typeof fn['name'] !== 'string') {
      problems.error('tool_definition', `${at}: needs type 'function' and function.name`, at);
      return;
    }
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(fn['name'])) problems.error('tool_definition', `${at}: function.name must match ^[a-zA-Z0-9_-]{1,64}$`, `${at}.function.name`);
    const params = fn['parameters'];
    if (params !== undefined && !isRecord(params)) problems.error('tool_definition', `${at}: function.parameters must be a JSON Schema object`, `${at}.function.parameters`);
    tools.push({
      name: fn['name'],
      description: typeof fn['description'] === 'string' ? fn['description'] : '',
      // An omitted `parameters` is a function with an empty parameter list (OpenAI's reference).
      parameters: isRecord(params) ? params : { type: 'object', properties: {} },
    });
  });
  return tools;
}

function readToolChoice(value: unknown, tools: ToolDefinition[] | undefined, problems: ProblemList): { choice?: ToolChoice; wire?: unknown } {
  if (value === undefined) return {};
  const hasTools = (tools?.length ?? 0) > 0;
  if (!hasTools && value !== 'none') problems.error('tool_choice', "'tool_choice' is only allowed when 'tools' are specified", 'tool_choice');
  if (value === 'auto' || value === 'none' || value === 'required') return { choice: value };
  if (isRecord(value) && value['type'] === 'function' && isRecord(value['function']) && typeof value['function']['name'] === 'string') {
    const name = value['function']['name'];
    if (tools && !tools.some((t) => t.name === name)) problems.error('tool_choice', `tool_choice names ${JSON.stringify(name)}, which is not among the tools`, 'tool_choice');
    return { choice: 'required', wire: value };
  }
  problems.error('tool_choice', `tool_choice ${JSON.stringify(value)} is not 'auto', 'none', 'required' or {type:'function', function:{name}}`, 'tool_choice');
  return { wire: value };
}

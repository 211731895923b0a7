/**
 * The Anthropic Messages wire format (`POST /v1/messages`), as its published API reference
 * describes it: a top-level `system` (string or text blocks), `messages` of `user`/`assistant` turns
 * whose content is a string or blocks (`text`, `tool_use {id, name, input}` with `input` an object,
 * `tool_result {tool_use_id, content, is_error}`, `thinking`), `tools: [{name, description,
 * input_schema}]`, `tool_choice {type: auto|any|tool|none}`, required `max_tokens` and
 * `anthropic-version` header; replies are `message` objects with content blocks, `stop_reason` and
 * `usage` (`input_tokens`, `output_tokens`, `cache_read_input_tokens`,
 * `cache_creation_input_tokens`); streams are SSE events `message_start`, `content_block_start` /
 * `content_block_delta` (`text_delta`, `thinking_delta`, `signature_delta`, `input_json_delta`) /
 * `content_block_stop`, `message_delta`, `message_stop` (and `ping`, `error`); errors are
 * `{type:'error', error:{type, message}}`.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { createHash } from 'node:crypto';
import type { CrystalResponse, Message, ToolCall, ToolChoice, ToolDefinition } from '../../schemas/records.ts';
import { header, sameKey } from './auth.ts';
import { callsOf, count, wireCallId, type ParsedRequest, type ReplyContext, type WireCodec } from './codec.ts';
import { cutText, isRecord, ProblemList, sseFrame, textOfParts } from './wire-util.ts';

const STRUCTURE = new Set(['model', 'messages', 'system', 'tools', 'tool_choice', 'stream', 'stop_sequences']);
const TRANSPORT = new Set(['metadata', 'service_tier', 'container', 'mcp_servers']);

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};
const KNOWN_TYPES = new Set(Object.values(ERROR_TYPES));

const STOP: Record<string, string> = { stop: 'end_turn', length: 'max_tokens', tool_calls: 'tool_use', content_filter: 'refusal' };

type Block = Record<string, unknown>;

export const anthropicCodec: WireCodec = {
  format: 'anthropic',
  requestIdHeader: 'request-id',

  auth(headers: IncomingHttpHeaders, key: string) {
    const value = header(headers, 'x-api-key');
    if (value === undefined || value === '') return 'missing';
    return sameKey(value, key) ? 'ok' : 'wrong';
  },

  authError(kind: 'missing' | 'wrong') {
    return { status: 401, body: this.errorBody(401, kind === 'missing' ? 'x-api-key header is required' : 'invalid x-api-key') };
  },

  modelNotFound(crystal: string) {
    return { status: 404, body: this.errorBody(404, `model: ${crystal}`) };
  },

  brokenStreamFrame: 'event: content_block_delta\ndata: {"type": "content_block_delta", "index": 0, "delta": {\n\n',
  closingFrames: [],
  responseId: (n: number) => `msg_${String(n).padStart(6, '0')}`,

  parse(body: unknown, headers: IncomingHttpHeaders, problems: ProblemList): ParsedRequest {
    const none: ParsedRequest = { stream: false, wireOptions: {}, includeUsage: true };
    if (!isRecord(body)) return { ...none, fatal: 'the request body is not a JSON object' };
    const stream = body['stream'] === true;
    const base = { ...none, stream };
    if (typeof body['model'] !== 'string' || body['model'] === '') return { ...base, fatal: 'model: Field required' };
    const crystal = body['model'];
    if (!Array.isArray(body['messages'])) return { ...base, crystal, fatal: 'messages: Field required' };
    if (body['messages'].length === 0) return { ...base, crystal, fatal: 'messages: at least one message is required' };
    if (header(headers, 'anthropic-version') === undefined) problems.error('header', 'the anthropic-version header is required', 'headers');
    const maxTokens = body['max_tokens'];
    if (maxTokens === undefined) problems.error('missing_field', 'max_tokens: Field required', 'max_tokens');
    else if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1) problems.error('field_type', 'max_tokens must be a positive integer', 'max_tokens');
    if (body['stream'] !== undefined && typeof body['stream'] !== 'boolean') problems.error('field_type', "'stream' must be a boolean", 'stream');

    const messages: Message[] = [...readSystem(body['system'], problems), ...readTurns(body['messages'], problems)];
    const tools = readTools(body['tools'], problems);
    const { choice, wire } = readToolChoice(body['tool_choice'], tools, problems);
    const hyperparameters: Record<string, unknown> = {};
    const wireOptions: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(body)) {
      if (STRUCTURE.has(k)) continue;
      if (TRANSPORT.has(k)) wireOptions[k] = v;
      else hyperparameters[k] = v;
    }
    // The contract calls stop sequences `stop`; the Messages API calls them `stop_sequences`.
    if (body['stop_sequences'] !== undefined) {
      if (!Array.isArray(body['stop_sequences']) || !body['stop_sequences'].every((s) => typeof s === 'string')) {
        problems.error('field_type', 'stop_sequences must be an array of strings', 'stop_sequences');
      }
      hyperparameters['stop'] = body['stop_sequences'];
    }
    return {
      crystal,
      stream,
      includeUsage: true,
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
    const type = code !== undefined && KNOWN_TYPES.has(code) ? code : (ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error'));
    return { type: 'error', error: { type, message } };
  },

  overflow(message: string, numbers: { tokens?: number; limit?: number }) {
    const text =
      numbers.limit !== undefined && numbers.tokens !== undefined
        ? `prompt is too long: ${numbers.tokens} tokens > ${numbers.limit} maximum`
        : `prompt is too long: ${message}`;
    return { status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: text } } };
  },

  replyBody(response: CrystalResponse, ctx: ReplyContext) {
    return {
      id: ctx.id,
      type: 'message',
      role: 'assistant',
      model: ctx.model,
      content: blocksOf(response, ctx),
      stop_reason: stopReason(response, ctx),
      stop_sequence: null,
      usage: wireUsage(response),
    };
  },

  wrongShapeBody(ctx: ReplyContext) {
    return { id: ctx.id, type: 'message', role: 'assistant', model: ctx.model, content: null, stop_reason: null };
  },

  streamFrames(response: CrystalResponse, ctx: ReplyContext) {
    const frames: string[] = [];
    const event = (type: string, data: Record<string, unknown>): void => {
      frames.push(sseFrame(JSON.stringify({ type, ...data }), type));
    };
    const usage = wireUsage(response);
    event('message_start', {
      message: {
        id: ctx.id,
        type: 'message',
        role: 'assistant',
        model: ctx.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: Math.min(1, usage['output_tokens'] as number) },
      },
    });
    event('ping', {});
    blocksOf(response, ctx).forEach((block, index) => {
      switch (block['type']) {
        case 'thinking':
          event('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
          for (const piece of cutText(String(block['thinking']), ctx.split.textChars)) event('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: piece } });
          event('content_block_delta', { index, delta: { type: 'signature_delta', signature: block['signature'] } });
          break;
        case 'text':
          event('content_block_start', { index, content_block: { type: 'text', text: '' } });
          for (const piece of cutText(String(block['text']), ctx.split.textChars)) event('content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
          break;
        case 'tool_use': {
          const { input, ...start } = block;
          event('content_block_start', { index, content_block: { ...start, input: {} } });
          // The input travels as JSON text; an input that was not an object goes out as it came.
          const json = typeof input === 'string' ? input : JSON.stringify(input);
          for (const piece of cutText(json, ctx.split.argumentChars)) event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } });
          break;
        }
      }
      event('content_block_stop', { index });
    });
    event('message_delta', { delta: { stop_reason: stopReason(response, ctx), stop_sequence: null }, usage: { output_tokens: usage['output_tokens'] } });
    event('message_stop', {});
    return frames;
  },

  streamErrorFrame(message: string, type: string | undefined) {
    return sseFrame(JSON.stringify({ type: 'error', error: { type: type ?? 'overloaded_error', message } }), 'error');
  },
};

/** The content blocks of a reply: thinking, then text, then tool_use. */
function blocksOf(response: CrystalResponse, ctx: ReplyContext): Block[] {
  const blocks: Block[] = [];
  if (typeof response.thinking === 'string' && response.thinking !== '') {
    blocks.push({ type: 'thinking', thinking: response.thinking, signature: signatureOf(response.thinking) });
  }
  if (typeof response.content === 'string') blocks.push({ type: 'text', text: response.content });
  for (const call of callsOf(response)) {
    const id = wireCallId(call, ctx.step);
    blocks.push({ type: 'tool_use', ...(id !== undefined && { id }), name: call.gate, input: inputOf(call) });
  }
  return blocks;
}

/**
 * `tool_use.input` is an object on this wire. Arguments that do not parse as JSON (a script's
 * `arguments_raw`) go out as the raw string: what a broken provider would send, which a client must
 * not silently repair.
 */
function inputOf(call: ToolCall): unknown {
  if (typeof call.arguments !== 'string') return call.arguments ?? {};
  try {
    return JSON.parse(call.arguments) as unknown;
  } catch {
    return call.arguments;
  }
}

function signatureOf(thinking: string): string {
  return createHash('sha256').update(thinking).digest('base64');
}

function stopReason(response: CrystalResponse, ctx: ReplyContext): string {
  if (ctx.step?.finish_reason !== undefined) return ctx.step.finish_reason;
  const declared = response.metadata?.['finish_reason'];
  if (typeof declared === 'string' && STOP[declared]) return STOP[declared]!;
  return callsOf(response).length > 0 ? 'tool_use' : 'end_turn';
}

/** `input_tokens` counts only what was not read from the cache; the contract's prompt is the whole. */
function wireUsage(response: CrystalResponse): Record<string, unknown> {
  const prompt = count(response.usage?.prompt);
  const cached = Math.min(count(response.usage?.cached), prompt);
  return {
    input_tokens: prompt - cached,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
    output_tokens: count(response.usage?.completion),
  };
}

function readSystem(value: unknown, problems: ProblemList): Message[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return [{ role: 'system', content: value }];
  if (!Array.isArray(value)) {
    problems.error('content_type', 'system must be a string or an array of text blocks', 'system');
    return [];
  }
  const out: Message[] = [];
  value.forEach((block, i) => {
    if (isRecord(block) && block['type'] === 'text' && typeof block['text'] === 'string') out.push({ role: 'system', content: block['text'] });
    else problems.error('content_type', `system[${i}] is not a text block`, `system[${i}]`);
  });
  return out;
}

interface Turn {
  role: 'user' | 'assistant';
  /** Index of each block's message, and the block's index there, for problem locations. */
  blocks: Array<{ block: unknown; at: string }>;
  first: number;
}

/**
 * Reads the turns. Consecutive messages of one role form one turn, as the API combines them (noted).
 * A user turn that follows an assistant turn with tool_use blocks must open with a tool_result for
 * each of them, and every tool_result must answer a tool_use of the assistant turn right before.
 */
function readTurns(list: unknown[], problems: ProblemList): Message[] {
  const turns: Turn[] = [];
  list.forEach((raw, i) => {
    const at = `messages[${i}]`;
    if (!isRecord(raw)) {
      problems.error('message_shape', `${at} is not an object`, at);
      return;
    }
    const role = raw['role'];
    if (role !== 'user' && role !== 'assistant') {
      problems.error('role', `${at}: role ${JSON.stringify(role)} is not 'user' or 'assistant'${role === 'system' ? ' (the system prompt goes in the top-level system field)' : ''}`, `${at}.role`);
      return;
    }
    const content = raw['content'];
    let blocks: Array<{ block: unknown; at: string }>;
    if (typeof content === 'string') blocks = [{ block: { type: 'text', text: content }, at: `${at}.content` }];
    else if (Array.isArray(content)) blocks = content.map((block, j) => ({ block, at: `${at}.content[${j}]` }));
    else {
      problems.error('content_type', `${at}: content must be a string or an array of blocks`, `${at}.content`);
      blocks = [];
    }
    const last = turns[turns.length - 1];
    if (last && last.role === role) {
      problems.note('consecutive_role', `${at}: a second ${role} message in a row (roles should alternate; the API combines consecutive turns)`, at);
      last.blocks.push(...blocks);
    } else {
      turns.push({ role, blocks, first: i });
    }
  });
  if (turns[0] && turns[0].role !== 'user') problems.note('role_order', 'the first message is not a user message', 'messages[0]');

  const messages: Message[] = [];
  const seenIds = new Set<string>();
  let pending: { first: number; ids: string[] } | undefined;
  for (const turn of turns) {
    if (turn.role === 'assistant') {
      if (pending) problems.error('tool_call_unanswered', toolUseUnanswered(pending.ids, pending.first), `messages[${pending.first}]`);
      pending = undefined;
      const message = readAssistant(turn, problems, seenIds);
      messages.push(message);
      const ids = (message.tool_calls ?? []).map((c) => c.id).filter((id) => id !== '');
      if (ids.length > 0) pending = { first: turn.first, ids };
    } else {
      messages.push(...readUser(turn, pending, problems));
      pending = undefined;
    }
  }
  // The last turn is an assistant turn that called tools: nothing answers them.
  if (pending) problems.error('tool_call_unanswered', toolUseUnanswered(pending.ids, pending.first), `messages[${pending.first}]`);
  return messages;
}

function toolUseUnanswered(ids: string[], index: number): string {
  return `messages[${index}]: tool_use ids were found without tool_result blocks immediately after: ${ids.join(', ')}. Each tool_use block must have a corresponding tool_result block in the next message.`;
}

function readAssistant(turn: Turn, problems: ProblemList, seenIds: Set<string>): Message {
  const texts: string[] = [];
  const calls: ToolCall[] = [];
  for (const { block, at } of turn.blocks) {
    if (!isRecord(block)) {
      problems.error('content_type', `${at} is not a block`, at);
      continue;
    }
    switch (block['type']) {
      case 'text':
        if (typeof block['text'] === 'string') texts.push(block['text']);
        else problems.error('content_type', `${at}: a text block needs a string text`, at);
        break;
      case 'tool_use': {
        const id = block['id'];
        if (typeof id !== 'string' || id === '') problems.error('tool_call_id', `${at}: a tool_use block needs a non-empty id`, `${at}.id`);
        else if (seenIds.has(id)) problems.error('duplicate_tool_call_id', `${at}: tool_use id ${JSON.stringify(id)} was used by an earlier block`, `${at}.id`);
        else seenIds.add(id);
        if (typeof block['name'] !== 'string') {
          problems.error('tool_call_shape', `${at}: a tool_use block needs a name`, `${at}.name`);
          break;
        }
        const input = block['input'];
        let args: string;
        if (isRecord(input)) args = JSON.stringify(input);
        else {
          problems.error('arguments_type', `${at}: tool_use input must be an object, not ${Array.isArray(input) ? 'an array' : input === null ? 'null' : typeof input}`, `${at}.input`);
          args = typeof input === 'string' ? input : JSON.stringify(input ?? {});
        }
        calls.push({ id: typeof id === 'string' ? id : '', gate: block['name'], arguments: args });
        break;
      }
      case 'tool_result':
        problems.error('tool_result_position', `${at}: a tool_result block in an assistant message`, at);
        break;
      case 'thinking':
      case 'redacted_thinking':
        break; // carried for the provider; the contract has no place for them
      default:
        problems.note('unsupported_content', `${at}: a block of type ${JSON.stringify(block['type'])} is ignored`, at);
    }
  }
  const message: Message = { role: 'assistant', content: texts.length > 0 ? texts.join('') : null };
  if (calls.length > 0) message.tool_calls = calls;
  return message;
}

/** A user turn: its tool_result blocks become tool messages, each text block a user message. */
function readUser(turn: Turn, pending: { first: number; ids: string[] } | undefined, problems: ProblemList): Message[] {
  const out: Message[] = [];
  const answered = new Set<string>();
  let sawOther = false;
  for (const { block, at } of turn.blocks) {
    if (!isRecord(block)) {
      problems.error('content_type', `${at} is not a block`, at);
      continue;
    }
    if (block['type'] === 'tool_result') {
      const id = block['tool_use_id'];
      if (sawOther) problems.error('tool_result_position', `${at}: tool_result blocks must come first in the user message, before any other content`, at);
      if (typeof id !== 'string' || id === '') {
        problems.error('tool_result_unmatched', `${at}: a tool_result block needs a tool_use_id`, `${at}.tool_use_id`);
      } else if (!pending || !pending.ids.includes(id)) {
        problems.error(
          'tool_result_unmatched',
          `${at}: unexpected tool_use_id ${JSON.stringify(id)} in tool_result blocks: each tool_result block must have a corresponding tool_use block in the previous message`,
          `${at}.tool_use_id`,
        );
      } else if (answered.has(id)) {
        problems.error('tool_result_duplicate', `${at}: tool_use_id ${JSON.stringify(id)} is answered twice`, `${at}.tool_use_id`);
      } else {
        answered.add(id);
      }
      const { text } = textOfParts(block['content'], `${at}.content`, problems, 'block');
      out.push({ role: 'tool', content: text ?? '', ...(typeof id === 'string' && { tool_call_id: id }) });
      continue;
    }
    sawOther = true;
    if (block['type'] === 'text') {
      if (typeof block['text'] === 'string') out.push({ role: 'user', content: block['text'] });
      else problems.error('content_type', `${at}: a text block needs a string text`, at);
    } else if (block['type'] === 'tool_use') {
      problems.error('role', `${at}: a tool_use block in a user message`, at);
    } else {
      problems.note('unsupported_content', `${at}: a block of type ${JSON.stringify(block['type'])} is ignored`, at);
    }
  }
  if (pending) {
    const missing = pending.ids.filter((id) => !answered.has(id));
    if (missing.length > 0) problems.error('tool_call_unanswered', toolUseUnanswered(missing, pending.first), `messages[${pending.first}]`);
  }
  return out;
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
    if (!isRecord(raw) || typeof raw['name'] !== 'string') {
      problems.error('tool_definition', `${at}: needs a name`, at);
      return;
    }
    if (raw['type'] !== undefined && raw['type'] !== 'custom') {
      problems.note('tool_definition', `${at}: a server tool of type ${JSON.stringify(raw['type'])} is not a gate and is ignored`, at);
      return;
    }
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(raw['name'])) problems.error('tool_definition', `${at}: name must match ^[a-zA-Z0-9_-]{1,64}$`, `${at}.name`);
    const schema = raw['input_schema'];
    if (!isRecord(schema)) problems.error('tool_definition', `${at}: input_schema is required and must be a JSON Schema object`, `${at}.input_schema`);
    else if (schema['type'] !== 'object') problems.error('tool_definition', `${at}: input_schema.type must be 'object'`, `${at}.input_schema.type`);
    tools.push({
      name: raw['name'],
      description: typeof raw['description'] === 'string' ? raw['description'] : '',
      parameters: isRecord(schema) ? schema : { type: 'object', properties: {} },
    });
  });
  return tools;
}

function readToolChoice(value: unknown, tools: ToolDefinition[] | undefined, problems: ProblemList): { choice?: ToolChoice; wire?: unknown } {
  if (value === undefined) return {};
  if (!isRecord(value)) {
    problems.error('tool_choice', 'tool_choice must be an object {type: auto|any|tool|none}', 'tool_choice');
    return { wire: value };
  }
  const hasTools = (tools?.length ?? 0) > 0;
  switch (value['type']) {
    case 'auto':
      return { choice: 'auto' };
    case 'none':
      return { choice: 'none' };
    case 'any':
      if (!hasTools) problems.error('tool_choice', "tool_choice {type:'any'} needs tools", 'tool_choice');
      return { choice: 'required' };
    case 'tool': {
      const name = value['name'];
      if (typeof name !== 'string' || !tools?.some((t) => t.name === name)) {
        problems.error('tool_choice', `tool_choice {type:'tool'} names ${JSON.stringify(name)}, which is not among the tools`, 'tool_choice.name');
      }
      return { choice: 'required', wire: value };
    }
    default:
      problems.error('tool_choice', `tool_choice type ${JSON.stringify(value['type'])} is not auto, any, tool or none`, 'tool_choice.type');
      return { wire: value };
  }
}

/**
 * The Gemini API wire format (`POST /v1beta/models/{model}:generateContent`, and
 * `:streamGenerateContent`, as SSE with `alt=sse` or else as one JSON array), as its published API
 * reference describes it: the model and the method in the path; `contents` of `user`/`model` turns
 * made of `parts` (`text`, `thought`, `functionCall {id?, name, args}`, `functionResponse {id?, name,
 * response}`); `systemInstruction`; `tools: [{functionDeclarations: [{name, description, parameters |
 * parametersJsonSchema}]}]`; `toolConfig.functionCallingConfig {mode: AUTO|ANY|NONE|VALIDATED,
 * allowedFunctionNames}`; sampling in `generationConfig`; the key in `x-goog-api-key` or the `key`
 * query parameter. Replies are `GenerateContentResponse` objects (`candidates[0].content.parts`,
 * `finishReason`, `usageMetadata` with `promptTokenCount`, `candidatesTokenCount`,
 * `cachedContentTokenCount`, `totalTokenCount`; `promptFeedback` when blocked); errors are
 * `{error: {code, message, status}}` with the canonical status names.
 *
 * Gemini clients usually send the calls of earlier model turns back without ids, so reading a request
 * back recovers each call's id from the calls the server served to that crystal (by name and
 * arguments, in order), and links each `functionResponse` to a call of the model turn right before
 * it (by id when given, else by name in order).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { CrystalResponse, Message, ToolCall, ToolChoice, ToolDefinition } from '../../schemas/records.ts';
import { header, sameKey } from './auth.ts';
import { callsOf, count, wireCallId, type ParsedRequest, type ReplyContext, type RequestTarget, type ServedCalls, type WireCodec } from './codec.ts';
import { deepEqual as deepEqualJson } from '../values/index.ts';
import { cutText, isRecord, ProblemList } from './wire-util.ts';

/** HTTP status → the canonical status name Gemini puts in `error.status`. */
const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  413: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'NOT_IMPLEMENTED',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};
const KNOWN_STATUSES = new Set([...Object.values(STATUS_NAMES), 'FAILED_PRECONDITION', 'OUT_OF_RANGE', 'UNKNOWN', 'DATA_LOSS', 'ALREADY_EXISTS']);
const STATUS_CODES: Record<string, number> = Object.fromEntries(Object.entries(STATUS_NAMES).map(([code, name]) => [name, Number(code)]));

const FINISH: Record<string, string> = { stop: 'STOP', tool_calls: 'STOP', length: 'MAX_TOKENS', content_filter: 'SAFETY' };

/** `generationConfig` names (lowerCamel, as the reference spells them; proto JSON also accepts snake_case). */
const GENERATION_FIELDS = new Set([
  'stopSequences', 'responseMimeType', 'responseSchema', 'responseJsonSchema', 'responseModalities', 'candidateCount',
  'maxOutputTokens', 'temperature', 'topP', 'topK', 'seed', 'presencePenalty', 'frequencyPenalty', 'responseLogprobs',
  'logprobs', 'enableEnhancedCivicAnswers', 'speechConfig', 'thinkingConfig', 'imageConfig', 'mediaResolution',
]);
/** Gemini's names for the contract's hyperparameters, read back into the contract's (CALL-2). */
const HYPERPARAMETER_NAMES: Record<string, string> = {
  topP: 'top_p',
  topK: 'top_k',
  maxOutputTokens: 'max_tokens',
  stopSequences: 'stop',
  presencePenalty: 'presence_penalty',
  frequencyPenalty: 'frequency_penalty',
};
/** Top-level request fields that are the request's structure. */
const STRUCTURE = new Set(['contents', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig', 'model']);
/** Top-level fields that steer the transport or the account, kept apart from hyperparameters. */
const TRANSPORT = new Set(['safetySettings', 'cachedContent', 'labels', 'serviceTier', 'store']);

type Part = Record<string, unknown>;

export const geminiCodec: WireCodec = {
  format: 'gemini',

  auth(headers: IncomingHttpHeaders, key: string, query: URLSearchParams) {
    const presented = [header(headers, 'x-goog-api-key'), query.get('key') ?? undefined].filter((v): v is string => v !== undefined && v !== '');
    if (presented.length === 0) return 'missing';
    return presented.every((value) => sameKey(value, key)) ? 'ok' : 'wrong';
  },

  authError(kind: 'missing' | 'wrong') {
    if (kind === 'missing') {
      return { status: 403, body: this.errorBody(403, 'The request is missing a valid API key: send it in the x-goog-api-key header or the key query parameter.') };
    }
    const body = {
      error: {
        code: 400,
        message: 'API key not valid. Please pass a valid API key.',
        status: 'INVALID_ARGUMENT',
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }],
      },
    };
    return { status: 400, body };
  },

  modelNotFound(crystal: string) {
    return { status: 404, body: this.errorBody(404, `models/${crystal} is not found for API version v1beta, or is not supported for generateContent.`) };
  },

  parse(body: unknown, _headers: IncomingHttpHeaders, problems: ProblemList, target: RequestTarget): ParsedRequest {
    const route = /\/(?:models|tunedModels)\/([^/]+):(generateContent|streamGenerateContent)\/?$/.exec(target.path);
    const crystal = route?.[1];
    const stream = route?.[2] === 'streamGenerateContent';
    const streamArray = stream && target.query.get('alt') !== 'sse';
    const base: ParsedRequest = { stream, wireOptions: {}, includeUsage: true, ...(crystal !== undefined && { crystal }), ...(streamArray && { streamArray }) };
    if (crystal === undefined || crystal === '') return { ...base, fatal: 'the path names no model (.../models/{model}:generateContent)' };
    if (!isRecord(body)) return { ...base, fatal: 'Invalid JSON payload received: the request body is not a JSON object' };
    if (streamArray) problems.note('stream_framing', 'streamGenerateContent without alt=sse: the chunks come as one JSON array, not as server-sent events', 'query.alt');
    const contents = body['contents'];
    if (!Array.isArray(contents) || contents.length === 0) return { ...base, fatal: '* GenerateContentRequest.contents: contents is not specified' };
    if (body['model'] !== undefined && body['model'] !== crystal && body['model'] !== `models/${crystal}`) {
      problems.note('model', `the body names model ${JSON.stringify(body['model'])}, the path ${JSON.stringify(crystal)}; the path decides`, 'model');
    }
    const messages: Message[] = [...readSystem(field(body, 'systemInstruction'), problems), ...readContents(contents, problems, target.served(crystal), target.served())];
    const tools = readTools(field(body, 'tools'), problems);
    const { choice, wire } = readToolConfig(field(body, 'toolConfig'), tools, problems);
    const hyperparameters = readGenerationConfig(field(body, 'generationConfig'), problems);
    const wireOptions: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(body)) {
      const name = camel(k);
      if (STRUCTURE.has(name)) continue;
      wireOptions[k] = v;
      if (!TRANSPORT.has(name)) problems.error('unknown_field', `Invalid JSON payload received. Unknown name ${JSON.stringify(k)}: Cannot find field.`, k);
    }
    return {
      ...base,
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

  errorBody(status: number, message: string, code?: string, extra?: { retryAfter?: number | string }) {
    const name = code !== undefined && KNOWN_STATUSES.has(code) ? code : (STATUS_NAMES[status] ?? (status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION'));
    const error: Record<string, unknown> = { code: status, message, status: name };
    // Gemini says how long to wait in the body (google.rpc.RetryInfo), not in a retry-after header.
    if (typeof extra?.retryAfter === 'number') error['details'] = [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${extra.retryAfter}s` }];
    return { error };
  },

  overflow(message: string, numbers: { tokens?: number; limit?: number }) {
    const text =
      numbers.limit !== undefined && numbers.tokens !== undefined
        ? `The input token count (${numbers.tokens}) exceeds the maximum number of tokens allowed (${numbers.limit}).`
        : `The input token count exceeds the maximum number of tokens allowed (${message}).`;
    return { status: 400, body: { error: { code: 400, message: text, status: 'INVALID_ARGUMENT' } } };
  },

  replyBody(response: CrystalResponse, ctx: ReplyContext) {
    return chunk(ctx, [...thoughtParts(response), ...textParts(response), ...callParts(response, ctx)], finishReason(response, ctx), usageOf(response));
  },

  wrongShapeBody(ctx: ReplyContext) {
    return { candidates: [], modelVersion: ctx.model, responseId: ctx.id };
  },

  streamFrames(response: CrystalResponse, ctx: ReplyContext) {
    const groups: Part[][] = [];
    if (typeof response.thinking === 'string' && response.thinking !== '') {
      for (const piece of cutText(response.thinking, ctx.split.textChars)) groups.push([{ text: piece, thought: true }]);
    }
    if (typeof response.content === 'string' && response.content !== '') {
      for (const piece of cutText(response.content, ctx.split.textChars)) groups.push([{ text: piece }]);
    }
    // Gemini streams each function call whole; the byte-level split still cuts inside its arguments.
    const calls = callParts(response, ctx);
    if (calls.length > 0) groups.push(calls);
    if (groups.length === 0) groups.push([]);
    const bodies = groups.map((parts, i) => (i === groups.length - 1 ? chunk(ctx, parts, finishReason(response, ctx), usageOf(response)) : chunk(ctx, parts)));
    return frames(bodies.map((b) => JSON.stringify(b)), ctx.streamArray === true);
  },

  streamErrorFrame(message: string, type: string | undefined) {
    const name = type !== undefined && KNOWN_STATUSES.has(type) ? type : 'UNAVAILABLE';
    return `data: ${JSON.stringify({ error: { code: STATUS_CODES[name] ?? 500, message, status: name } })}\r\n\r\n`;
  },

  brokenStreamFrame: 'data: {"candidates": [{"content": {"parts": [\r\n\r\n',
  closingFrames: [],
  responseId: (n: number) => `resp-${n}`,
};

/** SSE frames (`data: ...` and a blank line, CRLF as Gemini sends them), or the pieces of one JSON array. */
function frames(jsons: string[], asArray: boolean): string[] {
  if (!asArray) return jsons.map((j) => `data: ${j}\r\n\r\n`);
  return [...jsons.map((j, i) => `${i === 0 ? '[' : ',\r\n'}${j}`), ']'];
}

function chunk(ctx: ReplyContext, parts: Part[], finish?: string, usage?: Record<string, number>): Record<string, unknown> {
  return {
    candidates: [{ content: { role: 'model', parts }, ...(finish !== undefined && { finishReason: finish }), index: 0 }],
    ...(usage !== undefined && { usageMetadata: usage }),
    modelVersion: ctx.model,
    responseId: ctx.id,
  };
}

function thoughtParts(response: CrystalResponse): Part[] {
  return typeof response.thinking === 'string' && response.thinking !== '' ? [{ text: response.thinking, thought: true }] : [];
}

function textParts(response: CrystalResponse): Part[] {
  return typeof response.content === 'string' ? [{ text: response.content }] : [];
}

/**
 * `functionCall` parts. The id goes out in `functionCall.id` (a field of the API reference), so a
 * case's ids reach the client; `tool_call_ids: omit` leaves it out, as most Gemini models do.
 * Arguments that do not parse go out as the raw string: a broken provider, not to be repaired.
 */
function callParts(response: CrystalResponse, ctx: ReplyContext): Part[] {
  return callsOf(response).map((call) => {
    const id = wireCallId(call, ctx.step);
    return { functionCall: { ...(id !== undefined && { id }), name: call.gate, args: argsOf(call) } };
  });
}

function argsOf(call: ToolCall): unknown {
  if (typeof call.arguments !== 'string') return call.arguments ?? {};
  try {
    return JSON.parse(call.arguments) as unknown;
  } catch {
    return call.arguments;
  }
}

function finishReason(response: CrystalResponse, ctx: ReplyContext): string {
  if (ctx.step?.finish_reason !== undefined) return ctx.step.finish_reason;
  const declared = response.metadata?.['finish_reason'];
  if (typeof declared === 'string' && FINISH[declared]) return FINISH[declared]!;
  return 'STOP';
}

/**
 * `promptTokenCount` includes the cached tokens, which `cachedContentTokenCount` also reports (as the
 * reference says of cached content). Zero counts are left out, as proto JSON leaves out defaults.
 */
function usageOf(response: CrystalResponse): Record<string, number> {
  const prompt = count(response.usage?.prompt);
  const completion = count(response.usage?.completion);
  const cached = Math.min(count(response.usage?.cached), prompt);
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: completion,
    totalTokenCount: prompt + completion,
    ...(cached > 0 && { cachedContentTokenCount: cached }),
  };
}

/** A field under its lowerCamel name or its snake_case one (proto JSON accepts both). */
function field(body: Record<string, unknown>, name: string): unknown {
  return body[name] !== undefined ? body[name] : body[snake(name)];
}

function snake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function camel(name: string): string {
  return name.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
}

function readSystem(value: unknown, problems: ProblemList): Message[] {
  if (value === undefined || value === null) return [];
  if (!isRecord(value) || !Array.isArray(value['parts'])) {
    problems.error('content_type', 'systemInstruction must be a Content object with parts', 'systemInstruction');
    return [];
  }
  const out: Message[] = [];
  value['parts'].forEach((part, i) => {
    if (isRecord(part) && typeof part['text'] === 'string') out.push({ role: 'system', content: part['text'] });
    else problems.error('content_type', `systemInstruction.parts[${i}] is not a text part`, `systemInstruction.parts[${i}]`);
  });
  return out;
}

interface Turn {
  role: 'user' | 'model';
  parts: Array<{ part: unknown; at: string }>;
  first: number;
}

/** A call of a model turn while its answers are read. */
interface OpenCall {
  id: string;
  name: string;
  answered: boolean;
}

/**
 * Reads the contents. Turns must alternate between `user` and `model` (two in a row are an error, and
 * read as one turn); a model turn with function calls must follow a user turn, and the next turn must
 * answer every call with a `functionResponse`, each answering a call of that model turn.
 */
function readContents(list: unknown[], problems: ProblemList, served: readonly ServedCalls[], servedToAll: readonly ServedCalls[]): Message[] {
  const turns: Turn[] = [];
  list.forEach((raw, i) => {
    const at = `contents[${i}]`;
    if (!isRecord(raw)) {
      problems.error('message_shape', `${at} is not a Content object`, at);
      return;
    }
    let role = raw['role'];
    if (role === undefined) {
      problems.note('role', `${at} has no role; it reads as a user turn (a conversation should name every role)`, `${at}.role`);
      role = 'user';
    } else if (role === 'function') {
      problems.note('role', `${at}: role 'function' is the old name for a turn of function responses; it reads as a user turn`, `${at}.role`);
      role = 'user';
    }
    if (role !== 'user' && role !== 'model') {
      problems.error('role', `${at}: role ${JSON.stringify(role)} is not 'user' or 'model'${role === 'assistant' ? " (Gemini calls the assistant 'model')" : ''}`, `${at}.role`);
      return;
    }
    const parts = raw['parts'];
    if (!Array.isArray(parts) || parts.length === 0) {
      problems.error('content_type', `${at}: parts must be a non-empty array`, `${at}.parts`);
    }
    const entries = Array.isArray(parts) ? parts.map((part, j) => ({ part, at: `${at}.parts[${j}]` })) : [];
    const last = turns[turns.length - 1];
    if (last && last.role === role) {
      problems.error('consecutive_role', `${at}: a second ${role} turn in a row; user and model turns must alternate`, at);
      last.parts.push(...entries);
    } else {
      turns.push({ role, parts: entries, first: i });
    }
  });
  if (turns[0] && turns[0].role !== 'user') problems.note('role_order', 'the first turn is not a user turn', 'contents[0]');

  const messages: Message[] = [];
  const seenIds = new Set<string>();
  let servedFrom = 0;
  let allFrom = 0;
  let open: { first: number; calls: OpenCall[] } | undefined;
  turns.forEach((turn, t) => {
    if (turn.role === 'model') {
      if (open) problems.error('tool_call_unanswered', unanswered(open), `contents[${open.first}]`);
      open = undefined;
      const read = readModelTurn(turn, problems);
      if (read.calls.length > 0 && turns[t - 1]?.role !== 'user') {
        problems.error('role_order', `contents[${turn.first}]: a function call turn must come right after a user turn or a turn of function responses`, `contents[${turn.first}]`);
      }
      // This crystal's calls first; then any crystal's (a fork that moved the conversation to this one).
      let recovered = recoverIds(read.calls, served, servedFrom);
      if (recovered.next !== undefined) servedFrom = recovered.next;
      else {
        recovered = recoverIds(read.calls, servedToAll, allFrom);
        if (recovered.next !== undefined) allFrom = recovered.next;
      }
      const calls: ToolCall[] = read.calls.map((c, j) => {
        const id = c.id ?? recovered.ids[j] ?? `gemini-unserved-${turn.first}-${j}`;
        if (c.id === undefined && recovered.ids[j] === undefined) {
          problems.note('call_not_served', `${c.at}: functionCall ${JSON.stringify(c.name)} matches no call this server served to the model, so its id is made up`, c.at);
        }
        if (c.id !== undefined) {
          if (seenIds.has(c.id)) problems.error('duplicate_tool_call_id', `${c.at}: id ${JSON.stringify(c.id)} was used by an earlier functionCall`, `${c.at}.functionCall.id`);
          seenIds.add(c.id);
        }
        return { id, gate: c.name, arguments: c.arguments };
      });
      const message: Message = { role: 'assistant', content: read.texts.length > 0 ? read.texts.join('') : null };
      if (calls.length > 0) {
        message.tool_calls = calls;
        open = { first: turn.first, calls: calls.map((c) => ({ id: c.id, name: c.gate, answered: false })) };
      }
      messages.push(message);
    } else {
      messages.push(...readUserTurn(turn, open, problems));
      if (open && open.calls.some((c) => !c.answered)) problems.error('tool_call_unanswered', unanswered(open), `contents[${open.first}]`);
      open = undefined;
    }
  });
  if (open) problems.error('tool_call_unanswered', unanswered(open), `contents[${open.first}]`);
  return messages;
}

function unanswered(open: { first: number; calls: OpenCall[] }): string {
  const missing = open.calls.filter((c) => !c.answered).map((c) => c.name);
  return `contents[${open.first}]: the number of function response parts must equal the number of function call parts of the function call turn; no functionResponse in the next turn for ${missing.map((n) => JSON.stringify(n)).join(', ')}`;
}

interface ReadCall {
  id?: string;
  name: string;
  args: unknown;
  arguments: string;
  at: string;
}

function readModelTurn(turn: Turn, problems: ProblemList): { texts: string[]; calls: ReadCall[] } {
  const texts: string[] = [];
  const calls: ReadCall[] = [];
  for (const { part, at } of turn.parts) {
    if (!isRecord(part)) {
      problems.error('content_type', `${at} is not a Part object`, at);
      continue;
    }
    const fc = part['functionCall'] ?? part['function_call'];
    if (fc !== undefined) {
      if (!isRecord(fc) || typeof fc['name'] !== 'string' || fc['name'] === '') {
        problems.error('tool_call_shape', `${at}: functionCall needs a name`, `${at}.functionCall`);
        continue;
      }
      const args = fc['args'];
      let text: string;
      if (args === undefined || isRecord(args)) text = JSON.stringify(args ?? {});
      else {
        problems.error('arguments_type', `${at}: functionCall.args must be an object, not ${Array.isArray(args) ? 'an array' : args === null ? 'null' : typeof args}`, `${at}.functionCall.args`);
        text = typeof args === 'string' ? args : JSON.stringify(args);
      }
      const id = typeof fc['id'] === 'string' && fc['id'] !== '' ? fc['id'] : undefined;
      calls.push({ ...(id !== undefined && { id }), name: fc['name'], args: args ?? {}, arguments: text, at });
    } else if (part['functionResponse'] !== undefined || part['function_response'] !== undefined) {
      problems.error('tool_result_position', `${at}: a functionResponse in a model turn`, at);
    } else if (typeof part['text'] === 'string') {
      // Thought parts are the model's own; the contract has no place for them in a request.
      if (part['thought'] !== true) texts.push(part['text']);
    } else if (part['thoughtSignature'] === undefined) {
      problems.note('unsupported_content', `${at}: a part with ${JSON.stringify(Object.keys(part))} is ignored`, at);
    }
  }
  return { texts, calls };
}

/** A user turn: each functionResponse becomes a tool message linked to a call of the model turn before, each text part a user message. */
function readUserTurn(turn: Turn, open: { first: number; calls: OpenCall[] } | undefined, problems: ProblemList): Message[] {
  const out: Message[] = [];
  for (const { part, at } of turn.parts) {
    if (!isRecord(part)) {
      problems.error('content_type', `${at} is not a Part object`, at);
      continue;
    }
    const fr = part['functionResponse'] ?? part['function_response'];
    if (fr !== undefined) {
      if (!isRecord(fr) || typeof fr['name'] !== 'string') {
        problems.error('tool_result_shape', `${at}: functionResponse needs a name and a response`, `${at}.functionResponse`);
        continue;
      }
      const name = fr['name'];
      const givenId = typeof fr['id'] === 'string' && fr['id'] !== '' ? fr['id'] : undefined;
      let matched: OpenCall | undefined;
      if (!open) {
        problems.error('tool_result_unmatched', `${at}: a functionResponse for ${JSON.stringify(name)} does not follow a model turn with function calls`, at);
      } else if (givenId !== undefined) {
        matched = open.calls.find((c) => c.id === givenId);
        if (!matched) problems.error('tool_result_unmatched', `${at}: functionResponse id ${JSON.stringify(givenId)} answers no functionCall of contents[${open.first}]`, `${at}.functionResponse.id`);
        else if (matched.name !== name) problems.error('tool_result_unmatched', `${at}: functionResponse id ${JSON.stringify(givenId)} names ${JSON.stringify(name)}, its call ${JSON.stringify(matched.name)}`, `${at}.functionResponse.name`);
        else if (matched.answered) problems.error('tool_result_duplicate', `${at}: the call ${JSON.stringify(givenId)} is answered twice`, `${at}.functionResponse.id`);
      } else {
        matched = open.calls.find((c) => c.name === name && !c.answered);
        if (!matched) {
          const again = open.calls.some((c) => c.name === name);
          problems.error(again ? 'tool_result_duplicate' : 'tool_result_unmatched', `${at}: functionResponse ${JSON.stringify(name)} answers no ${again ? 'unanswered ' : ''}functionCall of contents[${open.first}]`, `${at}.functionResponse.name`);
        }
      }
      if (matched) matched.answered = true;
      const response = fr['response'];
      if (!isRecord(response)) problems.error('content_type', `${at}: functionResponse.response must be an object`, `${at}.functionResponse.response`);
      out.push({ role: 'tool', content: responseText(response), tool_call_id: matched?.id ?? givenId ?? '' });
      continue;
    }
    if (part['functionCall'] !== undefined || part['function_call'] !== undefined) {
      problems.error('role', `${at}: a functionCall in a user turn`, at);
    } else if (typeof part['text'] === 'string') {
      out.push({ role: 'user', content: part['text'] });
    } else {
      problems.note('unsupported_content', `${at}: a part with ${JSON.stringify(Object.keys(part))} is ignored`, at);
    }
  }
  return out;
}

/**
 * The text of a function response. The API takes any object (`output` and `error` are the keys it
 * suggests; clients often use `result`): an object with one string value gives that string, so a
 * gate result sent as `{result: text}` reads back as the text; anything else is its JSON.
 */
function responseText(response: unknown): string {
  if (typeof response === 'string') return response;
  if (isRecord(response)) {
    const values = Object.values(response);
    if (values.length === 1 && typeof values[0] === 'string') return values[0];
  }
  return JSON.stringify(response ?? null);
}

/**
 * The ids of a model turn's calls, from the first list of calls served (at or after `from`) that the
 * turn repeats: same names and arguments, else same names, else the turn's calls appear in it in
 * order. Calls the client gave ids keep them; the rest take the served ids by position.
 */
function recoverIds(calls: ReadCall[], served: readonly ServedCalls[], from: number): { ids: Array<string | undefined>; next?: number } {
  const missing = calls.filter((c) => c.id === undefined);
  if (missing.length === 0) return { ids: calls.map(() => undefined) };
  const tries: Array<(list: ServedCalls) => Array<string | undefined> | undefined> = [
    (list) => (list.length === calls.length && calls.every((c, j) => c.name === list[j]!.gate && sameArgs(c, list[j]!)) ? list.map((s) => s.id) : undefined),
    (list) => (list.length === calls.length && calls.every((c, j) => c.name === list[j]!.gate) ? list.map((s) => s.id) : undefined),
    (list) => {
      const ids: string[] = [];
      let k = 0;
      for (const c of calls) {
        while (k < list.length && !(list[k]!.gate === c.name && sameArgs(c, list[k]!))) k++;
        if (k === list.length) return undefined;
        ids.push(list[k++]!.id);
      }
      return ids;
    },
  ];
  for (const attempt of tries) {
    for (let i = from; i < served.length; i++) {
      const ids = attempt(served[i]!);
      if (ids) return { ids: ids.map((id) => (typeof id === 'string' && id !== '' ? id : undefined)), next: i + 1 };
    }
  }
  return { ids: calls.map(() => undefined) };
}

function sameArgs(call: ReadCall, served: ToolCall): boolean {
  if (typeof served.arguments !== 'string') return deepEqualJson(call.args, served.arguments);
  try {
    return deepEqualJson(call.args, JSON.parse(served.arguments) as unknown);
  } catch {
    return call.args === served.arguments;
  }
}

function readTools(value: unknown, problems: ProblemList): ToolDefinition[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) {
    problems.error('tool_definition', "'tools' must be an array of Tool objects", 'tools');
    return undefined;
  }
  const tools: ToolDefinition[] = [];
  value.forEach((tool, i) => {
    const at = `tools[${i}]`;
    if (!isRecord(tool)) {
      problems.error('tool_definition', `${at} is not a Tool object`, at);
      return;
    }
    const declarations = field(tool, 'functionDeclarations');
    for (const k of Object.keys(tool)) {
      if (camel(k) !== 'functionDeclarations') problems.note('tool_definition', `${at}.${k}: a built-in tool is not a gate and is ignored`, `${at}.${k}`);
    }
    if (declarations === undefined) return;
    if (!Array.isArray(declarations)) {
      problems.error('tool_definition', `${at}.functionDeclarations must be an array`, `${at}.functionDeclarations`);
      return;
    }
    declarations.forEach((raw, j) => {
      const where = `${at}.functionDeclarations[${j}]`;
      if (!isRecord(raw) || typeof raw['name'] !== 'string') {
        problems.error('tool_definition', `${where}: needs a name`, where);
        return;
      }
      // Letters, digits, underscores, colons, dots and dashes, starting with a letter or an underscore, at most 64.
      if (!/^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/.test(raw['name'])) problems.error('tool_definition', `${where}: name ${JSON.stringify(raw['name'])} is not a valid function name`, `${where}.name`);
      const schema = field(raw, 'parametersJsonSchema');
      const openapi = raw['parameters'];
      if (schema !== undefined && openapi !== undefined) problems.error('tool_definition', `${where}: parameters and parametersJsonSchema are mutually exclusive`, where);
      const params = schema !== undefined ? schema : openapi;
      if (params !== undefined && !isRecord(params)) problems.error('tool_definition', `${where}: the parameters must be a schema object`, `${where}.parameters`);
      tools.push({
        name: raw['name'],
        description: typeof raw['description'] === 'string' ? raw['description'] : '',
        parameters: isRecord(params) ? params : { type: 'object', properties: {} },
      });
    });
  });
  return tools;
}

const MODES: Record<string, ToolChoice> = { AUTO: 'auto', ANY: 'required', NONE: 'none', VALIDATED: 'auto' };

/** `toolConfig.functionCallingConfig`: AUTO → auto, ANY → required (forced), NONE → none; VALIDATED (may call, schema-checked) reads as auto. */
function readToolConfig(value: unknown, tools: ToolDefinition[] | undefined, problems: ProblemList): { choice?: ToolChoice; wire?: unknown } {
  if (value === undefined || value === null) return {};
  const config = isRecord(value) ? field(value, 'functionCallingConfig') : undefined;
  if (!isRecord(value) || (config !== undefined && !isRecord(config))) {
    problems.error('tool_choice', 'toolConfig must be {functionCallingConfig: {mode}}', 'toolConfig');
    return { wire: value };
  }
  if (config === undefined) return {};
  const fcc = config as Record<string, unknown>;
  const mode = fcc['mode'] ?? 'AUTO';
  const allowed = field(fcc, 'allowedFunctionNames');
  const hasTools = (tools?.length ?? 0) > 0;
  if (typeof mode !== 'string' || !(mode in MODES || mode === 'MODE_UNSPECIFIED')) {
    problems.error('tool_choice', `functionCallingConfig.mode ${JSON.stringify(mode)} is not AUTO, ANY, NONE or VALIDATED`, 'toolConfig.functionCallingConfig.mode');
    return { wire: value };
  }
  if ((mode === 'ANY' || mode === 'VALIDATED') && !hasTools) problems.error('tool_choice', `functionCallingConfig.mode ${mode} needs function declarations`, 'toolConfig.functionCallingConfig.mode');
  if (allowed !== undefined) {
    if (mode !== 'ANY' && mode !== 'VALIDATED') problems.error('tool_choice', 'allowedFunctionNames is only set with mode ANY or VALIDATED', 'toolConfig.functionCallingConfig.allowedFunctionNames');
    if (!Array.isArray(allowed) || !allowed.every((n) => typeof n === 'string' && (tools ?? []).some((t) => t.name === n))) {
      problems.error('tool_choice', `allowedFunctionNames ${JSON.stringify(allowed)} must name declared functions`, 'toolConfig.functionCallingConfig.allowedFunctionNames');
    }
  }
  const choice = MODES[mode] ?? 'auto';
  const keepWire = allowed !== undefined || mode === 'VALIDATED' || mode === 'MODE_UNSPECIFIED';
  return { choice, ...(keepWire && { wire: value }) };
}

/** `generationConfig` read back as the contract's hyperparameters, under the contract's names. */
function readGenerationConfig(value: unknown, problems: ProblemList): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) {
    problems.error('field_type', 'generationConfig must be an object', 'generationConfig');
    return {};
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const name = camel(k);
    if (!GENERATION_FIELDS.has(name)) problems.note('unknown_field', `generationConfig.${k} is not a GenerationConfig field the API reference lists`, `generationConfig.${k}`);
    if (name === 'stopSequences' && (!Array.isArray(v) || !v.every((s) => typeof s === 'string'))) problems.error('field_type', 'stopSequences must be an array of strings', `generationConfig.${k}`);
    out[HYPERPARAMETER_NAMES[name] ?? k] = v;
  }
  return out;
}

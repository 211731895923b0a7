/**
 * A minimal client of the crystal server for its tests, on Node's own `fetch`: posting in each
 * format, reading SSE from raw bytes, and folding streams back into the plain reply body.
 */
import type { CrystalServer, WireFormat } from './types.ts';

export const ANTHROPIC_VERSION = '2023-06-01';

export interface PostOptions {
  /** The key to send; default the server's. `null` sends none. */
  key?: string | null;
  headers?: Record<string, string>;
  /** Send this text instead of JSON.stringify(body). */
  rawBody?: string;
}

export function post(server: CrystalServer, format: WireFormat, body: unknown, options: PostOptions = {}): Promise<Response> {
  const key = options.key === undefined ? server.apiKey : options.key;
  const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
  if (format === 'gemini') return postGemini(server, body, { ...options, key });
  if (format === 'openai') {
    if (key !== null) headers['authorization'] = `Bearer ${key}`;
  } else {
    if (key !== null) headers['x-api-key'] = key;
    headers['anthropic-version'] ??= ANTHROPIC_VERSION;
  }
  const path = format === 'openai' ? '/chat/completions' : '/messages';
  return fetch(`${server.baseUrl(format)}${path}`, { method: 'POST', headers, body: options.rawBody ?? JSON.stringify(body) });
}

export interface GeminiPostOptions extends PostOptions {
  /** The model in the path; default the body's `model` field (removed from the body), else `parent`. */
  model?: string;
  /** `streamGenerateContent`; with `sse` (default true when streaming) `?alt=sse`. */
  stream?: boolean;
  sse?: boolean;
  /** Send the key as the `key` query parameter instead of the `x-goog-api-key` header. */
  keyInQuery?: boolean;
}

/**
 * A Gemini request: the model and the method go in the path. For the tests' convenience a body
 * with `model` and `stream: true` is turned into that path (both fields leave the body).
 */
export function postGemini(server: CrystalServer, body: unknown, options: GeminiPostOptions = {}): Promise<Response> {
  const key = options.key === undefined ? server.apiKey : options.key;
  const rest = { ...(body as Record<string, unknown>) };
  const model = options.model ?? (typeof rest['model'] === 'string' ? rest['model'] : 'parent');
  const stream = options.stream ?? rest['stream'] === true;
  delete rest['model'];
  delete rest['stream'];
  const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
  const query = new URLSearchParams();
  if (stream && options.sse !== false) query.set('alt', 'sse');
  if (key !== null && options.keyInQuery) query.set('key', key);
  else if (key !== null) headers['x-goog-api-key'] = key;
  const method = stream ? 'streamGenerateContent' : 'generateContent';
  const qs = query.toString();
  return fetch(`${server.baseUrl('gemini')}/models/${encodeURIComponent(model)}:${method}${qs ? `?${qs}` : ''}`, { method: 'POST', headers, body: options.rawBody ?? JSON.stringify(rest) });
}

export interface SseEvent {
  event?: string;
  data: string;
}

/** Reads an SSE body from its raw byte chunks, decoding UTF-8 across chunk boundaries. */
export async function readSse(response: Response): Promise<{ events: SseEvent[]; chunks: Uint8Array[] }> {
  const chunks: Uint8Array[] = [];
  const reader = response.body!.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let text = '';
  for (const chunk of chunks) text += decoder.decode(chunk, { stream: true });
  text += decoder.decode();
  const events: SseEvent[] = [];
  // Gemini ends its lines with CRLF; the other formats with LF.
  for (const block of text.replace(/\r\n/g, '\n').split('\n\n')) {
    if (block.trim() === '') continue;
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('data: ')) data.push(line.slice(6));
    }
    events.push({ ...(event !== undefined && { event }), data: data.join('\n') });
  }
  return { events, chunks };
}

type Json = Record<string, any>;

/** Folds OpenAI chunks into the body a plain call returns (the fields the tests compare). */
export function foldOpenAI(events: SseEvent[]): Json {
  let content: string | null = null;
  let reasoning: string | undefined;
  let finish: string | null = null;
  let usage: Json | undefined;
  let sawDone = false;
  const calls: Json[] = [];
  for (const { data } of events) {
    if (data === '[DONE]') {
      sawDone = true;
      break;
    }
    const chunk = JSON.parse(data) as Json;
    if (chunk['usage']) usage = chunk['usage'];
    const choice = chunk['choices']?.[0];
    if (!choice) continue;
    if (choice.finish_reason) finish = choice.finish_reason;
    const delta = choice.delta ?? {};
    if (typeof delta.content === 'string' && delta.content !== '') content = (content ?? '') + delta.content;
    if (typeof delta.reasoning_content === 'string') reasoning = (reasoning ?? '') + delta.reasoning_content;
    for (const piece of delta.tool_calls ?? []) {
      const call = (calls[piece.index] ??= { type: 'function', function: { name: '', arguments: '' } });
      if (piece.id !== undefined) call['id'] = piece.id;
      if (piece.function?.name) call['function'].name = piece.function.name;
      if (piece.function?.arguments) call['function'].arguments += piece.function.arguments;
    }
  }
  const message: Json = { role: 'assistant', content };
  if (reasoning !== undefined) message['reasoning_content'] = reasoning;
  if (calls.length > 0) message['tool_calls'] = calls;
  return { choices: [{ message, finish_reason: finish }], usage, done: sawDone };
}

/** Folds Anthropic events into the message a plain call returns. */
export function foldAnthropic(events: SseEvent[]): Json {
  let message: Json = {};
  const blocks: Json[] = [];
  const json = new Map<number, string>();
  let stopped = false;
  for (const { event, data } of events) {
    const value = JSON.parse(data) as Json;
    if (event !== undefined && event !== value['type']) throw new Error(`event name ${event} differs from data type ${value['type']}`);
    switch (value['type']) {
      case 'message_start':
        message = { ...value['message'] };
        break;
      case 'content_block_start':
        blocks[value['index']] = { ...value['content_block'] };
        if (value['content_block'].type === 'tool_use') json.set(value['index'], '');
        break;
      case 'content_block_delta': {
        const block = blocks[value['index']]!;
        const d = value['delta'];
        if (d.type === 'text_delta') block['text'] += d.text;
        else if (d.type === 'thinking_delta') block['thinking'] += d.thinking;
        else if (d.type === 'signature_delta') block['signature'] += d.signature;
        else if (d.type === 'input_json_delta') json.set(value['index'], (json.get(value['index']) ?? '') + d.partial_json);
        break;
      }
      case 'content_block_stop': {
        const text = json.get(value['index']);
        if (text !== undefined) blocks[value['index']]!['input'] = text === '' ? {} : JSON.parse(text);
        break;
      }
      case 'message_delta':
        message = { ...message, ...value['delta'], usage: { ...message['usage'], ...value['usage'] } };
        break;
      case 'message_stop':
        stopped = true;
        break;
      case 'error':
        throw new Error(`stream error: ${data}`);
    }
  }
  return { ...message, content: blocks, stopped };
}

/** Folds Gemini chunks into the body a plain call returns: parts joined (text with text, thought with thought), the last finishReason and usage. */
export function foldGemini(events: SseEvent[]): Json {
  let thought = '';
  let text: string | undefined;
  const calls: Json[] = [];
  let finish: string | undefined;
  let usage: Json | undefined;
  let last: Json = {};
  for (const { data } of events) {
    const chunk = JSON.parse(data) as Json;
    if (chunk['error']) throw new Error(`stream error: ${data}`);
    last = chunk;
    if (chunk['usageMetadata']) usage = chunk['usageMetadata'];
    const candidate = chunk['candidates']?.[0];
    if (!candidate) continue;
    if (candidate.finishReason) finish = candidate.finishReason;
    for (const part of candidate.content?.parts ?? []) {
      if (part.functionCall) calls.push(part);
      else if (part.thought === true) thought += part.text;
      else if (typeof part.text === 'string') text = (text ?? '') + part.text;
    }
  }
  const parts: Json[] = [...(thought !== '' ? [{ text: thought, thought: true }] : []), ...(text !== undefined ? [{ text }] : []), ...calls];
  return { candidates: [{ content: { role: 'model', parts }, ...(finish !== undefined && { finishReason: finish }), index: 0 }], ...(usage && { usageMetadata: usage }), modelVersion: last['modelVersion'], responseId: last['responseId'] };
}

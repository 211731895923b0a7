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
  if (format === 'openai') {
    if (key !== null) headers['authorization'] = `Bearer ${key}`;
  } else {
    if (key !== null) headers['x-api-key'] = key;
    headers['anthropic-version'] ??= ANTHROPIC_VERSION;
  }
  const path = format === 'openai' ? '/chat/completions' : '/messages';
  return fetch(`${server.baseUrl(format)}${path}`, { method: 'POST', headers, body: options.rawBody ?? JSON.stringify(body) });
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
  for (const block of text.split('\n\n')) {
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

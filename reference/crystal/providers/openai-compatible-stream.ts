/**
 * Reads a streamed Chat Completions reply (`stream: true`, SSE `data:` chunks ending with
 * `data: [DONE]`) and rebuilds the body a non-streamed call would have returned, so one normalizer
 * serves both paths and the two results are identical. Text, reasoning and tool-call pieces are
 * surfaced through `onEvent` as they arrive.
 */
import { CrystalError } from '../crystal-error.ts';
import type { QueryOptions } from '../contract.ts';
import { emit } from './events.ts';
import { isRecord, providerMessage } from './http.ts';
import { redact } from './secret.ts';
import type { SseEvent } from './sse.ts';

interface PartialCall {
  id?: string;
  name?: string;
  arguments: string;
}

/** Folds the chunk stream into one completion body. */
export async function collectWireStream(
  events: AsyncIterable<SseEvent>,
  options: QueryOptions | undefined,
  label: string,
  secret: string | undefined,
  isContextOverflow: (status: number, body: unknown, message: string) => boolean,
): Promise<Record<string, unknown>> {
  let id: unknown;
  let model: unknown;
  let content = '';
  let reasoning = '';
  let finish: unknown = null;
  let usage: unknown;
  const calls: PartialCall[] = [];
  for await (const event of events) {
    if (event.data === '[DONE]') break;
    const chunk = parseChunk(event.data, label);
    if (chunk['error'] !== undefined) {
      // A mid-stream failure (OpenRouter sends these): the HTTP status was already 200.
      const status = isRecord(chunk['error']) && typeof chunk['error']['code'] === 'number' ? chunk['error']['code'] : 500;
      const message = redact(providerMessage(chunk) ?? 'stream error', secret);
      const overflow = isContextOverflow(status, chunk, message);
      throw new CrystalError(overflow ? 'context_limit_exceeded' : 'crystal_error', `${label}: stream error ${status}: ${message}`, {
        status,
        retryable: overflow ? false : undefined,
      });
    }
    id ??= chunk['id'];
    model ??= chunk['model'];
    if (isRecord(chunk['usage'])) usage = chunk['usage'];
    const choice = Array.isArray(chunk['choices']) ? (chunk['choices'][0] as unknown) : undefined;
    if (!isRecord(choice)) continue;
    if (typeof choice['finish_reason'] === 'string') finish = choice['finish_reason'];
    const delta = isRecord(choice['delta']) ? choice['delta'] : {};
    if (typeof delta['content'] === 'string' && delta['content'] !== '') {
      content += delta['content'];
      emit(options, { type: 'text', data: { delta: delta['content'] } });
    }
    const thought = typeof delta['reasoning_content'] === 'string' ? delta['reasoning_content'] : delta['reasoning'];
    if (typeof thought === 'string' && thought !== '') {
      reasoning += thought;
      emit(options, { type: 'thinking', data: { delta: thought } });
    }
    if (Array.isArray(delta['tool_calls'])) for (const piece of delta['tool_calls']) addCallPiece(calls, piece, options);
  }
  const message: Record<string, unknown> = { role: 'assistant', content: content === '' ? null : content };
  if (reasoning !== '') message['reasoning'] = reasoning;
  if (calls.length > 0) {
    message['tool_calls'] = calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
  }
  return { id, model, choices: [{ index: 0, message, finish_reason: finish }], ...(usage ? { usage } : {}) };
}

function addCallPiece(calls: PartialCall[], piece: unknown, options: QueryOptions | undefined): void {
  if (!isRecord(piece)) return;
  const index = typeof piece['index'] === 'number' ? piece['index'] : calls.length;
  const call = (calls[index] ??= { arguments: '' });
  const fn = isRecord(piece['function']) ? piece['function'] : {};
  const first = call.id === undefined && call.name === undefined;
  if (typeof piece['id'] === 'string' && piece['id'] !== '') call.id = piece['id'];
  if (typeof fn['name'] === 'string' && fn['name'] !== '') call.name = fn['name'];
  const args = typeof fn['arguments'] === 'string' ? fn['arguments'] : '';
  call.arguments += args;
  emit(options, {
    type: 'gate_call',
    data: {
      index,
      ...(first && call.id !== undefined ? { id: call.id } : {}),
      ...(first && call.name !== undefined ? { gate: call.name } : {}),
      arguments_delta: args,
    },
  });
}

function parseChunk(data: string, label: string): Record<string, unknown> {
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch {
    throw new CrystalError('invalid_crystal_response', `${label}: stream chunk is not JSON (starts with ${JSON.stringify(data.slice(0, 60))})`);
  }
  if (!isRecord(chunk)) throw new CrystalError('invalid_crystal_response', `${label}: stream chunk is not an object`);
  return chunk;
}

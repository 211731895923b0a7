/**
 * Reads a streamed Messages API reply (`stream: true`): `message_start`, then per block
 * `content_block_start` / `content_block_delta` (`text_delta`, `thinking_delta`, `input_json_delta`,
 * `signature_delta`) / `content_block_stop`, then `message_delta` (stop reason, final usage) and
 * `message_stop`; `ping` is ignored and `error` fails the query. It rebuilds the `message` object a
 * non-streamed call returns, so one normalizer serves both paths.
 */
import { CrystalError } from '../crystal-error.ts';
import type { QueryOptions } from '../contract.ts';
import { emit } from './events.ts';
import { isRecord, providerMessage } from './http.ts';
import { redact } from './secret.ts';
import type { SseEvent } from './sse.ts';

/** Statuses that the documented stream error types stand for, so retry can classify them (PROD-2). */
const STREAM_ERROR_STATUS: Record<string, number> = { overloaded_error: 529, api_error: 500, rate_limit_error: 429 };

export async function collectAnthropicStream(
  events: AsyncIterable<SseEvent>,
  options: QueryOptions | undefined,
  label: string,
  secret: string | undefined,
): Promise<Record<string, unknown>> {
  let message: Record<string, unknown> = {};
  const blocks: Array<Record<string, unknown>> = [];
  const json = new Map<number, string>();
  const toolIndex = new Map<number, number>();
  for await (const event of events) {
    const data = parse(event.data, label);
    switch (data['type']) {
      case 'message_start':
        message = isRecord(data['message']) ? { ...data['message'] } : {};
        break;
      case 'content_block_start': {
        const index = indexOf(data);
        const block = isRecord(data['content_block']) ? { ...data['content_block'] } : {};
        blocks[index] = block;
        if (block['type'] === 'tool_use') {
          toolIndex.set(index, toolIndex.size);
          json.set(index, '');
          emit(options, {
            type: 'gate_call',
            data: { index: toolIndex.get(index) ?? 0, id: String(block['id']), gate: String(block['name']), arguments_delta: '' },
          });
        }
        break;
      }
      case 'content_block_delta':
        applyDelta(blocks, json, toolIndex, data, options);
        break;
      case 'content_block_stop': {
        const index = indexOf(data);
        const text = json.get(index);
        const block = blocks[index];
        if (text !== undefined && block) block['input'] = parseInput(text, label, index);
        break;
      }
      case 'message_delta': {
        const delta = isRecord(data['delta']) ? data['delta'] : {};
        message = { ...message, ...delta };
        if (isRecord(data['usage'])) message['usage'] = { ...(isRecord(message['usage']) ? message['usage'] : {}), ...data['usage'] };
        break;
      }
      case 'error': {
        const type = isRecord(data['error']) ? String(data['error']['type']) : 'error';
        const status = STREAM_ERROR_STATUS[type] ?? 500;
        throw new CrystalError('crystal_error', `${label}: stream error ${type}: ${redact(providerMessage(data) ?? '', secret)}`, { status });
      }
      default:
        break; // ping, message_stop, and event types added later
    }
  }
  return { ...message, content: blocks.filter((b) => b !== undefined) };
}

function applyDelta(
  blocks: Array<Record<string, unknown>>,
  json: Map<number, string>,
  toolIndex: Map<number, number>,
  data: Record<string, unknown>,
  options: QueryOptions | undefined,
): void {
  const index = indexOf(data);
  const block = blocks[index];
  const delta = isRecord(data['delta']) ? data['delta'] : {};
  if (!block) return;
  if (delta['type'] === 'text_delta' && typeof delta['text'] === 'string') {
    block['text'] = String(block['text'] ?? '') + delta['text'];
    emit(options, { type: 'text', data: { delta: delta['text'] } });
  } else if (delta['type'] === 'thinking_delta' && typeof delta['thinking'] === 'string') {
    block['thinking'] = String(block['thinking'] ?? '') + delta['thinking'];
    emit(options, { type: 'thinking', data: { delta: delta['thinking'] } });
  } else if (delta['type'] === 'signature_delta' && typeof delta['signature'] === 'string') {
    block['signature'] = String(block['signature'] ?? '') + delta['signature'];
  } else if (delta['type'] === 'input_json_delta' && typeof delta['partial_json'] === 'string') {
    json.set(index, (json.get(index) ?? '') + delta['partial_json']);
    emit(options, { type: 'gate_call', data: { index: toolIndex.get(index) ?? 0, arguments_delta: delta['partial_json'] } });
  }
}

function indexOf(data: Record<string, unknown>): number {
  return typeof data['index'] === 'number' ? data['index'] : 0;
}

function parseInput(text: string, label: string, index: number): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new CrystalError('invalid_tool_call', `${label}: streamed tool_use block ${index} has arguments that are not JSON`);
  }
}

function parse(data: string, label: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(data);
    if (isRecord(value)) return value;
  } catch {
    // reported below
  }
  throw new CrystalError('invalid_crystal_response', `${label}: stream event is not a JSON object (starts with ${JSON.stringify(data.slice(0, 60))})`);
}

/**
 * Reads a streamed Gemini reply (`:streamGenerateContent?alt=sse`): every event is a whole
 * `GenerateContentResponse` carrying the next parts. Text parts are joined (thought text apart from
 * answer text), function calls arrive whole and are kept in order, and the last `finishReason` and
 * `usageMetadata` win. An `{error}` event fails the query with its status, so retry can classify it
 * (PROD-2). It rebuilds the body a plain call returns, so one normalizer serves both paths.
 */
import { CrystalError } from '../crystal-error.ts';
import type { QueryOptions } from '../contract.ts';
import { emit } from './events.ts';
import { isRecord, providerMessage } from './http.ts';
import { redact } from './secret.ts';
import type { SseEvent } from './sse.ts';

export async function collectGeminiStream(
  events: AsyncIterable<SseEvent>,
  options: QueryOptions | undefined,
  label: string,
  secret: string | undefined,
): Promise<Record<string, unknown>> {
  let thought: string | undefined;
  let text: string | undefined;
  const calls: Array<Record<string, unknown>> = [];
  let finishReason: unknown;
  let usage: unknown;
  let last: Record<string, unknown> = {};
  let sawChunk = false;
  for await (const event of events) {
    const data = parse(event.data, label);
    if (isRecord(data['error'])) {
      const status = typeof data['error']['code'] === 'number' ? data['error']['code'] : 500;
      throw new CrystalError('crystal_error', `${label}: stream error ${String(data['error']['status'] ?? status)}: ${redact(providerMessage(data) ?? '', secret)}`, { status });
    }
    sawChunk = true;
    last = data;
    if (data['usageMetadata'] !== undefined) usage = data['usageMetadata'];
    const candidate = Array.isArray(data['candidates']) ? (data['candidates'][0] as unknown) : undefined;
    if (!isRecord(candidate)) continue;
    if (candidate['finishReason'] !== undefined) finishReason = candidate['finishReason'];
    const content = isRecord(candidate['content']) ? candidate['content'] : {};
    const parts: unknown[] = Array.isArray(content['parts']) ? content['parts'] : [];
    for (const part of parts) {
      if (!isRecord(part)) continue;
      if (isRecord(part['functionCall'])) calls.push(part);
      else if (typeof part['text'] === 'string' && part['thought'] === true) {
        thought = (thought ?? '') + part['text'];
        emit(options, { type: 'thinking', data: { delta: part['text'] } });
      } else if (typeof part['text'] === 'string') {
        text = (text ?? '') + part['text'];
        emit(options, { type: 'text', data: { delta: part['text'] } });
      }
    }
  }
  if (!sawChunk) throw new CrystalError('invalid_crystal_response', `${label}: the stream ended without a chunk`);
  // Gemini sends no end-of-stream event: a stream whose last chunk has no finishReason was cut short.
  if (finishReason === undefined) throw new CrystalError('invalid_crystal_response', `${label}: the stream ended before a finishReason`);
  const parts = [...(thought !== undefined ? [{ text: thought, thought: true }] : []), ...(text !== undefined ? [{ text }] : []), ...calls];
  return {
    candidates: [{ content: { role: 'model', parts }, ...(finishReason !== undefined ? { finishReason } : {}) }],
    ...(usage !== undefined ? { usageMetadata: usage } : {}),
    ...(last['modelVersion'] !== undefined ? { modelVersion: last['modelVersion'] } : {}),
    ...(last['responseId'] !== undefined ? { responseId: last['responseId'] } : {}),
  };
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

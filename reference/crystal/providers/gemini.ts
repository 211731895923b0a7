import type { CrystalRequest, CrystalResponse } from '../../../schemas/index.ts';
import { CRYSTAL_CONTRACT_VERSION, type Crystal, type QueryOptions } from '../contract.ts';
import { CrystalError } from '../crystal-error.ts';
import { checkResponse } from './check.ts';
import { requireKey } from './env.ts';
import { emit } from './events.ts';
import { collectGeminiStream } from './gemini-stream.ts';
import { fromGeminiBody, isGeminiContextOverflow, toGeminiBody } from './gemini-wire.ts';
import { post, readJson, transportError, type HttpCall } from './http.ts';
import { randomCallId } from './ids.ts';
import { compose, wantsStream, type ProviderOptions } from './options.ts';
import { readSse } from './sse.ts';

export const GEMINI_BASE_URL = 'https://generativelanguage.googleapis.com/v1beta';

/**
 * A Gemini crystal over `generateContent`, or `streamGenerateContent?alt=sse` when streaming
 * (CRYSTAL-2..6), composed with retry (PROD-2) and the `required` tool-choice guarantee (CRYSTAL-5;
 * Gemini forces natively with mode ANY). Key from `GEMINI_API_KEY` unless given, sent in the
 * `x-goog-api-key` header so it never appears in a URL.
 */
export function createGeminiCrystal(model: string, options: ProviderOptions = {}): Crystal {
  const apiKey = requireKey('gemini', options.apiKey, options.env);
  const name = `gemini:${model}`;
  const newId = options.newId ?? randomCallId;
  const base = `${(options.baseUrl ?? GEMINI_BASE_URL).replace(/\/+$/, '')}/models/${encodeURIComponent(model)}`;
  const raw: Crystal = {
    contractVersion: CRYSTAL_CONTRACT_VERSION,
    name,
    ...(options.contextWindow === undefined ? {} : { contextWindow: options.contextWindow }),
    async query(request: CrystalRequest, queryOptions?: QueryOptions): Promise<CrystalResponse> {
      const stream = wantsStream(options.stream, queryOptions?.onEvent);
      const call: HttpCall = {
        label: name,
        url: stream ? `${base}:streamGenerateContent?alt=sse` : `${base}:generateContent`,
        headers: { 'x-goog-api-key': apiKey, ...(stream ? { accept: 'text/event-stream' } : {}) },
        body: toGeminiBody(request),
        secret: apiKey,
        signal: queryOptions?.signal,
        transport: options,
        isContextOverflow: isGeminiContextOverflow,
      };
      const response = await post(call);
      let body: unknown;
      if (stream) {
        if (!response.body) throw new CrystalError('invalid_crystal_response', `${name}: streamed reply has no body`);
        try {
          body = await collectGeminiStream(readSse(response.body), queryOptions, name, apiKey);
        } catch (error) {
          throw transportError(call, error);
        }
      } else {
        body = await readJson(response, call);
      }
      const normalized = checkResponse(fromGeminiBody(body, name, newId), name);
      if (stream) {
        // Gemini streams each call whole, so its pieces are told once the ids are settled (CRYSTAL-4).
        (normalized.tool_calls ?? []).forEach((c, index) => emit(queryOptions, { type: 'gate_call', data: { index, id: c.id, gate: c.gate, arguments_delta: c.arguments } }));
        emit(queryOptions, { type: 'usage', data: normalized.usage });
      }
      return normalized;
    },
  };
  return compose(raw, options);
}

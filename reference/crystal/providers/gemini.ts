import type { CrystalRequest, CrystalResponse } from '../../../schemas/index.ts';
import { CRYSTAL_CONTRACT_VERSION, type Crystal, type QueryOptions } from '../contract.ts';
import { checkResponse } from './check.ts';
import { requireKey } from './env.ts';
import { fromGeminiBody, isGeminiContextOverflow, toGeminiBody } from './gemini-wire.ts';
import { post, readJson, type HttpCall } from './http.ts';
import { randomCallId } from './ids.ts';
import { compose, type ProviderOptions } from './options.ts';

export const GEMINI_BASE_URL = 'https://generativelanguage.googleapis.com/v1beta';

/**
 * A Gemini crystal over `generateContent` (CRYSTAL-2..6), composed with retry (PROD-2) and the
 * `required` tool-choice guarantee (CRYSTAL-5; Gemini forces natively with mode ANY). Key from
 * `GEMINI_API_KEY` unless given, sent in the `x-goog-api-key` header so it never appears in a URL.
 * This provider does not stream; `onEvent` receives nothing from it.
 */
export function createGeminiCrystal(model: string, options: ProviderOptions = {}): Crystal {
  const apiKey = requireKey('gemini', options.apiKey, options.env);
  const name = `gemini:${model}`;
  const newId = options.newId ?? randomCallId;
  const url = `${(options.baseUrl ?? GEMINI_BASE_URL).replace(/\/+$/, '')}/models/${encodeURIComponent(model)}:generateContent`;
  const raw: Crystal = {
    contractVersion: CRYSTAL_CONTRACT_VERSION,
    name,
    ...(options.contextWindow === undefined ? {} : { contextWindow: options.contextWindow }),
    async query(request: CrystalRequest, queryOptions?: QueryOptions): Promise<CrystalResponse> {
      const call: HttpCall = {
        label: name,
        url,
        headers: { 'x-goog-api-key': apiKey },
        body: toGeminiBody(request),
        secret: apiKey,
        signal: queryOptions?.signal,
        transport: options,
        isContextOverflow: isGeminiContextOverflow,
      };
      const body = await readJson(await post(call), call);
      return checkResponse(fromGeminiBody(body, name, newId), name);
    },
  };
  return compose(raw, options);
}

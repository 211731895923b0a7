import type { CrystalRequest, CrystalResponse } from '../../../schemas/index.ts';
import { CRYSTAL_CONTRACT_VERSION, type Crystal, type QueryOptions } from '../contract.ts';
import { CrystalError } from '../crystal-error.ts';
import { collectAnthropicStream } from './anthropic-stream.ts';
import { fromAnthropicBody, isAnthropicContextOverflow, toAnthropicBody } from './anthropic-wire.ts';
import { checkResponse } from './check.ts';
import { requireKey } from './env.ts';
import { emit } from './events.ts';
import { post, readJson, transportError, type HttpCall } from './http.ts';
import { compose, wantsStream, type ProviderOptions } from './options.ts';
import { readSse } from './sse.ts';

export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com/v1';
/** The API version header the translation is written against. */
export const ANTHROPIC_VERSION = '2023-06-01';

/**
 * An Anthropic crystal over the Messages API (CRYSTAL-2..6), composed with retry (PROD-2) and the
 * `required` tool-choice guarantee (CRYSTAL-5). Key from `ANTHROPIC_API_KEY` unless given; sent as
 * `x-api-key` with `anthropic-version`.
 */
export function createAnthropicCrystal(model: string, options: ProviderOptions = {}): Crystal {
  const apiKey = requireKey('anthropic', options.apiKey, options.env);
  const name = `anthropic:${model}`;
  const url = `${(options.baseUrl ?? ANTHROPIC_BASE_URL).replace(/\/+$/, '')}/messages`;
  const raw: Crystal = {
    contractVersion: CRYSTAL_CONTRACT_VERSION,
    name,
    ...(options.contextWindow === undefined ? {} : { contextWindow: options.contextWindow }),
    async query(request: CrystalRequest, queryOptions?: QueryOptions): Promise<CrystalResponse> {
      const stream = wantsStream(options.stream, queryOptions?.onEvent);
      const call: HttpCall = {
        label: name,
        url,
        headers: {
          'x-api-key': apiKey,
          'anthropic-version': ANTHROPIC_VERSION,
          ...(stream ? { accept: 'text/event-stream' } : {}),
        },
        body: toAnthropicBody(request, model, stream),
        secret: apiKey,
        signal: queryOptions?.signal,
        transport: options,
        isContextOverflow: isAnthropicContextOverflow,
      };
      const response = await post(call);
      let body: unknown;
      if (stream) {
        if (!response.body) throw new CrystalError('invalid_crystal_response', `${name}: streamed reply has no body`);
        try {
          body = await collectAnthropicStream(readSse(response.body), queryOptions, name, apiKey);
        } catch (error) {
          throw transportError(call, error);
        }
      } else {
        body = await readJson(response, call);
      }
      const normalized = checkResponse(fromAnthropicBody(body, name), name);
      if (stream) emit(queryOptions, { type: 'usage', data: normalized.usage });
      return normalized;
    },
  };
  return compose(raw, options);
}

import type { CrystalRequest, CrystalResponse } from '../../../schemas/index.ts';
import { CRYSTAL_CONTRACT_VERSION, type Crystal, type QueryOptions } from '../contract.ts';
import { CrystalError } from '../crystal-error.ts';
import { checkResponse } from './check.ts';
import { emit } from './events.ts';
import { post, readJson, transportError, type HttpCall } from './http.ts';
import { randomCallId } from './ids.ts';
import { collectWireStream } from './openai-compatible-stream.ts';
import { fromWireBody, isWireContextOverflow, toWireBody } from './openai-compatible-wire.ts';
import { compose, wantsStream, type ProviderOptions } from './options.ts';
import { readSse } from './sse.ts';

/** One server that speaks Chat Completions: OpenAI itself, OpenRouter, or a local server. */
export interface OpenAICompatibleConfig extends ProviderOptions {
  /** `openai`, `openrouter` or `local`; lands in `metadata.provider`. */
  provider: string;
  /** The crystal's label, e.g. `openai:gpt-4o-mini`. */
  name: string;
  model: string;
  /** Ends before `/chat/completions`, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  /** Extra headers (OpenRouter attribution). */
  headers?: Record<string, string>;
  /** Whether the server honours `tool_choice` (CRYSTAL-5). */
  nativeToolChoice: boolean;
}

/**
 * A crystal over any Chat Completions server (CRYSTAL-2..6), composed with retry (PROD-2) and the
 * `required` tool-choice guarantee (CRYSTAL-5). OpenAI, OpenRouter and local are thin configurations
 * of this one function.
 */
export function createOpenAICompatibleCrystal(config: OpenAICompatibleConfig): Crystal {
  const newId = config.newId ?? randomCallId;
  const url = `${config.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const raw: Crystal = {
    contractVersion: CRYSTAL_CONTRACT_VERSION,
    name: config.name,
    ...(config.contextWindow === undefined ? {} : { contextWindow: config.contextWindow }),
    async query(request: CrystalRequest, options?: QueryOptions): Promise<CrystalResponse> {
      const stream = wantsStream(config.stream, options?.onEvent);
      const call: HttpCall = {
        label: config.name,
        url,
        headers: {
          ...config.headers,
          ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
          ...(stream ? { accept: 'text/event-stream' } : {}),
        },
        body: toWireBody(request, { model: config.model, nativeToolChoice: config.nativeToolChoice, stream }),
        secret: config.apiKey,
        signal: options?.signal,
        transport: config,
        isContextOverflow: isWireContextOverflow,
      };
      const response = await post(call);
      let body: unknown;
      if (stream) {
        if (!response.body) throw new CrystalError('invalid_crystal_response', `${config.name}: streamed reply has no body`);
        try {
          body = await collectWireStream(readSse(response.body), options, config.name, config.apiKey, isWireContextOverflow);
        } catch (error) {
          throw transportError(call, error);
        }
      } else {
        body = await readJson(response, call);
      }
      const normalized = checkResponse(fromWireBody(body, config.provider, config.name, newId), config.name);
      if (stream) emit(options, { type: 'usage', data: normalized.usage });
      return normalized;
    },
  };
  return compose(raw, config);
}

import type { CrystalRequest, CrystalResponse, Message, Usage } from '../../../schemas/index.ts';
import { CRYSTAL_CONTRACT_VERSION, type Crystal, type QueryOptions } from '../contract.ts';
import { CrystalError } from '../crystal-error.ts';

/** Extra queries allowed when a crystal ignores `tool_choice: 'required'`. */
export const DEFAULT_MAX_REPROMPTS = 2;

/**
 * CRYSTAL-5: guarantees at least one gate call when the request says `tool_choice: 'required'`.
 *
 * Providers that can force tool use are asked natively; for those that cannot (local
 * OpenAI-compatible servers, Anthropic with extended thinking) the provider sends `auto` and this
 * wrapper re-prompts: it shows the crystal its own text answer and asks again for a gate call, at
 * most `maxReprompts` times, then fails with `invalid_crystal_response`. It also backs up native
 * forcing, should a provider break its promise. Usage adds up over every query made, since every one
 * was paid for; the number of re-prompts is reported as `metadata.tool_choice_reprompts`.
 */
export function requireToolUse(crystal: Crystal, maxReprompts = DEFAULT_MAX_REPROMPTS): Crystal {
  return {
    contractVersion: CRYSTAL_CONTRACT_VERSION,
    name: crystal.name,
    ...(crystal.contextWindow === undefined ? {} : { contextWindow: crystal.contextWindow }),
    async query(request: CrystalRequest, options?: QueryOptions): Promise<CrystalResponse> {
      const tools = request.tools ?? [];
      if (request.tool_choice !== 'required' || tools.length === 0) return crystal.query(request, options);
      let messages = request.messages;
      const total: Usage = { prompt: 0, completion: 0, cached: 0 };
      for (let attempt = 0; ; attempt++) {
        const response = await crystal.query({ ...request, messages }, options);
        total.prompt += response.usage.prompt;
        total.completion += response.usage.completion;
        total.cached += response.usage.cached;
        if ((response.tool_calls ?? []).length > 0) {
          if (attempt === 0) return response;
          return { ...response, usage: total, metadata: { ...response.metadata, tool_choice_reprompts: attempt } };
        }
        if (attempt >= maxReprompts || options?.signal?.aborted) {
          throw new CrystalError(
            'invalid_crystal_response',
            `${crystal.name}: tool_choice is 'required' but no gate call came after ${attempt + 1} queries (CRYSTAL-5)`,
          );
        }
        messages = [...messages, ...reprompt(response, tools.map((tool) => tool.name))];
      }
    },
  };
}

/** The two messages appended for one more try: the crystal's own answer, then the demand. */
function reprompt(response: CrystalResponse, gates: string[]): Message[] {
  return [
    { role: 'assistant', content: response.content ?? '' },
    {
      role: 'user',
      content: `This step must be a tool call. Reply by calling one of: ${gates.join(', ')}. Plain text is not accepted here.`,
    },
  ];
}

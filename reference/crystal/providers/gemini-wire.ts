/**
 * Translation between the crystal contract and Gemini `models/{model}:generateContent`, following
 * its published reference: `contents` of `user`/`model` turns made of `parts` (`text`,
 * `functionCall {name, args}`, `functionResponse {name, response}`), `systemInstruction`,
 * `tools: [{functionDeclarations: [{name, description, parametersJsonSchema}]}]`,
 * `toolConfig.functionCallingConfig.mode` AUTO/ANY/NONE, thought parts (`thought: true`), and
 * `usageMetadata` with `cachedContentTokenCount` and `thoughtsTokenCount`.
 */
import type { CrystalRequest, CrystalResponse, Message, ToolCall } from '../../../schemas/index.ts';
import { CrystalError } from '../crystal-error.ts';
import { isRecord } from './http.ts';
import { parseArguments } from './arguments.ts';
import type { IdMaker } from './ids.ts';
import { compact, type FinishReason } from './metadata.ts';

type Part = Record<string, unknown>;

/** Call-level names that Gemini spells differently inside `generationConfig`. */
const RENAMED: Record<string, string> = { top_p: 'topP', top_k: 'topK', max_tokens: 'maxOutputTokens', stop: 'stopSequences' };

const MODES = { auto: 'AUTO', required: 'ANY', none: 'NONE' } as const;

/** Builds the JSON body. Hyperparameters go into `generationConfig`, renamed where Gemini's names differ (CALL-2). */
export function toGeminiBody(request: CrystalRequest): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const system = request.messages.filter((m) => m.role === 'system').map((m) => ({ text: m.content ?? '' }));
  if (system.length > 0) body['systemInstruction'] = { parts: system };
  body['contents'] = toContents(request.messages);
  const tools = request.tools ?? [];
  if (tools.length > 0) {
    body['tools'] = [
      { functionDeclarations: tools.map((t) => ({ name: t.name, description: t.description, parametersJsonSchema: t.parameters })) },
    ];
    if (request.tool_choice) body['toolConfig'] = { functionCallingConfig: { mode: MODES[request.tool_choice] } };
  }
  const config: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(request.hyperparameters ?? {})) {
    const name = RENAMED[key] ?? key;
    config[name] = name === 'stopSequences' && !Array.isArray(value) ? [value] : value;
  }
  if (Object.keys(config).length > 0) body['generationConfig'] = config;
  return body;
}

/** Turns messages into alternating contents; consecutive gate results share one `user` turn, as Gemini expects. */
function toContents(messages: Message[]): Array<{ role: string; parts: Part[] }> {
  const gateOf = new Map<string, string>();
  const contents: Array<{ role: string; parts: Part[] }> = [];
  messages.forEach((message, index) => {
    if (message.role === 'system') return;
    const role = message.role === 'assistant' ? 'model' : 'user';
    const parts: Part[] = [];
    if (message.role === 'tool') {
      const gate = message.tool_call_id ? gateOf.get(message.tool_call_id) : undefined;
      if (!gate) {
        throw new CrystalError('invalid_tool_call', `messages[${index}]: tool_call_id '${message.tool_call_id ?? ''}' answers no earlier gate call`);
      }
      parts.push({ functionResponse: { name: gate, response: { result: message.content ?? '' } } });
    } else {
      if (message.content) parts.push({ text: message.content });
      (message.tool_calls ?? []).forEach((call, j) => {
        gateOf.set(call.id, call.gate);
        parts.push({ functionCall: { name: call.gate, args: parseArguments(call.arguments, `messages[${index}].tool_calls[${j}]`) } });
      });
    }
    const last = contents[contents.length - 1];
    if (last && last.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  });
  return contents;
}

/** Normalizes a `GenerateContentResponse`. Gemini sends no call ids (on this API), so they are made (CRYSTAL-4). */
export function fromGeminiBody(body: unknown, label: string, newId: IdMaker): CrystalResponse {
  if (!isRecord(body)) throw new CrystalError('invalid_crystal_response', `${label}: body is not an object`);
  const candidate = Array.isArray(body['candidates']) ? (body['candidates'][0] as unknown) : undefined;
  if (!isRecord(candidate)) {
    const feedback = isRecord(body['promptFeedback']) ? body['promptFeedback']['blockReason'] : undefined;
    const why = typeof feedback === 'string' ? `the prompt was blocked (${feedback})` : 'no candidates';
    throw new CrystalError('invalid_crystal_response', `${label}: ${why}`);
  }
  const content = isRecord(candidate['content']) ? candidate['content'] : {};
  const parts: unknown[] = Array.isArray(content['parts']) ? content['parts'] : [];
  const texts: string[] = [];
  const thoughts: string[] = [];
  const calls: ToolCall[] = [];
  const signatures: Record<string, string> = {};
  parts.forEach((part, i) => {
    if (!isRecord(part)) throw new CrystalError('invalid_crystal_response', `${label}: parts[${i}] is not an object`);
    const fc = part['functionCall'];
    if (isRecord(fc)) {
      if (typeof fc['name'] !== 'string') throw new CrystalError('invalid_tool_call', `${label}: parts[${i}].functionCall has no name`);
      const id = typeof fc['id'] === 'string' && fc['id'] !== '' ? fc['id'] : newId();
      calls.push({ id, gate: fc['name'], arguments: JSON.stringify(fc['args'] ?? {}) });
      if (typeof part['thoughtSignature'] === 'string') signatures[id] = part['thoughtSignature'];
    } else if (typeof part['text'] === 'string') {
      (part['thought'] === true ? thoughts : texts).push(part['text']);
    }
  });
  const usage = isRecord(body['usageMetadata']) ? body['usageMetadata'] : {};
  const raw = typeof candidate['finishReason'] === 'string' ? candidate['finishReason'] : null;
  const text = texts.join('');
  const thinking = thoughts.join('');
  return {
    content: text === '' ? null : text,
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
    // Thought tokens are billed as output, as reasoning tokens are by the other families.
    usage: {
      prompt: count(usage['promptTokenCount']),
      completion: count(usage['candidatesTokenCount']) + count(usage['thoughtsTokenCount']),
      cached: count(usage['cachedContentTokenCount']),
    },
    ...(thinking !== '' ? { thinking } : {}),
    metadata: compact({
      provider: 'gemini',
      model: typeof body['modelVersion'] === 'string' ? body['modelVersion'] : undefined,
      response_id: typeof body['responseId'] === 'string' ? body['responseId'] : undefined,
      finish_reason: calls.length > 0 && raw === 'STOP' ? 'tool_calls' : unify(raw),
      raw_finish_reason: raw,
      thought_signatures: Object.keys(signatures).length > 0 ? signatures : undefined,
    }),
  };
}

function unify(raw: string | null): FinishReason {
  if (raw === 'STOP') return 'stop';
  if (raw === 'MAX_TOKENS') return 'length';
  if (raw && ['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII'].includes(raw)) return 'content_filter';
  return 'other';
}

/**
 * CRYSTAL-2: Gemini answers an over-long prompt with 400 `INVALID_ARGUMENT` "The input token count
 * (N) exceeds the maximum number of tokens allowed (M)".
 */
export function isGeminiContextOverflow(status: number, _body: unknown, message: string): boolean {
  return status >= 400 && status < 500 && /token count.*exceeds|exceeds the maximum number of tokens|context window/i.test(message);
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

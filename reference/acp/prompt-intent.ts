import { RequestError } from '@agentclientprotocol/sdk';

/** A `session/prompt` request reduced to what the entity needs: which session, and the intent. */
export interface PromptIntent {
  sessionId: string;
  intent: string;
}

/**
 * PROD-6: reads a `session/prompt` request's params into an intent. The protocol's own shape is
 * `{ sessionId, prompt: ContentBlock[] }`; clients also send the blocks under `content`, a single
 * block, or a bare string, and each is accepted when the text is unambiguous. The intent is the prompt's
 * text blocks in order, with each linked or embedded resource given by its URI (and an embedded text
 * resource by its text too), one per line. Refused with invalid params, naming the field: no session
 * id, both `prompt` and `content` and they differ, a block that is not a content block, no text at all.
 */
export function parsePromptIntent(params: unknown): PromptIntent {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) throw invalid('params', 'expected an object');
  const fields = params as Record<string, unknown>;
  const sessionId = fields.sessionId;
  if (typeof sessionId !== 'string' || sessionId === '') throw invalid('sessionId', 'expected a non-empty string');
  const prompt = fields.prompt === undefined ? undefined : intentOf('prompt', fields.prompt);
  const content = fields.content === undefined ? undefined : intentOf('content', fields.content);
  if (prompt !== undefined && content !== undefined && prompt !== content) {
    throw invalid('prompt', "both 'prompt' and 'content' were given and they differ: the intent is ambiguous");
  }
  const intent = prompt ?? content;
  if (intent === undefined) throw invalid('prompt', "expected the prompt's content blocks under 'prompt' (or 'content')");
  if (intent.trim() === '') throw invalid('prompt', 'the prompt holds no text to take as the intent');
  return { sessionId, intent };
}

function intentOf(field: string, value: unknown): string {
  if (typeof value === 'string') return value;
  const blocks = Array.isArray(value) ? value : [value];
  return blocks.map((block, index) => textOf(`${field}[${index}]`, block)).filter((text) => text !== '').join('\n');
}

function textOf(where: string, block: unknown): string {
  if (typeof block === 'string') return block;
  if (typeof block !== 'object' || block === null) throw invalid(where, 'expected a content block');
  const { type, text, uri, resource } = block as Record<string, unknown>;
  switch (type) {
    case 'text':
      if (typeof text !== 'string') throw invalid(`${where}.text`, 'expected a string');
      return text;
    case 'resource_link':
      if (typeof uri !== 'string') throw invalid(`${where}.uri`, 'expected a string');
      return uri;
    case 'resource': {
      const embedded = (typeof resource === 'object' && resource !== null ? resource : {}) as Record<string, unknown>;
      if (typeof embedded.uri !== 'string') throw invalid(`${where}.resource.uri`, 'expected a string');
      return typeof embedded.text === 'string' ? `${embedded.uri}\n${embedded.text}` : embedded.uri;
    }
    case 'image':
    case 'audio':
      // Not advertised in the prompt capabilities: a client should not send them, and they carry no intent text.
      return '';
    default:
      throw invalid(`${where}.type`, `unknown content block type ${JSON.stringify(type)}`);
  }
}

function invalid(field: string, problem: string): RequestError {
  return RequestError.invalidParams({ field, problem }, `${field}: ${problem}`);
}

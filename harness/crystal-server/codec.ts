/**
 * What each wire format provides to the crystal server: reading a request into the crystal contract
 * (with its wire checks), and writing a reply, an error, or a stream in its own shape.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { CrystalRequest, CrystalResponse, ToolCall } from '../../schemas/records.ts';
import type { ProviderStep, WireFormat } from './types.ts';
import type { ProblemList, ResolvedSplit } from './wire-util.ts';

/**
 * Where a request went, beyond its body: the path (Gemini names the model and the streaming in it),
 * the query string (Gemini's `alt=sse`, and `key`), and the tool calls served so far to each crystal
 * (Gemini clients send calls back without ids, so the ids are recovered from what was served).
 */
export interface RequestTarget {
  path: string;
  query: URLSearchParams;
  /** The calls served to `crystal`, in order; without a crystal, those served to every crystal (a fork may move a conversation to another crystal). */
  served(crystal?: string): readonly ServedCalls[];
}

/** The tool calls of one reply served with status 200, as the contract had them (ids included). */
export type ServedCalls = readonly ToolCall[];

/** A request read back into the crystal contract. */
export interface ParsedRequest {
  crystal?: string;
  stream: boolean;
  request?: CrystalRequest;
  wireOptions: Record<string, unknown>;
  toolChoiceWire?: unknown;
  /** OpenAI: the stream asked for a final usage chunk (`stream_options.include_usage`). */
  includeUsage: boolean;
  /** Set when the request cannot be served at all (the provider answers 400 with this message). */
  fatal?: string;
  /** Gemini `streamGenerateContent` without `alt=sse`: the chunks go out as one JSON array. */
  streamArray?: boolean;
}

/** Everything a reply needs besides the response itself. */
export interface ReplyContext {
  model: string;
  /** Response id, e.g. `chatcmpl-3` or `msg_3`. */
  id: string;
  /** Unix seconds. */
  created: number;
  step: ProviderStep | undefined;
  includeUsage: boolean;
  split: ResolvedSplit;
  /** See {@link ParsedRequest.streamArray}. */
  streamArray?: boolean;
}

export interface ErrorAnswer {
  status: number;
  body: unknown;
}

export interface WireCodec {
  format: WireFormat;
  /** Whether the request carries the key, in this format's header (or, for Gemini, the `key` query parameter). */
  auth(headers: IncomingHttpHeaders, key: string, query: URLSearchParams): 'ok' | 'missing' | 'wrong';
  /** The format's answer to a missing or wrong key. */
  authError(kind: 'missing' | 'wrong'): ErrorAnswer;
  /** The format's answer to a model the server does not serve. */
  modelNotFound(crystal: string): ErrorAnswer;
  parse(body: unknown, headers: IncomingHttpHeaders, problems: ProblemList, target: RequestTarget): ParsedRequest;
  /**
   * The format's error body for a status (`code`: OpenAI `error.code`, Anthropic `error.type`, Gemini
   * `error.status`). `retryAfter`: Gemini says how long to wait in the body (RetryInfo).
   */
  errorBody(status: number, message: string, code?: string, extra?: { retryAfter?: number | string }): unknown;
  /** The format's own context-overflow answer. */
  overflow(message: string, numbers: { tokens?: number; limit?: number }): ErrorAnswer;
  replyBody(response: CrystalResponse, ctx: ReplyContext): Record<string, unknown>;
  /** A JSON body that is not this format's reply object. */
  wrongShapeBody(ctx: ReplyContext): unknown;
  /** The SSE events of a streamed reply, each a complete frame. */
  streamFrames(response: CrystalResponse, ctx: ReplyContext): string[];
  /** The format's in-stream error event. */
  streamErrorFrame(message: string, type: string | undefined): string;
  /** A response-id header name (`x-request-id`, `request-id`); none for Gemini. */
  requestIdHeader?: string;
  /** A stream event whose data is not JSON (for `malformed: not_json`). */
  brokenStreamFrame: string;
  /** Events that close a stream after its content (OpenAI `[DONE]`), added after a wrong-shape event. */
  closingFrames: string[];
  /** The response id for the n-th reply. */
  responseId(n: number): string;
}

/** The id a tool call goes out with: undefined to leave the field out. */
export function wireCallId(call: ToolCall, step: ProviderStep | undefined): string | undefined {
  if (step?.tool_call_ids === 'omit') return undefined;
  if (step?.tool_call_ids === 'empty') return '';
  return typeof call.id === 'string' ? call.id : undefined;
}

/** The tool calls of a response, tolerating the malformed shapes raw script steps produce. */
export function callsOf(response: CrystalResponse): ToolCall[] {
  return Array.isArray(response.tool_calls) ? response.tool_calls : [];
}

export function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

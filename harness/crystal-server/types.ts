/**
 * Shapes of the crystal server: the wire formats it speaks, the provider-level steps a script can
 * ask for, and the record it keeps of every HTTP exchange. See docs/crystal-server.md.
 */
import type { CrystalReply } from '../../schemas/adapter.ts';
import type { CrystalRequest } from '../../schemas/records.ts';

/** The provider wire formats the server speaks. */
export type WireFormat = 'openai' | 'anthropic' | 'gemini';

export const WIRE_FORMATS: readonly WireFormat[] = ['openai', 'anthropic', 'gemini'];

/**
 * How a streamed reply is cut into pieces. `'awkward'` is the preset used by cases: one- and
 * two-character text deltas, three-character argument deltas (so pieces end inside keys, inside
 * strings and between a backslash and what it escapes), and the SSE byte stream written in small
 * pieces, each multi-byte UTF-8 character cut between its bytes.
 */
export interface StreamSplit {
  /** Code points per text or thinking delta. Default 24. */
  text_chars?: number;
  /** Characters per tool-call argument delta. Default 24. */
  argument_chars?: number;
  /**
   * How the bytes of the stream are written. Default: one write per SSE event. `'awkward'`: every
   * multi-byte UTF-8 character is cut after its first byte, and the rest every 11 bytes. A number:
   * a cut every that many bytes (which may or may not fall inside a character).
   */
  bytes?: 'awkward' | number;
  /** Pause between two byte pieces, so they reach the client apart. Default 1 ms when bytes are cut. */
  pause_ms?: number;
}

/**
 * A provider-level script step: how one reply travels, beyond what a {@link CrystalReply} says.
 * Fields combine; the first that applies decides the HTTP answer: `status` (an error status), then
 * `overflow`, then `malformed`; otherwise the reply is served, shaped by `tool_call_ids`, `split`,
 * `finish_reason` and `stream_error_after`.
 */
export interface ProviderStep {
  /** Answer with this HTTP status (>= 400) instead of the reply: 429, 500, 503, 400, 401, 404... */
  status?: number;
  /**
   * The body sent with `status`: a string goes out verbatim, anything else as JSON. Default: the
   * format's own error shape carrying `message` and `code`.
   */
  body?: unknown;
  /** Message of the default error body. Default: the reply's error message, else a provider-like one. */
  message?: string;
  /** Code (OpenAI `error.code`), error type (Anthropic `error.type`) or status name (Gemini `error.status`) of the default error body. */
  code?: string;
  /** A `retry-after` header: seconds, or an HTTP date. Sent with any status. */
  retry_after?: number | string;
  /** More response headers (never `content-length`). */
  headers?: Record<string, string>;
  /** Answer a context overflow in the format's own shape (as a reply coded `context_limit_exceeded` also does). */
  overflow?: boolean | { tokens?: number; limit?: number };
  /**
   * A 200 whose body is broken. `truncated`: the real body cut in the middle (a stream stops in the
   * middle of an event, with no final event). `not_json`: text that is not JSON (in a stream, one
   * event whose data is not JSON). `wrong_shape`: JSON that is not the format's reply object.
   * `{text}`: exactly this text as the whole body.
   */
  malformed?: 'truncated' | 'not_json' | 'wrong_shape' | { text: string };
  /** Tool calls sent without ids, as some providers do: `omit` leaves the field out, `empty` sends `""`. */
  tool_call_ids?: 'omit' | 'empty';
  /** How a streamed reply is cut (ignored when the request did not ask for a stream). */
  split?: 'awkward' | StreamSplit;
  /** The raw finish reason on the wire (OpenAI `finish_reason`, Anthropic `stop_reason`, Gemini `finishReason`), overriding the derived one. */
  finish_reason?: string;
  /** A streamed reply that fails after this many events with the format's in-stream error event. */
  stream_error_after?: { events: number; message?: string; type?: string };
}

/** What the `answer` callback gives back: a reply, optionally with a provider-level step. */
export type ServedReply = CrystalReply & { provider?: ProviderStep };

/**
 * A wire-format problem found in a request. `error`: the provider would refuse the request (its API
 * reference says so); `note`: accepted by the provider, but worth knowing (e.g. consecutive
 * Anthropic turns of one role, which the API merges; a stream that asks for no usage).
 */
export interface WireProblem {
  severity: 'error' | 'note';
  /** A stable name for the check, e.g. `tool_result_unmatched`. */
  check: string;
  message: string;
  /** Where in the request body, e.g. `messages[3].content[0]`. */
  at?: string;
}

/** One HTTP request the server received and what it answered. Never holds the API key. */
export interface Exchange {
  /** Position in arrival order, from 0. */
  seq: number;
  /** The format the path belongs to; `unknown` for a path the server does not serve. */
  format: WireFormat | 'unknown';
  method: string;
  /** The path, without any query string. */
  path: string;
  /** Milliseconds since the server started, when the request arrived (from the `now` option). */
  at_ms: number;
  /** When the answer was fully written (or the connection gave up). */
  ended_ms?: number;
  /** The API key check: absent, present but wrong, or right. */
  auth: 'ok' | 'missing' | 'wrong';
  /** The model named in the request: the crystal. */
  crystal?: string;
  stream: boolean;
  /** The raw request body as received (UTF-8); `''` when the server's bound on kept bodies was reached (`body_not_kept`). */
  body: string;
  /** Bytes of a body the server read and answered but kept no copy of (past its `maxBodiesKept` or `maxBodyBytesKept` option); `body` and `request` are then left out. */
  body_not_kept?: number;
  /** The request parsed back into the crystal contract (absent when the body could not be read as one). */
  request?: CrystalRequest;
  /** Request fields that are transport options, not hyperparameters (e.g. `stream_options`, `parallel_tool_calls`). */
  wire_options?: Record<string, unknown>;
  /** The tool choice as sent, when it named one tool (mapped to `required` in `request`). */
  tool_choice_wire?: unknown;
  /** What `answer` replied. */
  reply?: CrystalReply;
  /** The provider-level step applied, if any. */
  provider?: ProviderStep;
  /** HTTP status served. */
  status?: number;
  /** Set when the kit itself refused the request (a body larger than it reads): no verdict on the implementation can rest on it. */
  refused_by_kit?: 'body-too-large';
  /** Problems with the request against the wire format. */
  problems: WireProblem[];
  /** For a streamed answer: events sent, and byte pieces written. */
  streamed?: { events: number; pieces: number };
  /** A failure inside the server (the callback threw, the socket closed early). */
  error?: string;
}

export interface CrystalServerOptions {
  /** Produces the reply for one query to one crystal (the model name of the request). */
  answer: (crystal: string, request: CrystalRequest) => Promise<ServedReply>;
  /** The per-run API key. Default: a fresh random one. */
  apiKey?: string;
  /** When given, a request naming another model gets the format's 404 without reaching `answer`. */
  crystals?: readonly string[];
  /** Status for a failed reply that carries none (MockCrystals faults). Default 400, which no client retries. */
  defaultErrorStatus?: number;
  /** Answer 400 in the format's shape when a request has problems of severity `error`, as the provider would. Default false. */
  strict?: boolean;
  /** Clock in milliseconds for `at_ms`/`ended_ms`. Default `performance.now()`. */
  now?: () => number;
  /** Called with each exchange once its answer is written (for the debugging command). */
  onExchange?: (exchange: Exchange) => void;
  /** Largest request body accepted, bytes. Default 32 MiB. */
  maxBodyBytes?: number;
  /** Request bodies (and their parsed requests) the server keeps a copy of; later ones are still read, checked and answered. Default 1,000. */
  maxBodiesKept?: number;
  /** Total bytes of the request bodies kept; a body that would go past it is not kept. Default 64 MiB. */
  maxBodyBytesKept?: number;
}

export interface CrystalServer {
  /** The base URL a client of `format` is configured with: `http://127.0.0.1:<port>/v1` (OpenAI, Anthropic) or `.../v1beta` (Gemini). */
  baseUrl(format: WireFormat): string;
  /** `http://127.0.0.1:<port>`, for SDKs that append `/v1/...` themselves. */
  readonly origin: string;
  readonly port: number;
  readonly apiKey: string;
  /** Every request received, in arrival order. */
  readonly exchanges: readonly Exchange[];
  /** The largest request body it reads, bytes; a larger one is refused with HTTP 413 (`refused_by_kit`). */
  readonly maxBodyBytes: number;
  /** The bound on kept bodies in force, and how many bodies came past it (0 when every body was kept). */
  readonly bodiesKept: { bound: number; kept: number; notKept: number };
  /** Stops listening and destroys every connection (idle keep-alive ones and those mid-request). Idempotent. */
  close(): Promise<void>;
}

/**
 * The crystal server: a case's scripted crystals served over HTTP in the providers' wire formats,
 * so an implementation's own provider code (HTTP, wire format, normalization, retries, streaming)
 * is what talks to the kit. Binds 127.0.0.1 only, on an ephemeral port; requires a per-run API key;
 * parses each request back into the crystal contract and checks it against the wire format; answers
 * with what `answer` replies, shaped by any provider-level step. docs/crystal-server.md.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { CrystalReply } from '../../schemas/adapter.ts';
import { rememberMadeUpSecret } from '../values/index.ts';
import type { CrystalResponse } from '../../schemas/records.ts';
import { anthropicCodec } from './anthropic.ts';
import { callsOf, type ReplyContext, type RequestTarget, type ServedCalls, type WireCodec } from './codec.ts';
import { geminiCodec } from './gemini.ts';
import { openaiCodec } from './openai.ts';
import type { CrystalServer, CrystalServerOptions, Exchange, ProviderStep, ServedReply, WireFormat } from './types.ts';
import { cutBytes, endsInsideCharacter, isRecord, overflowNumbers, ProblemList, redact, redactDeep, resolveSplit, sseFrame } from './wire-util.ts';

const CODECS: Record<WireFormat, WireCodec> = { openai: openaiCodec, anthropic: anthropicCodec, gemini: geminiCodec };
const DEFAULT_MAX_BODY = 32 * 1024 * 1024;
/**
 * Copies of request bodies kept per server (one per case): far beyond any case's own requests (a few dozen),
 * so the kit's memory does not follow an implementation that sends thousands of large requests.
 */
export const MAX_BODIES_KEPT = 1_000;
export const MAX_BODY_BYTES_KEPT = 64 * 1024 * 1024;

/** Which format a path belongs to: the endpoint suffix decides, whatever prefix the client's base URL added. */
function formatOfPath(path: string): WireFormat | undefined {
  if (/\/chat\/completions\/?$/.test(path)) return 'openai';
  // Gemini names the model and the method in the path: .../models/{model}:generateContent.
  if (/\/(?:models|tunedModels)\/[^/]+:(?:generateContent|streamGenerateContent)\/?$/.test(path)) return 'gemini';
  if (/\/messages\/?$/.test(path)) return 'anthropic';
  return undefined;
}

/** A fresh per-run key. */
export function newApiKey(): string {
  return `cck-${randomBytes(24).toString('base64url')}`;
}

/** Starts the server on 127.0.0.1 at an ephemeral port. */
export async function startCrystalServer(options: CrystalServerOptions): Promise<CrystalServer> {
  const apiKey = options.apiKey ?? newApiKey();
  if (apiKey === '') throw new Error('the crystal server needs a non-empty API key');
  // Whatever the implementation shows of it, no output of the kit may carry it.
  rememberMadeUpSecret(apiKey);
  const clock = options.now ?? (() => performance.now());
  const started = clock();
  const now = (): number => Math.round((clock() - started) * 1000) / 1000;
  const exchanges: Exchange[] = [];
  const bodiesKept = { bound: options.maxBodiesKept ?? MAX_BODIES_KEPT, kept: 0, notKept: 0 };
  let bodyBytesKept = 0;
  const sockets = new Set<Socket>();
  let nextId = 1;
  let closing: Promise<void> | undefined;
  /** Tool calls served to each crystal, in order (Gemini requests are matched against them). */
  const servedCalls = new Map<string, ServedCalls[]>();
  const servedToAll: ServedCalls[] = [];

  const server = createServer({ keepAliveTimeout: 5000 }, (req, res) => {
    res.on('error', () => undefined);
    handle(req, res).catch((error: unknown) => {
      // Nothing of the failure may carry the key; the exchange, if any, already records it.
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'crystal server failure', type: 'server_error' } }));
      } else if (!res.destroyed) res.destroy();
      void error;
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    socket.on('close', () => sockets.delete(socket));
    if (closing) socket.destroy();
  });
  server.on('clientError', (_error, socket) => socket.destroy());

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    const mark = url.indexOf('?');
    const rawPath = mark === -1 ? url : url.slice(0, mark);
    const rawQuery = mark === -1 ? '' : url.slice(mark + 1);
    // A Gemini model name may arrive percent-encoded (`models/a%2Fb:generateContent` is rare, `%3A` is not).
    const path = safeDecode(rawPath);
    const query = new URLSearchParams(rawQuery);
    const format = formatOfPath(path);
    const exchange: Exchange = {
      seq: exchanges.length,
      format: format ?? 'unknown',
      method: req.method ?? 'GET',
      path: redact(path, apiKey),
      at_ms: now(),
      auth: 'missing',
      stream: false,
      body: '',
      problems: [],
    };
    exchanges.push(exchange);
    const finish = (): void => {
      exchange.ended_ms = now();
      options.onExchange?.(exchange);
    };
    res.on('close', () => {
      if (exchange.ended_ms === undefined) {
        if (!res.writableFinished) exchange.error ??= 'the connection closed before the answer was complete';
        finish();
      }
    });

    let raw: Buffer;
    try {
      raw = await readBody(req, options.maxBodyBytes ?? DEFAULT_MAX_BODY);
    } catch (error) {
      exchange.error = redact(error instanceof Error ? error.message : String(error), apiKey);
      // Only a body past the size the kit reads is the kit's refusal; a request its client aborted is not.
      if (!(error instanceof BodyTooLarge)) return;
      exchange.refused_by_kit = 'body-too-large';
      const codec = format ? CODECS[format] : openaiCodec;
      sendJson(res, 413, codec.errorBody(413, 'request body too large', 'request_too_large'), {}, exchange);
      return;
    }
    // Every body is read, checked and answered; a copy is kept only within the bounds.
    const keep = bodiesKept.kept < bodiesKept.bound && bodyBytesKept + raw.length <= (options.maxBodyBytesKept ?? MAX_BODY_BYTES_KEPT);
    if (keep) {
      exchange.body = redact(raw.toString('utf8'), apiKey);
      bodiesKept.kept++;
      bodyBytesKept += raw.length;
    } else {
      exchange.body_not_kept = raw.length;
      bodiesKept.notKept++;
    }

    if (!format) {
      sendJson(res, 404, { error: { message: `unknown path ${exchange.path}; this server answers POST .../chat/completions (OpenAI), POST .../messages (Anthropic) and POST .../models/{model}:generateContent or :streamGenerateContent (Gemini)`, type: 'invalid_request_error', code: 'unknown_url' } }, {}, exchange);
      return;
    }
    const codec = CODECS[format];
    exchange.auth = codec.auth(req.headers, apiKey, query);
    if (exchange.auth !== 'ok') {
      const answer = codec.authError(exchange.auth);
      sendJson(res, answer.status, answer.body, {}, exchange);
      return;
    }
    if (req.method !== 'POST') {
      sendJson(res, 405, codec.errorBody(405, `method ${req.method ?? ''} not allowed; use POST`), { allow: 'POST' }, exchange);
      return;
    }

    let json: unknown;
    try {
      json = JSON.parse(raw.toString('utf8')) as unknown;
    } catch {
      exchange.problems.push({ severity: 'error', check: 'json', message: 'the request body is not valid JSON' });
      sendJson(res, 400, codec.errorBody(400, 'the request body is not valid JSON'), {}, exchange);
      return;
    }
    const problems = new ProblemList();
    const target: RequestTarget = { path, query, served: (crystal) => (crystal === undefined ? servedToAll : (servedCalls.get(crystal) ?? [])) };
    const parsed = codec.parse(json, req.headers, problems, target);
    exchange.problems = redactDeep(problems.items, apiKey);
    exchange.stream = parsed.stream;
    if (parsed.crystal !== undefined) exchange.crystal = redact(parsed.crystal, apiKey);
    if (Object.keys(parsed.wireOptions).length > 0) exchange.wire_options = redactDeep(parsed.wireOptions, apiKey);
    if (parsed.toolChoiceWire !== undefined) exchange.tool_choice_wire = redactDeep(parsed.toolChoiceWire, apiKey);
    if (parsed.fatal !== undefined || !parsed.request || parsed.crystal === undefined) {
      const message = parsed.fatal ?? 'the request cannot be read';
      exchange.problems.push({ severity: 'error', check: 'request_shape', message });
      sendJson(res, 400, codec.errorBody(400, message), {}, exchange);
      return;
    }
    if (keep) exchange.request = redactDeep(parsed.request, apiKey);
    const crystal = parsed.crystal;
    if (options.crystals && !options.crystals.includes(crystal)) {
      const answer = codec.modelNotFound(crystal);
      sendJson(res, answer.status, answer.body, {}, exchange);
      return;
    }
    if (options.strict && problems.items.some((p) => p.severity === 'error')) {
      const first = problems.items.find((p) => p.severity === 'error')!;
      sendJson(res, 400, codec.errorBody(400, first.message), {}, exchange);
      return;
    }

    let served: ServedReply;
    try {
      served = await options.answer(crystal, parsed.request);
    } catch (error) {
      exchange.error = redact(`the answer callback failed: ${error instanceof Error ? error.message : String(error)}`, apiKey);
      sendJson(res, 500, codec.errorBody(500, 'The server had an error while processing your request.'), {}, exchange);
      return;
    }
    if (res.destroyed) return; // closed while the answer was pending
    const { provider: step, ...reply } = served;
    exchange.reply = redactDeep(reply as CrystalReply, apiKey);
    if (step) exchange.provider = redactDeep(step, apiKey);
    const id = nextId++;
    const ctx: ReplyContext = {
      model: crystal,
      id: codec.responseId(id),
      created: Math.floor(Date.now() / 1000),
      step,
      includeUsage: parsed.includeUsage,
      split: resolveSplit(step?.split),
      ...(parsed.streamArray && { streamArray: true }),
    };
    await deliver(codec, res, exchange, reply as CrystalReply, ctx);
  }

  function headersFor(codec: WireCodec, ctx: { id: string } | undefined, step: ProviderStep | undefined): Record<string, string> {
    const headers: Record<string, string> = {};
    if (ctx && codec.requestIdHeader) headers[codec.requestIdHeader] = `req_${ctx.id}`;
    if (step?.retry_after !== undefined) headers['retry-after'] = String(step.retry_after);
    for (const [k, v] of Object.entries(step?.headers ?? {})) if (k.toLowerCase() !== 'content-length') headers[k.toLowerCase()] = v;
    return headers;
  }

  async function deliver(codec: WireCodec, res: ServerResponse, exchange: Exchange, reply: CrystalReply, ctx: ReplyContext): Promise<void> {
    const step = ctx.step;
    const headers = headersFor(codec, ctx, step);
    // 1. A scripted HTTP status.
    if (step?.status !== undefined && step.status >= 400) {
      const message = step.message ?? (reply.ok ? undefined : reply.error.message) ?? defaultMessage(step.status);
      const code = step.code ?? (reply.ok ? undefined : reply.error.code);
      const body = step.body !== undefined ? step.body : codec.errorBody(step.status, message, code, { retryAfter: step.retry_after });
      sendJson(res, step.status, body, headers, exchange);
      return;
    }
    // 2. A context overflow, scripted or replied.
    if (step?.overflow || (!reply.ok && reply.error.code === 'context_limit_exceeded')) {
      const message = reply.ok ? 'the prompt exceeds the context window' : reply.error.message;
      const numbers = isRecord(step?.overflow) ? step.overflow : overflowNumbers(message);
      const answer = codec.overflow(message, numbers);
      sendJson(res, answer.status, answer.body, headers, exchange);
      return;
    }
    // 3. A failed reply.
    if (!reply.ok) {
      const status = reply.error.status ?? options.defaultErrorStatus ?? 400;
      sendJson(res, status, codec.errorBody(status, reply.error.message, reply.error.code), headers, exchange);
      return;
    }
    const response: CrystalResponse = reply.response;
    // 4. A broken 200.
    if (step?.malformed !== undefined) {
      await sendMalformed(codec, res, exchange, response, ctx, headers);
      return;
    }
    // 5. The reply. Its calls are remembered before they go out, for the next request's read-back.
    const calls = callsOf(response);
    if (calls.length > 0 && exchange.crystal !== undefined) {
      const list = servedCalls.get(ctx.model) ?? [];
      const copy = calls.map((c) => ({ ...c }));
      list.push(copy);
      servedCalls.set(ctx.model, list);
      servedToAll.push(copy);
    }
    if (!exchange.stream) {
      sendJson(res, 200, codec.replyBody(response, ctx), headers, exchange);
      return;
    }
    let frames = codec.streamFrames(response, ctx);
    if (step?.stream_error_after) {
      const n = Math.max(0, Math.min(frames.length, step.stream_error_after.events));
      frames = [...frames.slice(0, n), codec.streamErrorFrame(step.stream_error_after.message ?? 'Overloaded', step.stream_error_after.type)];
    }
    await sendStream(res, frames, ctx, headers, exchange);
  }

  async function sendMalformed(
    codec: WireCodec,
    res: ServerResponse,
    exchange: Exchange,
    response: CrystalResponse,
    ctx: ReplyContext,
    headers: Record<string, string>,
  ): Promise<void> {
    const kind = ctx.step!.malformed!;
    if (typeof kind === 'object') {
      sendText(res, 200, kind.text, exchange.stream ? 'text/event-stream' : 'application/json', headers, exchange);
      return;
    }
    if (kind === 'wrong_shape') {
      if (exchange.stream) await sendStream(res, [sseFrame(JSON.stringify(codec.wrongShapeBody(ctx))), ...codec.closingFrames], ctx, headers, exchange);
      else sendJson(res, 200, codec.wrongShapeBody(ctx), headers, exchange);
      return;
    }
    if (!exchange.stream) {
      const whole = JSON.stringify(codec.replyBody(response, ctx));
      const text = kind === 'truncated' ? whole.slice(0, Math.floor(whole.length / 2)) : 'upstream connect error or disconnect/reset before headers';
      sendText(res, 200, text, 'application/json', headers, exchange);
      return;
    }
    const frames = codec.streamFrames(response, ctx);
    if (kind === 'truncated') {
      // Half the events, then half of the next one, then the connection ends.
      const half = Math.max(1, Math.floor(frames.length / 2));
      const next = frames[half] ?? '';
      await sendStream(res, [...frames.slice(0, half), next.slice(0, Math.floor(next.length / 2))], ctx, headers, exchange);
    } else {
      await sendStream(res, [frames[0] ?? '', codec.brokenStreamFrame, ...frames.slice(1)], ctx, headers, exchange);
    }
  }

  function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>, exchange: Exchange): void {
    if (typeof body === 'string') sendText(res, status, body, 'application/json', headers, exchange);
    else sendText(res, status, JSON.stringify(body), 'application/json', headers, exchange);
  }

  function sendText(res: ServerResponse, status: number, text: string, type: string, headers: Record<string, string>, exchange: Exchange): void {
    exchange.status = status;
    if (res.destroyed || res.headersSent) return;
    const data = Buffer.from(text, 'utf8');
    res.writeHead(status, { 'content-type': type, 'content-length': String(data.length), ...headers });
    res.end(data);
  }

  async function sendStream(res: ServerResponse, frames: string[], ctx: ReplyContext, headers: Record<string, string>, exchange: Exchange): Promise<void> {
    exchange.status = 200;
    if (res.destroyed) return;
    // Gemini's streamGenerateContent without alt=sse sends its chunks as one JSON array, written as they come.
    const type = ctx.streamArray ? 'application/json; charset=utf-8' : 'text/event-stream; charset=utf-8';
    res.writeHead(200, { 'content-type': type, 'cache-control': 'no-cache', ...headers });
    res.flushHeaders();
    const pieces = cutBytes(frames, ctx.split.bytes);
    exchange.streamed = { events: frames.length, pieces: pieces.length };
    for (const [i, piece] of pieces.entries()) {
      if (res.destroyed) return;
      res.write(piece);
      if (i === pieces.length - 1) continue;
      // A real pause makes the client read a cut character in two reads. The 'awkward' preset pauses
      // only there and merely yields at its other cuts: a timer per piece (hundreds per reply) would
      // make a case's time, and so its verdict against the case bound, depend on the machine's load.
      if (ctx.split.pauseMs > 0 && (ctx.split.bytes !== 'awkward' || endsInsideCharacter(piece))) await sleep(ctx.split.pauseMs);
      else await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (!res.destroyed) res.end();
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the crystal server has no TCP address');
  const port = address.port;
  const origin = `http://127.0.0.1:${port}`;

  return {
    origin,
    port,
    apiKey,
    exchanges,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY,
    bodiesKept,
    baseUrl(format: WireFormat): string {
      if (!CODECS[format]) throw new Error(`unknown wire format ${JSON.stringify(format)}`);
      return format === 'gemini' ? `${origin}/v1beta` : `${origin}/v1`;
    },
    close(): Promise<void> {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}

function defaultMessage(status: number): string {
  switch (status) {
    case 400:
      return 'Bad request';
    case 401:
      return 'Incorrect API key provided.';
    case 403:
      return 'Permission denied';
    case 404:
      return 'Not found';
    case 429:
      return 'Rate limit reached for requests';
    case 500:
      return 'The server had an error while processing your request.';
    case 503:
      return 'The service is temporarily unavailable.';
    case 529:
      return 'Overloaded';
    default:
      return `HTTP ${status}`;
  }
}

/** A request body past the size the server reads: the kit's own refusal (HTTP 413). */
class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        reject(new BodyTooLarge(`request body over ${max} bytes`));
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
    req.on('aborted', () => reject(new Error('the request was aborted')));
  });
}

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

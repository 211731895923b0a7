import type { ErrorCode } from '../../../schemas/index.ts';
import { CrystalError } from '../crystal-error.ts';
import { redact } from './secret.ts';

/** How a provider reaches the network. Injectable so tests (msw) and hosts control it. */
export interface Transport {
  /** Defaults to the global `fetch`. */
  fetch?: typeof fetch;
  /** Upper bound on one HTTP exchange, body included. Default 120 000 ms: no query waits forever. */
  timeoutMs?: number;
}

/** One POST to a provider. */
export interface HttpCall {
  /** Label used in error messages, e.g. `openai:gpt-4o-mini`. Never contains the key. */
  label: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  /** The API key, only so that it can be scrubbed from anything the provider echoes back. */
  secret?: string | undefined;
  signal?: AbortSignal | undefined;
  transport: Transport;
  /** Says whether an error reply means the input was over the context window (CRYSTAL-2). */
  isContextOverflow: (status: number, body: unknown, message: string) => boolean;
}

export const DEFAULT_TIMEOUT_MS = 120_000;

/**
 * Sends the request and returns the response when it is 2xx. Anything else becomes a
 * {@link CrystalError}: a context-overflow reply → `context_limit_exceeded` (CRYSTAL-2); any other
 * status → `crystal_error` with the status, retryable for 429 and 5xx (PROD-2); a transport failure
 * or timeout → `crystal_error`, retryable, without status.
 */
export async function post(call: HttpCall): Promise<Response> {
  const doFetch = call.transport.fetch ?? fetch;
  const timeout = AbortSignal.timeout(call.transport.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const signal = call.signal ? AbortSignal.any([call.signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await doFetch(call.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...call.headers },
      body: JSON.stringify(call.body),
      signal,
    });
  } catch (error) {
    throw transportError(call, error);
  }
  if (response.ok) return response;
  const text = await readText(response, call);
  const body = parseOrUndefined(text);
  const message = redact(providerMessage(body) ?? text.slice(0, 500), call.secret);
  const code: ErrorCode = call.isContextOverflow(response.status, body, message)
    ? 'context_limit_exceeded'
    : 'crystal_error';
  throw new CrystalError(code, `${call.label}: HTTP ${response.status}: ${message}`, {
    status: response.status,
    retryable: code === 'context_limit_exceeded' ? false : undefined,
  });
}

/** Reads a 2xx body as JSON; anything unparseable is `invalid_crystal_response`. */
export async function readJson(response: Response, call: HttpCall): Promise<unknown> {
  const text = await readText(response, call);
  const body = parseOrUndefined(text);
  if (body === undefined) {
    throw new CrystalError(
      'invalid_crystal_response',
      `${call.label}: HTTP ${response.status} body is not JSON (starts with ${JSON.stringify(redact(text.slice(0, 80), call.secret))})`,
      { status: response.status, retryable: false },
    );
  }
  return body;
}

/** Turns a fetch or body-read failure into a retryable `crystal_error` (or a final one if the caller aborted). */
export function transportError(call: HttpCall, error: unknown): CrystalError {
  if (error instanceof CrystalError) return error;
  const aborted = call.signal?.aborted === true;
  const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new CrystalError(
    'crystal_error',
    `${call.label}: ${aborted ? 'query aborted' : 'request failed'}: ${redact(what, call.secret)}`,
    { retryable: !aborted },
  );
}

async function readText(response: Response, call: HttpCall): Promise<string> {
  try {
    return await response.text();
  } catch (error) {
    throw transportError(call, error);
  }
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The human message inside the common error envelopes: `{error: {message}}`, `{error: "..."}`, `{message}`. */
export function providerMessage(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  const error = body['error'];
  if (typeof error === 'string') return error;
  if (isRecord(error) && typeof error['message'] === 'string') return error['message'];
  if (typeof body['message'] === 'string') return body['message'];
  return undefined;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One server-sent event: the `event:` name when given, and the joined `data:` lines. */
export interface SseEvent {
  event: string | undefined;
  data: string;
}

/**
 * Parses a `text/event-stream` body (the SSE wire format of the WHATWG HTML standard) into events.
 * Comment lines (`: keep-alive`, OpenRouter's `: OPENROUTER PROCESSING`) are skipped; `\r\n`, `\r`
 * and `\n` line ends are all accepted, as the format allows.
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event: string | undefined;
  let data: string[] = [];
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      const lines = buffer.split(/\r\n|\r|\n/);
      // The last piece may be an unfinished line, unless the stream ended.
      buffer = done ? '' : (lines.pop() ?? '');
      for (const line of lines) {
        if (line === '') {
          if (data.length > 0) yield { event, data: data.join('\n') };
          event = undefined;
          data = [];
        } else if (!line.startsWith(':')) {
          const colon = line.indexOf(':');
          const field = colon === -1 ? line : line.slice(0, colon);
          const raw = colon === -1 ? '' : line.slice(colon + 1);
          const value = raw.startsWith(' ') ? raw.slice(1) : raw;
          if (field === 'event') event = value;
          else if (field === 'data') data.push(value);
        }
      }
      if (done) break;
    }
    if (data.length > 0) yield { event, data: data.join('\n') };
  } finally {
    reader.releaseLock();
  }
}

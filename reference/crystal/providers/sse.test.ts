import { describe, expect, it } from 'vitest';
import { readSse, type SseEvent } from './sse.ts';

function streamOf(...pieces: string[]): ReadableStream<Uint8Array> {
  const bytes = pieces.map((p) => new TextEncoder().encode(p));
  return new ReadableStream({
    start(controller) {
      for (const b of bytes) controller.enqueue(b);
      controller.close();
    },
  });
}

async function all(stream: ReadableStream<Uint8Array>): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const event of readSse(stream)) events.push(event);
  return events;
}

describe('readSse (streaming transport for CRYSTAL-6 providers)', () => {
  it('CRYSTAL-6: events split across chunks, CRLF line ends and comments are read correctly', async () => {
    const events = await all(streamOf('event: a\r\nda', 'ta: {"x":1}\r\n\r\n: keep-alive\n\n', 'data: one\ndata: two\n\n', 'data: tail'));
    expect(events).toEqual([
      { event: 'a', data: '{"x":1}' },
      { event: undefined, data: 'one\ntwo' },
      { event: undefined, data: 'tail' },
    ]);
  });

  it('CRYSTAL-6: a multi-byte character split between chunks survives', async () => {
    const bytes = new TextEncoder().encode('data: é\n\n');
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 7));
        controller.enqueue(bytes.slice(7));
        controller.close();
      },
    });
    expect(await all(stream)).toEqual([{ event: undefined, data: 'é' }]);
  });
});

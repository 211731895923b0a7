import type { AnyMessage, Stream } from '@agentclientprotocol/sdk';

/**
 * PROD-9, the debug mode: the same stream, with every message going in or out also handed to `log`
 * (`<-` received from the client, `->` sent to it). Messages pass through unchanged, in order.
 */
export function tracedStream(stream: Stream, log: (line: string) => void): Stream {
  const tap = (direction: string) =>
    new TransformStream<AnyMessage, AnyMessage>({
      transform(message, controller) {
        log(`${direction} ${JSON.stringify(message)}`);
        controller.enqueue(message);
      },
    });
  const incoming = tap('<-');
  const outgoing = tap('->');
  void outgoing.readable.pipeTo(stream.writable).catch(() => {});
  return { readable: stream.readable.pipeThrough(incoming), writable: outgoing.writable };
}

/**
 * The adapter protocol's default handshake and silence bounds are bounds on a hang, held on an idle
 * machine: on a loaded one they stretch with the load, like a case's limit, so a slow start or answer of
 * a working implementation is not cut off (issue 31, item 5). Bounds a caller gives are kept as given.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_HANDSHAKE_MS, DEFAULT_SILENCE_MS, waitBounds } from './jsonrpc-adapter.ts';

describe('the handshake and silence bounds of a cmd: adapter', () => {
  it('the defaults on an idle machine, stretched by the load factor on a busy one', () => {
    expect(waitBounds({}, 1)).toEqual({ handshakeMs: DEFAULT_HANDSHAKE_MS, silenceMs: DEFAULT_SILENCE_MS });
    expect(waitBounds({}, 9)).toEqual({ handshakeMs: DEFAULT_HANDSHAKE_MS * 9, silenceMs: DEFAULT_SILENCE_MS * 9 });
  });

  it('bounds given are kept as they are, whatever the load', () => {
    expect(waitBounds({ handshakeMs: 1_000, silenceMs: 300 }, 9)).toEqual({ handshakeMs: 1_000, silenceMs: 300 });
  });
});

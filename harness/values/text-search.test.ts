/** pathsShowing: every string and key that holds a text, named by its path (used to say where a secret leaked, PROD-8). */
import { describe, it, expect } from 'vitest';
import { pathsShowing } from './text-search.ts';

describe('pathsShowing', () => {
  const value = { turns: [{ observation: 'ok' }, { observation: 'token abc123 refused', gate_calls: [{ result: 'abc123' }] }], 'odd key': ['abc123'], abc123: 1 };

  it('names each string that holds the text, in document order, with bracketed odd keys and (key) for keys', () => {
    expect(pathsShowing(value, 'abc123', 'loom')).toEqual(['loom.turns[1].observation', 'loom.turns[1].gate_calls[0].result', 'loom["odd key"][0]', 'loom.abc123 (key)']);
  });

  it('finds nothing where the text is not, nor in numbers, nor for an empty text', () => {
    expect([pathsShowing(value, 'zzz', 'r'), pathsShowing({ n: 123 }, '123', 'r'), pathsShowing(value, '', 'r')]).toEqual([[], [], []]);
  });
});

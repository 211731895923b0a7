import { describe, it, expect } from 'vitest';
import type { Matcher } from '../case-file/types.ts';
import { applyMatcher, MATCHER_NAMES } from './matchers.ts';
import { parsePath, PathError } from '../case-file/path-syntax.ts';
import { resolvePath } from './paths.ts';

const none = (): unknown => undefined;
const holds = (m: Matcher, actual: unknown, lookup: (p: string) => unknown = none): boolean => applyMatcher(m, actual, lookup).ok;

// For every matcher: one value it accepts and one it rejects, so no matcher accepts anything.
const TABLE: [Matcher, unknown, unknown][] = [
  [{ equals: { a: [1, 2] } }, { a: [1, 2] }, { a: [2, 1] }],
  [{ not_equals: 'x' }, 'y', 'x'],
  // A stored result kept as the text the entity saw: "1" is 1 as seen, "2" is not.
  [{ seen_as: [1, 'a'] }, ['1', 'a'], ['2', 'a']],
  // A batch's results as text of the implementation's own making: each answer found, in order.
  [{ batch_results: { slots: [{ answer: 'S' }, { answer: 'F' }] } }, '1. S\n2. F', '1. F\n2. S'],
  [{ like: { ok: false, error: { name: 'E' } } }, { ok: false, error: { name: 'E', message: 'm' }, gate: 'g' }, { ok: true }],
  [{ contains: { role: 'tool' } }, [{ role: 'user' }, { role: 'tool', content: 'x' }], [{ role: 'user' }]],
  [{ not_contains: 'late' }, ['early'], ['early', 'late']],
  [{ length: 2 }, [1, 2], [1]],
  [{ one_of: ['snapshot', 'replay'] }, 'replay', 'copy'],
  [{ greater_than: 1 }, 2, 1],
  [{ less_than: 1 }, 0, 1],
  [{ at_least: 1 }, 1, 0],
  [{ at_most: 1 }, 1, 2],
  [{ absent: true }, undefined, null],
  [{ present: true }, 0, null],
  [{ type: 'integer' }, 3, 3.5],
  [{ same_as: 'other' }, 'v', 'w'],
  [{ every: { greater_than: 0 } }, [1, 2], [1, 0]],
  [{ unique: true }, ['a', 'b'], ['a', 'a']],
  [{ increasing: true }, [1, 2, 5], [1, 1]],
  [{ schema: 'usage' }, { prompt: 1, completion: 2, cached: 0 }, { prompt: -1 }],
  [{ any_of: [{ equals: 1 }, { equals: 2 }] }, 2, 3],
  [{ contains_text_at: 'marker' }, ['x', 'a [M] b'], ['x']],
  // A record the spec names no field for: the value at `other` anywhere inside, under any key.
  [{ holds: 'S' }, { id: 'r', identity: { system_prompt: 'S', gates: [] } }, { id: 'r', call: { system_prompt: 'T' }, note: 'S!' }],
  [{ holds_value_at: 'other' }, { id: 't', fork_strategy: 'v' }, { id: 't', fork: { strategy: 'w' }, note: 'a v b' }],
  [{ some: { equals: 2 } }, [1, 2], [1, 3]],
  [{ none: { equals: 2 } }, [1, 3], [1, 2]],
  [{ length: { at_least: 2 } }, [1, 2, 3], [1]],
];

describe('matchers', () => {
  it('any_of: an alternative with its own path is looked up there, and every alternative failing fails', () => {
    const lookup = (p: string): unknown => (p === 'failures.first' ? { message: 'm' } : undefined);
    expect(holds({ any_of: [{ equals: 'x' }, { path: 'failures.first', present: true }] }, undefined, lookup)).toBe(true);
    expect(holds({ any_of: [{ equals: 'x' }, { path: 'failures.other', present: true }] }, undefined, lookup)).toBe(false);
  });

  it('seen_as: the value or JSON text rendering it passes; other text, another value or the wrong shape fails', () => {
    expect(holds({ seen_as: 42 }, 42)).toBe(true);
    expect(holds({ seen_as: 42 }, '42')).toBe(true);
    expect(holds({ seen_as: ['S', 'M', 'F'] }, '["S","M","F"]')).toBe(true);
    expect(holds({ seen_as: { rows: 3 } }, '{\n  "rows": 3\n}')).toBe(true);
    expect(holds({ seen_as: 'kept' }, 'kept')).toBe(true);
    expect(holds({ seen_as: 'kept' }, 'kept!')).toBe(false);
    expect(holds({ seen_as: 42 }, '43')).toBe(false);
    expect(holds({ seen_as: ['S', 'M', 'F'] }, '["S","F","M"]')).toBe(false);
    expect(holds({ seen_as: 42 }, undefined)).toBe(false);
  });

  it('the table covers every matcher', () => {
    const covered = TABLE.map(([m]) => Object.keys(m)[0]);
    expect(new Set(covered)).toEqual(new Set(MATCHER_NAMES));
  });

  for (const [m, good, bad] of TABLE) {
    const name = Object.keys(m)[0]!;
    it(`${name} accepts a matching value and rejects a wrong one`, () => {
      const lookup = (p: string): unknown => (p === 'other' ? 'v' : p === 'marker' ? '[M]' : undefined);
      expect(holds(m, good, lookup)).toBe(true);
      expect(holds(m, bad, lookup)).toBe(false);
    });
  }

  it('every, unique and increasing fail on an empty array (no vacuous pass)', () => {
    expect(holds({ every: { equals: 1 } }, [], none)).toBe(false);
    expect(holds({ unique: true }, [], none)).toBe(false);
    expect(holds({ increasing: true }, [], none)).toBe(false);
  });

  it('only absent accepts a path that found nothing', () => {
    for (const [m] of TABLE.filter(([x]) => !('absent' in x))) expect(holds(m, undefined)).toBe(false);
  });

  it('a failure says what was expected', () => {
    const verdict = applyMatcher({ length: 3 }, [1], none);
    expect(verdict).toMatchObject({ ok: false, expected: { length: 3 } });
    // The numbers, found and expected, in that order; no placeholder.
    const why = 'why' in verdict ? verdict.why : undefined;
    expect(why).toMatch(/\b1\b[^]*\b3\b/);
    expect(why).not.toContain('#');
  });
});

describe('paths', () => {
  const record = {
    outcomes: { first: { status: 'terminated' } },
    requests: { parent: [{ messages: [{ role: 'system', content: 's' }, { role: 'user', content: 'u' }, { role: 'tool', content: 't' }] }] },
    loom: { turns: [{ id: 'a', sequence: 1 }, { id: 'b', sequence: 2 }] },
  };
  const helpers = (name: string, arg: string): unknown[] | undefined => (name === 'cast' && arg === 'first' ? record.loom.turns : undefined);
  const at = (path: string): unknown => resolvePath(record, parsePath(path), helpers);

  it('keys, indexes, negative indexes, projections and filters', () => {
    expect(at('outcomes.first.status')).toBe('terminated');
    expect(at('requests.parent[0].messages[-1].role')).toBe('tool');
    expect(at('requests.parent[0].messages[*].role')).toEqual(['system', 'user', 'tool']);
    expect(at('requests.parent[0].messages[role=user][0].content')).toBe('u');
    expect(at('loom.turns[sequence=2][0].id')).toBe('b');
  });

  it('loom helpers resolve through the resolver, and unknown names find nothing', () => {
    expect(at('loom.cast(first)[*].id')).toEqual(['a', 'b']);
    expect(at('loom.cast(nobody)')).toBeUndefined();
  });

  it('a step that finds nothing yields undefined', () => {
    expect(at('outcomes.second.status')).toBeUndefined();
    expect(at('requests.parent[5]')).toBeUndefined();
    expect(at('outcomes.first.status.deeper')).toBeUndefined();
  });

  it('malformed paths are refused with a PathError', () => {
    for (const bad of ['nowhere.x', 'outcomes..x', 'outcomes[x', 'outcomes.first.cast(x)', 'loom.fold(x)', 'outcomes[a b]']) {
      expect(() => parsePath(bad), bad).toThrow(PathError);
    }
  });
});

describe('as_seen (issue 21, class 3)', () => {
  it('reads a stored result kept as rendered text before the matcher, stepping into it; other values still fail', async () => {
    const { asSeen } = await import('../values/index.ts');
    expect(holds({ length: 3 }, asSeen('["S","M","F"]'))).toBe(true);
    expect(holds({ length: 3 }, asSeen('["S","M"]'))).toBe(false);
    const record = { r: '[{"error":"x"},"two"]' };
    expect(resolvePath({ outcomes: record }, parsePath('outcomes.r[1]'), () => undefined, true)).toBe('two');
    expect(resolvePath({ outcomes: record }, parsePath('outcomes.r[1]'), () => undefined)).toBeUndefined();
  });
});

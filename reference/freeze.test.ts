import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deepFreeze, sealedCopy } from './freeze.ts';

describe('sealing values (LOOM-3, CALL-1)', () => {
  it('LOOM-3: sealedCopy gives what a JSON round trip gives, for any JSON-like value', () => {
    const values = fc.oneof(
      fc.jsonValue(),
      fc.anything({ withDate: true, withNullPrototype: false, withBigInt: false, withMap: false, withSet: false, withTypedArray: false, withSparseArray: true, withBoxedValues: false, withObjectString: false }),
    );
    fc.assert(
      fc.property(values, (value) => {
        const text = JSON.stringify(value);
        if (text === undefined) return; // values JSON cannot carry at the top level (undefined, functions)
        expect(sealedCopy(value)).toEqual(JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });

  it('LOOM-3: the copy is frozen all the way down and shares nothing with the original', () => {
    const original = { a: [1, { b: 'x' }], when: new Date(0), skip: undefined, nan: Number.NaN };
    const copy = sealedCopy(original) as unknown as { a: [number, { b: string }]; when: string; nan: null };
    expect(copy).toEqual({ a: [1, { b: 'x' }], when: '1970-01-01T00:00:00.000Z', nan: null });
    expect(Object.isFrozen(copy.a[1])).toBe(true);
    (original.a[1] as { b: string }).b = 'changed';
    expect(copy.a[1].b).toBe('x');
  });

  it('LOOM-3: values JSON cannot store are refused with a TypeError, as JSON.stringify would', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => sealedCopy(cyclic)).toThrow(TypeError);
    expect(() => sealedCopy({ n: 1n })).toThrow(TypeError);
  });

  it('LOOM-3: the awkward corners of JSON match too: -0, a "__proto__" key, sparse arrays', () => {
    const tricky = JSON.parse('{"__proto__": {"polluted": true}, "z": -0}') as Record<string, unknown>;
    const copy = sealedCopy({ ...tricky, sparse: [1, , 3], negativeZero: -0 }) as Record<string, unknown>;
    expect(Object.is(copy.negativeZero, 0)).toBe(true);
    expect(Object.getOwnPropertyNames(copy)).toContain('__proto__');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(copy.sparse).toEqual([1, null, 3]);
  });

  it('CALL-1: deepFreeze freezes nested objects and arrays in place', () => {
    const value = deepFreeze({ a: { b: [1, { c: 2 }] } });
    expect(Object.isFrozen(value.a.b[1])).toBe(true);
    expect(() => {
      (value.a.b as unknown[]).push(3);
    }).toThrow(TypeError);
  });
});

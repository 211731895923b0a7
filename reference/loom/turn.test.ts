import fc from 'fast-check';
import { describe, it, expect } from 'vitest';
import type { Turn } from '../../schemas/records.ts';
import { sampleCrystalTurn } from './sample-turns.ts';
import { deepFreeze } from '../freeze.ts';
import { emptyMetadata, isoTime, sealTurn, usageMetadata } from './turn.ts';

describe('turn helpers (LOOM-3, LOOM-9)', () => {
  it('LOOM-9: emptyMetadata records zero usage, zero duration and the given time', () => {
    expect(emptyMetadata(new Date('2025-05-06T07:08:09.000Z'))).toEqual({
      tokens_prompt: 0,
      tokens_completion: 0,
      tokens_cached: 0,
      duration_ms: 0,
      timestamp: '2025-05-06T07:08:09.000Z',
    });
  });

  it('LOOM-9: turn time stamps are ISO 8601 in UTC, written exactly as Date#toISOString writes them', () => {
    const dates = fc.date({ min: new Date('0000-01-01T00:00:00.000Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true });
    fc.assert(fc.property(dates, (date) => isoTime(date) === date.toISOString()), { numRuns: 2000 });
    const before = Date.now();
    const stamped = Date.parse(usageMetadata({ prompt: 1, completion: 1, cached: 0 }, 0).timestamp);
    expect(stamped).toBeGreaterThanOrEqual(before);
    expect(stamped).toBeLessThanOrEqual(Date.now());
  });

  it('LOOM-3: deepFreeze freezes nested objects and arrays', () => {
    const value = deepFreeze({ a: { b: [1, { c: 2 }] } });
    expect(Object.isFrozen(value.a)).toBe(true);
    expect(Object.isFrozen(value.a.b)).toBe(true);
    expect(Object.isFrozen(value.a.b[1])).toBe(true);
  });

  it('LOOM-3: sealTurn returns a frozen JSON copy, not the input', () => {
    const input = sampleCrystalTurn('t1', null, { intent: undefined });
    const sealed = sealTurn(input);
    expect(sealed).not.toBe(input);
    expect(sealed).toEqual(JSON.parse(JSON.stringify(input)));
    expect('intent' in sealed).toBe(false);
    expect(Object.isFrozen(sealed.gate_calls[0])).toBe(true);
  });

  it('LOOM-3: a turn that cannot be serialized is a TypeError', () => {
    const cyclic = sampleCrystalTurn('t1', null) as Turn & { result: unknown };
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    cyclic.result = loop;
    expect(() => sealTurn(cyclic)).toThrow(TypeError);
    expect(() => sealTurn(sampleCrystalTurn('t2', null, { result: 10n }))).toThrow(TypeError);
  });
});

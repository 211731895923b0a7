import { describe, it, expect } from 'vitest';
import type { Turn } from '../../schemas/records.ts';
import { sampleCrystalTurn } from './sample-turns.ts';
import { deepFreeze } from '../freeze.ts';
import { emptyMetadata, sealTurn } from './turn.ts';

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

import { describe, it, expect } from 'vitest';
import { batchShows, type BatchSlot } from './batch-slots.ts';

const answers = (...values: unknown[]): BatchSlot[] => values.map((answer) => ({ answer }));
const holds = (actual: unknown, slots: BatchSlot[], any_order?: true): boolean => batchShows(actual, { slots, ...(any_order && { any_order }) }).ok;

describe('batch results as the implementation presents them', () => {
  it('a list, or JSON text of one, is read slot by slot and held to its length', () => {
    expect(holds(['S', 'M', 'F'], answers('S', 'M', 'F'))).toBe(true);
    expect(holds('["S","M","F"]', answers('S', 'M', 'F'))).toBe(true);
    expect(holds([{ answer: 'S' }, { answer: 'M' }], answers('S', 'M'))).toBe(true);
    expect(holds(['1', '2'], answers(1, 2))).toBe(true);
    expect(holds(['S', 'F', 'M'], answers('S', 'M', 'F'))).toBe(false);
    expect(holds(['S', 'M'], answers('S', 'M', 'F'))).toBe(false);
    expect(holds(['S', 'M', 'F', 'G'], answers('S', 'M', 'F'))).toBe(false);
  });

  it('text of its own is searched for each answer as a whole token, in order', () => {
    expect(holds('• S\n• M\n• F', answers('S', 'M', 'F'))).toBe(true);
    expect(holds("['S', 'M', 'F']", answers('S', 'M', 'F'))).toBe(true);
    expect(holds('child a said a, then b, then c', answers('a', 'b', 'c'))).toBe(true);
    expect(holds('• F\n• M\n• S', answers('S', 'M', 'F'))).toBe(false);
    expect(holds('batch of ab', answers('a', 'b'))).toBe(false);
    expect(holds('• S\n• F', answers('S', 'M', 'F'))).toBe(false);
  });

  it("a failed child's slot must carry something that is not a sibling's answer", () => {
    const slots: BatchSlot[] = [{ answer: 'one' }, { error: true }, { answer: 'three' }];
    expect(holds(['one', { error: 'crystal failed' }, 'three'], slots)).toBe(true);
    expect(holds(['one', null, 'three'], slots)).toBe(false);
    expect(holds(['one', 'one', 'three'], slots)).toBe(false);
    expect(holds('• one\n• failed: 400\n• three', slots)).toBe(true);
    expect(holds('• one\n•\n• three', slots)).toBe(false);
    expect(holds('• one\n• three\n• failed: 400', slots, true)).toBe(true);
    expect(holds('• one\n• three', slots, true)).toBe(false);
    expect(holds(['one', null, 'three'], slots, true)).toBe(false);
  });

  it('a slot left open only keeps its place in a list', () => {
    const slots: BatchSlot[] = [{ answer: 'one' }, { any: true }, { answer: 'three' }];
    expect(holds(['one', null, 'three'], slots)).toBe(true);
    expect(holds(['one', 'three'], slots)).toBe(false);
    expect(holds('one three', slots)).toBe(true);
  });

  it('any order: each answer somewhere, one entry per child in a list', () => {
    expect(holds(['F', 'S', 'M'], answers('S', 'M', 'F'), true)).toBe(true);
    expect(holds('F S M', answers('S', 'M', 'F'), true)).toBe(true);
    expect(holds(['F', 'S'], answers('S', 'M', 'F'), true)).toBe(false);
    expect(holds('F S', answers('S', 'M', 'F'), true)).toBe(false);
  });

  it('nothing is no results', () => {
    expect(holds(undefined, answers('S'))).toBe(false);
    expect(holds(null, answers('S'))).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { describeFixtures, loadFixtures } from './test-support.ts';

describe('local provider: recorded exchanges (fixtures/providers/local)', () => {
  // An empty or thinned fixture folder would pass vacuously; pin the recorded exchanges.
  it('CRYSTAL-6: the recorded exchanges of this family are all present', () => {
    expect(loadFixtures('local').map(([name]) => name).sort()).toEqual(['text', 'thinking', 'tool-call-blank-id']);
  });
  describeFixtures('local');
});

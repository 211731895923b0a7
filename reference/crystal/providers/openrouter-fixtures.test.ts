import { describe, expect, it } from 'vitest';
import { describeFixtures, loadFixtures } from './test-support.ts';

describe('openrouter provider: recorded exchanges (fixtures/providers/openrouter)', () => {
  // An empty or thinned fixture folder would pass vacuously; pin the recorded exchanges.
  it('CRYSTAL-6: the recorded exchanges of this family are all present', () => {
    expect(loadFixtures('openrouter').map(([name]) => name).sort()).toEqual(['context-overflow', 'text', 'thinking']);
  });
  describeFixtures('openrouter');
});

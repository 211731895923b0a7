import { describe, expect, it } from 'vitest';
import { describeFixtures, loadFixtures } from './test-support.ts';

describe('gemini provider: recorded exchanges (fixtures/providers/gemini)', () => {
  // An empty or thinned fixture folder would pass vacuously; pin the recorded exchanges.
  it('CRYSTAL-6: the recorded exchanges of this family are all present', () => {
    expect(loadFixtures('gemini').map(([name]) => name).sort()).toEqual(['context-overflow', 'text', 'thinking', 'tool-call', 'tool-calls', 'tool-round-trip', 'usage-cached']);
  });
  describeFixtures('gemini');
});

import { describe } from 'vitest';
import { describeFixtures } from './test-support.ts';

describe('openrouter provider: recorded exchanges (fixtures/providers/openrouter)', () => {
  describeFixtures('openrouter');
});

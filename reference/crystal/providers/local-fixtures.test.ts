import { describe } from 'vitest';
import { describeFixtures } from './test-support.ts';

describe('local provider: recorded exchanges (fixtures/providers/local)', () => {
  describeFixtures('local');
});

import { describe } from 'vitest';
import { describeFixtures } from './test-support.ts';

describe('openai provider: recorded exchanges (fixtures/providers/openai)', () => {
  describeFixtures('openai');
});

import { describe } from 'vitest';
import { describeFixtures } from './test-support.ts';

describe('anthropic provider: recorded exchanges (fixtures/providers/anthropic)', () => {
  describeFixtures('anthropic');
});

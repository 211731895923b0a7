import { describe } from 'vitest';
import { describeFixtures } from './test-support.ts';

describe('gemini provider: recorded exchanges (fixtures/providers/gemini)', () => {
  describeFixtures('gemini');
});

import { defineConfig } from 'vitest/config';
import { hangBound } from './harness/testing/hang-bound.ts';

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    // .stryker-tmp/ holds the mutation run's sandbox copy of the project while it runs (docs/mutation.md).
    exclude: ['node_modules/**', 'dist/**', '.stryker-tmp/**'],
    // These only bound a hang; no verdict is a timing. They are wide because a busy 2-core CI runner
    // (8 competing processes, load average 10-20) ran tests up to 5 times slower than an idle machine,
    // and they stretch further with the load the machine has when the run starts (hang-bound.ts).
    testTimeout: hangBound(120_000),
    // Two files at once even on 2 cores (vitest's default there is 1): much of the suite waits on child
    // processes and scripted waits rather than computing.
    maxWorkers: 2,
    hookTimeout: hangBound(180_000),
  },
});

import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', 'dist/**'],
    // These only bound a hang; no verdict is a timing. They are wide because a busy 2-core CI runner
    // (8 competing processes, load average 10-20) ran tests up to 5 times slower than an idle machine.
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});

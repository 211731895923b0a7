/**
 * The vitest configuration of the mutation run only (docs/mutation.md): the conformance suite against
 * the reference, one file per draft, and none of the project's own tests. `npm test` never reads it.
 */
import { defineConfig } from 'vitest/config';
import { hangBound } from '../harness/testing/hang-bound.ts';

export default defineConfig({
  test: {
    include: ['mutation/*.mutation.ts'],
    // Bounds on a hang only, stretched with the load as in the main configuration; verdicts come from
    // the harness's own limits, and a case that runs out of time is skipped as incomplete, never failed.
    testTimeout: hangBound(120_000),
    hookTimeout: hangBound(180_000),
  },
});

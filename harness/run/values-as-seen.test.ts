/**
 * Values compared as the spec defines them (issue 29, item 2). A code entity's answer reaches the
 * implementation from the sandbox and may come back as the text the entity's code produced ("42" for
 * 42): the cases compare it as seen, never "expected 42, got 42". A conversation's done answer is
 * the JSON value the crystal passed (CIRCLE-8), so those cases keep comparing the value.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { join } from 'node:path';
import type { Adapter, CastOutcome } from '../../schemas/adapter.ts';
import { createReferenceAdapter } from '../../reference/adapter/index.ts';
import { loadCaseFile, PACKAGE_ROOT } from '../case-file/index.ts';
import type { CaseFile } from '../case-file/types.ts';
import { outcomeRewrite } from '../properties/test-adapters.ts';
import { hangBound } from '../testing/hang-bound.ts';
import { runSuite } from './run.ts';

/** The code cases whose answer is not text: each compares the answer as seen. */
const CODE_ANSWER_CASES = [
  'code-variable-persists-between-turns',
  'code-function-defined-early-used-later',
  'code-state-survives-a-thrown-error',
  'code-exposed-loom-readable',
  'code-exposed-loom-is-an-array-of-turns',
  'code-fork-carries-sandbox-state',
  'loom4-code-fork-does-not-run-an-effectful-gate-again',
  'file-read-from-code',
  'loom13-replay-fork-hydrates-recorded-gate-results',
];

/** An answer as text, the way a sandbox that hands values back as text gives it. */
const asText = (o: CastOutcome): CastOutcome => (o.result === undefined || typeof o.result === 'string' ? o : { ...o, result: JSON.stringify(o.result) });

describe('a code entity\'s answer kept as the text its code produced', () => {
  let file: CaseFile;
  beforeAll(() => {
    file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
  });

  it('every code case with a non-text answer compares it as seen', () => {
    const codeCases = file.cases.filter((c) => c.setup.circle?.medium === 'code');
    const strict = codeCases.flatMap((c) => c.expect.filter((e) => /^outcomes\.\w+\.result$/.test(e.path) && e.equals !== undefined && typeof e.equals !== 'string').map((e) => `${c.id}: ${e.path}`));
    expect(strict).toEqual([]);
  });

  it('the reference with its answers turned into text passes those cases', async () => {
    const factory = outcomeRewrite(asText)(async () => createReferenceAdapter() as Adapter);
    const suite = await runSuite(file, factory, { jobs: 2, filter: CODE_ANSWER_CASES });
    const ran = suite.cases.map((c) => ({ id: c.id, status: c.status, failures: c.failures }));
    expect(ran.filter((c) => c.status !== 'pass')).toEqual([]);
    expect(ran.length).toBe(CODE_ANSWER_CASES.length);
  }, hangBound(180_000));
});

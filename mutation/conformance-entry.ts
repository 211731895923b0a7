/**
 * What the mutation run tests each mutant of reference/ with: the kit's cases and generated properties
 * through its vitest helper (harness/vitest/conformance.ts), against the reference's adapter, and
 * nothing else: the reference's own unit tests are left out on purpose, so a surviving mutant is a
 * behaviour of the reference no conformance case or property checks (issue 30, docs/mutation.md).
 */
import { createReferenceAdapter } from '../reference/adapter/index.ts';
import { conformance } from '../harness/vitest/conformance.ts';

/**
 * Runs per generated property. Lower than the CLI's default: each surviving mutant reruns every
 * property that reaches it, and the fixed seed keeps the scenarios the same from mutant to mutant.
 * `MUTATION_PROPERTY_RUNS` overrides it (npm run mutation -- --property-runs N).
 */
const PROPERTY_RUNS = Number(process.env.MUTATION_PROPERTY_RUNS ?? 10);

/** Declares the suite at `draft` against a fresh reference adapter per case and per scenario. */
export function conformanceOfTheReference(draft: string): void {
  if (!Number.isInteger(PROPERTY_RUNS) || PROPERTY_RUNS < 0) throw new Error(`MUTATION_PROPERTY_RUNS must be a whole number >= 0, got '${process.env.MUTATION_PROPERTY_RUNS}'`);
  conformance({
    adapter: () => createReferenceAdapter(),
    spec: draft,
    properties: PROPERTY_RUNS === 0 ? false : { runs: PROPERTY_RUNS },
  });
}

/**
 * The ids of the generated properties (harness/properties), known to planning so that a filter term
 * naming one is recognised by every interface, `runSuite` included, before any property module loads
 * (planning comes before the properties in the pipeline). harness/plan/filter.test.ts keeps this list
 * equal to the properties' own.
 */
export const PROPERTY_IDS: readonly string[] = [
  'done-ends-the-cast',
  'text-reply-ends-unless-done-required',
  'max-turns-cuts-the-cast-off',
  'one-record-per-gate-call',
  'usage-per-turn-and-per-entity',
  'loom-records-every-turn',
  'call-and-intent-lead-every-request',
  'fork-leaves-the-original-thread',
  'tool-call-ids-unique-anywhere',
  'child-starts-with-its-own-context',
  'children-cannot-delegate-at-depth-zero',
  'child-gates-are-a-granted-subset',
  'child-turn-cap-is-the-smaller',
  'child-failure-returns-to-parent',
  'batch-results-in-request-order',
  'child-subtree-hangs-from-spawning-turn',
  'code-state-persists-across-turns',
  'code-gate-records-in-call-order',
  'code-done-ends-the-cast',
  'code-error-does-not-end-the-cast',
  'verifier-refused-call-never-runs',
  'overlay-accept-then-read-equals-the-overlay-view',
  'overlay-reject-leaves-the-base-untouched',
];

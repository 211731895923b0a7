/**
 * Small helpers the property definitions of every family share (not part of the module's exports).
 */
import type { Expectation, Matcher } from '../case-file/index.ts';

/** What a property expects of one scenario: `checks` its rules demand, `assumes` what they depend on (definitions.ts). */
export interface PropertyExpectations {
  checks: Expectation[];
  assumes: Expectation[];
}

/** One expectation. */
export const x = (path: string, matcher: Matcher): Expectation => ({ path, ...matcher });

/** Nothing to check: the scenario says nothing about the property's rules and is discarded. */
export const none: PropertyExpectations = { checks: [], assumes: [] };

/** The scenario got going at all: the cantrip was built (refusing a valid setup is no property's business). */
export const BUILT: Expectation = x('cantrips.main', { present: true });

/** The rules each check speaks for, when a property's checks do not all speak for all of its rules. */
const TAGS = new WeakMap<Expectation, readonly string[]>();

/**
 * Marks checks as speaking for `rules` only: when one of them fails, the property reports those rules,
 * not every rule it lists (a failed gate shown as a success breaks CIRCLE-5, not CIRCLE-7 as well).
 */
export function tagged(rules: readonly string[], ...checks: Expectation[]): Expectation[] {
  for (const c of checks) TAGS.set(c, rules);
  return checks;
}

/** The rules a check speaks for, or undefined when it speaks for all of its property's rules. */
export const rulesOf = (check: Expectation): readonly string[] | undefined => TAGS.get(check);

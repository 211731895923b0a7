/**
 * Small helpers the property definitions of every family share (not part of the module's exports).
 */
import type { Expectation, Matcher } from '../case-types.ts';

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

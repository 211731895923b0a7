/**
 * The conformance suite judged at draft 0.1.0 against the reference, as the test of the mutation run
 * (docs/mutation.md). One file per draft so each mutant runs only the drafts' cases that reach it.
 */
import { conformanceOfTheReference } from './conformance-entry.ts';

conformanceOfTheReference('0.1.0');

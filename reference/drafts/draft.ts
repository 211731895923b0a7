import { CantripError } from '../errors.ts';

/**
 * The drafts of the spec the reference implements, by version (the kit's registry names them the same
 * way, spec/drafts.yaml). A cantrip is built for one of them; everything that differs between them is
 * decided in this folder, one module per difference, so the rest of the reference reads one way.
 */
export const REFERENCE_DRAFTS = ['0.1.0', '0.2.0', '0.3.1'] as const;

/** A draft the reference can build a cantrip for. */
export type Draft = (typeof REFERENCE_DRAFTS)[number];

/** The draft a cantrip is built for when nobody says (the seed draft, as the adapter contract says). */
export const DEFAULT_DRAFT: Draft = '0.1.0';

/** The draft named by a setup: absent means {@link DEFAULT_DRAFT}; a version the reference lacks is refused (`unsupported`). */
export function draftOf(version: string | undefined): Draft {
  // Stryker disable next-line ConditionalExpression: equivalent under the conformance suite (docs/mutation.md): the kit names the judged draft in every setup, so none arrives without one.
  if (version === undefined) return DEFAULT_DRAFT;
  // Stryker disable next-line ConditionalExpression: equivalent under the conformance suite (docs/mutation.md): the kit judges only drafts the reference declares, so no other version arrives.
  if ((REFERENCE_DRAFTS as readonly string[]).includes(version)) return version as Draft;
  // Stryker disable next-line StringLiteral: equivalent (docs/mutation.md): never reached by the kit (above), and the error code is the reference's (docs/OPEN-CHOICES.md, choice 4).
  throw new CantripError('unsupported', `draft '${version}' is not one the reference implements (${REFERENCE_DRAFTS.join(', ')})`);
}

/** Whether `draft` is `since` or a later draft. Drafts compare by their place in {@link REFERENCE_DRAFTS}. */
export function atLeast(draft: Draft, since: Draft): boolean {
  return REFERENCE_DRAFTS.indexOf(draft) >= REFERENCE_DRAFTS.indexOf(since);
}

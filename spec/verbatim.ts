/**
 * Detects sentences copied verbatim between our prose and the spec text. The team writes the catalog,
 * terms and case descriptions in its own words; this is the check that keeps it honest. Comparison is
 * on normalized text (lower case, letters and digits only) so that punctuation edits do not hide a copy.
 */

/** Shortest normalized sentence that counts; shorter ones are phrases any two texts may share. */
export const MIN_SENTENCE_CHARS = 40;

/** Lower case, letters and digits only, single spaces. */
export function normalizeProse(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();
}

/** Normalized sentences of a prose text, split at sentence ends and at line breaks (bullets, headings). */
export function proseSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map(normalizeProse)
    .filter((s) => s.length >= MIN_SENTENCE_CHARS);
}

/**
 * Sentences shared verbatim: ours that occur in the source, and the source's that occur inside ours.
 * Empty when the two texts share no sentence of {@link MIN_SENTENCE_CHARS} or more.
 */
export function verbatimOverlaps(ours: string, source: string): string[] {
  const sourceNorm = normalizeProse(source);
  const oursNorm = normalizeProse(ours);
  const copied = proseSentences(ours).filter((s) => sourceNorm.includes(s));
  const embedded = proseSentences(source).filter((s) => oursNorm.includes(s));
  return [...new Set([...copied, ...embedded])];
}

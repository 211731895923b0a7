/**
 * Prints a generated case as tests.yaml text: one list item ready to paste under `cases:`, in the
 * file's style (small maps and lists inline, one expectation per line). The text loads with
 * `harness/case-file/load.ts` as it is.
 */
import { Document, isPair, isScalar, visit } from 'yaml';
import type { Case, LoadedCase } from '../case-file/index.ts';

/** Collections whose JSON is at most this long are written inline. */
const INLINE_CHARS = 100;

/** The case as a YAML list item (`- id: ...`), without its position. */
export function caseYaml(c: Case | LoadedCase): string {
  const { position: _position, ...plain } = c as LoadedCase;
  // No anchors: a value used twice (an answer and its expectation) is written out twice.
  const doc = new Document([plain], { aliasDuplicateObjects: false });
  visit(doc, {
    Collection(_key, node, path) {
      // path: [doc, top-level list, case map, pair, ...]; the list and the case map stay block style.
      if (path.length < 3) return;
      const parentPair = path.at(-1);
      const underExpect = path.some((p) => isPair(p) && isScalar(p.key) && p.key.value === 'expect');
      const isExpectItem = underExpect && !isPair(parentPair);
      if (isExpectItem || JSON.stringify(node.toJSON()).length <= INLINE_CHARS) node.flow = true;
    },
  });
  return doc.toString({ lineWidth: 0, flowCollectionPadding: true });
}

/** A whole case file holding the given cases, for loading reproducers on their own. */
export function caseFileYaml(cases: (Case | LoadedCase)[], specVersion = '0.1.0-draft'): string {
  const items = cases.map((c) =>
    caseYaml(c)
      .trimEnd()
      .split('\n')
      .map((line) => `  ${line}`)
      .join('\n'),
  );
  return `format_version: 1\nspec_version: ${specVersion}\ncases:\n${items.join('\n')}\n`;
}

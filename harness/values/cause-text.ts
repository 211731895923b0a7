/**
 * The cause a message states, with the parts that differ from case to case taken out, so that one
 * cause seen in many cases (or many times in a row) is recognised as one: the report groups root
 * causes by it, and the adapter watch counts unanswered cases in a row by it.
 */

/** Words after which the next token names something of one case (an id, an action, a crystal). */
const NAMING_WORDS = ['turn', 'turns', 'parent', 'entity', 'entities', 'id', 'ids', 'case', 'cast', 'action', 'crystal', 'request', 'child', 'thread', 'gate_call', 'tool_call'];
/** Tokens that are English, not a name, after a naming word ("turn id X", "turn of ..."). */
const NOT_NAMES = new Set(['is', 'are', 'was', 'were', 'has', 'have', 'had', 'id', 'ids', 'of', 'the', 'a', 'an', 'and', 'or', 'to', 'in', 'at', 'with', 'for', 'by', 'not', 'says', 'said', 'that', 'which', 'lacks', 'appears', 'its', 'no', 'none', 'from', 'on', 'did', 'does', 'do', 'will', 'would', 'should', 'must', 'may', 'can', 'cannot', 'record', 'records', 'recorded', 'marked', 'ended', 'ends', 'threw', 'returned']);
const PLACEHOLDER = '…';

/**
 * Takes the case-specific parts out of a sentence: quoted text, the name after words like `turn` or
 * `entity`, any token holding a digit, a single word in parentheses and, with `label`, a lowercase label
 * before the first colon (invariants start some details with the action's name). What stays is the
 * structure of the message.
 */
export function normaliseText(text: string, options: { label?: boolean } = {}): string {
  let s = text.trim();
  s = s.replace(/"(?:[^"\\]|\\.)*"/g, `"${PLACEHOLDER}"`).replace(/'[^'\n]*'/g, `'${PLACEHOLDER}'`).replace(/`[^`\n]*`/g, `\`${PLACEHOLDER}\``);
  if (options.label) s = s.replace(/^[a-z][\w.-]*:(?=\s)/, `${PLACEHOLDER}:`);
  // A lookbehind, so that in "turn id X" both "id" (kept: not a name) and X (replaced) are looked at.
  const naming = new RegExp(`(?<=\\b(?:${NAMING_WORDS.join('|')})\\s+)[^\\s,;:()\\[\\]'"\`#…]+`, 'gi');
  s = s.replace(naming, (name) => (NOT_NAMES.has(name.toLowerCase()) ? name : PLACEHOLDER));
  s = s.replace(/#?[\w.-]*\d[\w.-]*/g, '#');
  s = s.replace(/\(\s*[^\s()]+\s*\)/g, `(${PLACEHOLDER})`);
  return s.replace(/\s+/g, ' ');
}

/**
 * Reads the numbered rules out of a draft's text, for the tests that hold each catalog to its text.
 * Drafts write a rule line three ways: a block quote with a bold id (`> **LOOP-1**: ...`, 0.1.0 and
 * 0.2.0), a bullet with a bold id (`- **LOOP-1**: ...`), and a plain `LOOP-1: ...` line inside a code
 * fence (0.3.1). A plain id line outside a fence is prose, not a rule.
 */
import type { RuleLevel } from './catalog.ts';

/** One rule line of a draft: its text after the id, and the section that states it in catalog form. */
export interface RuleLine {
  text: string;
  /** `1.3 Termination and truncation`, or `2 The LLM` for a chapter's introduction. */
  section: string;
}

const QUOTED = /^> \*\*([A-Z]+-\d+)\*\*:\s*(.*)$/;
const BULLET = /^[-*] \*\*([A-Z]+-\d+)\*\*:\s*(.*)$/;
const FENCED = /^([A-Z]+-\d+): (.*)$/;

/** Every rule line of `spec`, by id, in text order. A repeated id is an error: it says where. */
export function extractRuleLines(spec: string): Map<string, RuleLine> {
  const rules = new Map<string, RuleLine>();
  let section = '';
  let fenced = false;
  spec.split('\n').forEach((raw, index) => {
    const line = raw.replace(/\r$/, '');
    if (line.startsWith('```')) {
      fenced = !fenced;
      return;
    }
    const chapter = /^## Chapter (\d+): (.+)$/.exec(line);
    const sub = /^### (\d+\.\d+) (.+)$/.exec(line);
    if (chapter) section = `${chapter[1]} ${chapter[2]}`;
    else if (sub) section = `${sub[1]} ${sub[2]}`;
    const match = fenced ? FENCED.exec(line) : (QUOTED.exec(line) ?? BULLET.exec(line));
    if (!match?.[1] || match[2] === undefined) return;
    if (rules.has(match[1])) throw new Error(`line ${index + 1}: rule ${match[1]} is stated a second time`);
    rules.set(match[1], { text: match[2].trim(), section });
  });
  return rules;
}

/** The distinct obligation keywords in a rule's text (a MUST NOT counts as MUST). */
export function keywordLevels(text: string): RuleLevel[] {
  return [...new Set([...text.matchAll(/\b(MUST|SHOULD|MAY)\b/g)].map((m) => m[1] as RuleLevel))];
}

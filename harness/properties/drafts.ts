/**
 * The properties under a judged draft (issue 24). Properties are written once, in 0.1.0's rule IDs.
 * A property runs at a draft only where each of its rules keeps a counterpart that has not turned
 * around (not removed, reversed or new there: `child-gates-are-a-granted-subset` checks COMP-1 as
 * 0.1.0 states it, which 0.2.0 reverses); its result then names the judged draft's IDs and no stronger
 * level than its rules have there. The generation, shrinking and judging inside stay in 0.1.0's IDs.
 */
import { catalogOf, draftVersions, ruleCounterpart } from '../../spec/drafts.ts';
import type { Level } from '../case-file/index.ts';
import { statedLevels } from '../case-file/index.ts';
import { KIT_RULES_DRAFT, kitRulesIn, ruleIdAt } from '../plan/index.ts';

const TURNED: ReadonlySet<string> = new Set(['removed', 'reversed', 'new']);
const RANK: Record<Level, number> = { MAY: 1, SHOULD: 2, MUST: 3 };

/** Whether a property over `rules` (0.1.0 IDs) holds at draft `draft`. */
export function propertyAppliesAt(rules: readonly string[], draft: string): boolean {
  return rules.every((id) => {
    const counterpart = ruleCounterpart(id, KIT_RULES_DRAFT, draft);
    return counterpart.id !== undefined && !counterpart.changes.some((k) => TURNED.has(k));
  });
}

/** A property's rules and level as draft `draft` states them: IDs mapped, a level above every level its rules state there lowered to the strongest. */
export function propertyTermsAt<T extends { rules: string[]; level: Level }>(p: T, draft: string): T {
  const rules = kitRulesIn(p.rules, draft);
  const catalog = catalogOf(draft);
  const strongest = rules
    .flatMap((id) => {
      const rule = catalog.rules.find((r) => r.id === id);
      return rule === undefined ? [p.level] : statedLevels(rule);
    })
    .reduce<Level>((best, l) => (RANK[l] > RANK[best] ? l : best), 'MAY');
  return { ...p, rules, level: RANK[p.level] > RANK[strongest] ? strongest : p.level };
}

/**
 * A reproducer as tests.yaml takes it: a case on a rule that some draft amends must list its drafts
 * (harness/case-file/drafts.ts), so one gets `drafts: [<the draft it was found at>]`, placed after its
 * level. A case found at a draft that names one of its rules otherwise (CALL-2 is IDENTITY-2 from 0.2.0)
 * is written in that draft's ids, as every output of its report is (`rules_draft` and `drafts` say so).
 * Any other is left as built (its drafts follow from its rules).
 */
export function reproducerAt<C extends { rules: string[]; level: unknown; expect?: unknown }>(c: C, draft: string): C {
  const amended = c.rules.some((id) => draftVersions().some((d) => ruleCounterpart(id, KIT_RULES_DRAFT, d).changes.includes('amended')));
  const expectations = Array.isArray(c.expect) ? (c.expect as { rule?: unknown }[]) : [];
  const named = [...c.rules, ...expectations.flatMap((e) => (typeof e.rule === 'string' ? [e.rule] : []))];
  const renamed = named.some((id) => (ruleIdAt(id, draft) ?? id) !== id);
  if (!amended && !renamed) return c;
  const inDraft = (id: string): string => ruleIdAt(id, draft) ?? id;
  const ordered: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(c)) {
    if (key === 'drafts' || key === 'rules_draft') continue;
    ordered[key] = !renamed ? value : key === 'rules' ? c.rules.map(inDraft) : key === 'expect' ? expectations.map((e) => (typeof e.rule === 'string' ? { ...e, rule: inDraft(e.rule) } : e)) : value;
    if (key === 'level') {
      if (renamed) ordered['rules_draft'] = draft;
      ordered['drafts'] = [draft];
    }
  }
  return ordered as C;
}

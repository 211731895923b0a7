/**
 * Rule ids in the judged draft's terms, whatever produced the suite result. A run maps them already:
 * planning hands every case and property over in the judged draft's ids, and the run maps the ids the
 * kit's own checks name, which are 0.1.0's (the ambient invariants, the faults found while driving:
 * harness/plan `kitRulesIn`). A suite result built some other way (by hand, by a library user, by an
 * older kit) may not be, and left as they are a `CRYSTAL-4` finding in a 0.3.1 report would break no
 * rule of that draft and fail no level, silently. So the report checks once more, before anything is
 * counted: an id the judged draft does not have but 0.1.0 does is read as 0.1.0's and mapped through
 * the registry (`CRYSTAL-4` is `LLM-4`). On a run's own result this changes nothing.
 *
 * The map is the plan's (harness/plan `ruleIdAt`), the one every stage uses: an id both drafts have stays
 * (no registered draft reuses an id of 0.1.0 for another rule; drafts.test.ts checks it); an id the judged
 * draft removed is dropped, since nothing a report shows may name a rule outside its catalog. For a run
 * judged at 0.1.0 nothing changes.
 */
import { kitRulesIn, ruleIdAt } from '../plan/index.ts';
import type { CaseResult } from '../run/index.ts';
import type { PropertyResult } from '../properties/index.ts';
import { UNDECLARED_DRAFT } from './draft.ts';

/** Maps one id into the judged draft's terms (see the module comment); undefined for a rule the draft removed. */
export function judgedRuleId(id: string, version: string): string | undefined {
  return ruleIdAt(id, version);
}

/** A rule list in the judged draft's terms, without duplicates. */
const judgedIds = (ids: readonly string[], version: string): string[] => kitRulesIn(ids, version);

/** A failed check with its rule in the judged draft's terms; without one when the draft removed it (it then counts under its case's rules). */
function withJudgedRule<F extends { rule?: string }>(f: F, version: string): F {
  if (f.rule === undefined) return f;
  const rule = judgedRuleId(f.rule, version);
  if (rule === f.rule) return f;
  const { rule: _old, ...rest } = f;
  return (rule === undefined ? rest : { ...rest, rule }) as F;
}

/** A case result with every rule id it carries (its rules, failed rules, expectations', invariants') in the judged draft's terms. */
export function caseInDraftTerms(c: CaseResult, version: string): CaseResult {
  if (version === UNDECLARED_DRAFT) return c;
  return {
    ...c,
    rules: judgedIds(c.rules, version),
    failed_rules: judgedIds(c.failed_rules, version),
    ...(c.judged_rules !== undefined && { judged_rules: judgedIds(c.judged_rules, version) }),
    failures: c.failures.map((f) => withJudgedRule(f, version)),
    invariants: c.invariants.map((i) => ({ ...i, rules: judgedIds(i.rules, version) })),
  };
}

/** A property result with its rule ids (and its counterexample's) in the judged draft's terms. */
export function propertyInDraftTerms(p: PropertyResult, version: string): PropertyResult {
  if (version === UNDECLARED_DRAFT) return p;
  const ce = p.counterexample;
  return {
    ...p,
    rules: judgedIds(p.rules, version),
    failed_rules: judgedIds(p.failed_rules, version),
    ...(ce && {
      counterexample: {
        ...ce,
        failures: ce.failures.map((f) => withJudgedRule(f, version)),
        invariants: ce.invariants.map((i) => ({ ...i, rules: judgedIds(i.rules, version) })),
      },
    }),
  };
}

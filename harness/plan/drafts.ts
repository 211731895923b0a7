/**
 * The draft a run judges (issue 24) and each case as that draft sees it. An implementation declares
 * the drafts it implements (`describe().drafts`, absent: 0.1.0); a run judges one of them, by default
 * the newest. A case that does not apply to the judged draft is not run at all ("outside the draft",
 * harness/case-file/drafts.ts says which drafts a case applies to); a case that applies reaches the run
 * with its rules, its expectations' rules and its level already in the judged draft's terms, so
 * everything downstream (drive, judge, report, properties) sees one draft's IDs only.
 */
import type { Description } from '../../schemas/adapter.ts';
import { draftVersions, mapRuleId, ruleIdsOf } from '../../spec/drafts.ts';
import { CASE_FILE_RULES_DRAFT, caseDrafts, expectationLevel, levelFor, rulesDraftOf, type Expectation, type LoadedCase } from '../case-file/index.ts';

/** The draft an implementation that declares none implements: the one the kit first judged. */
export const UNDECLARED_DRAFT = CASE_FILE_RULES_DRAFT;

/** An unknown draft, or one the implementation does not declare: a usage error for the command line. */
export class DraftChoiceError extends Error {
  override readonly name = 'DraftChoiceError';
}

/** The drafts an implementation declares, oldest first as the registry orders them; unknown versions are left out. */
export function declaredDrafts(description: Pick<Description, 'drafts'>): string[] {
  const declared = description.drafts ?? [UNDECLARED_DRAFT];
  return draftVersions().filter((d) => declared.includes(d));
}

/**
 * The draft a run judges: `asked` when the registry knows it and the implementation declares it,
 * otherwise (nothing asked) the newest the implementation declares. Throws {@link DraftChoiceError}
 * naming the known and the declared drafts.
 */
export function chooseDraft(description: Pick<Description, 'drafts'>, asked?: string): string {
  const known = draftVersions();
  const declared = declaredDrafts(description);
  const said = description.drafts === undefined ? `declares no drafts, so it is judged at ${UNDECLARED_DRAFT} only` : `declares ${description.drafts.join(', ') || 'none'}`;
  if (asked !== undefined) {
    if (!known.includes(asked)) throw new DraftChoiceError(`--spec ${asked} is not a draft the kit knows (${known.join(', ')})`);
    if (!declared.includes(asked)) throw new DraftChoiceError(`--spec ${asked}: the implementation ${said} (describe().drafts)`);
    return asked;
  }
  const newest = declared[declared.length - 1];
  if (newest === undefined) throw new DraftChoiceError(`the implementation ${said}, none of which the kit knows (${known.join(', ')})`);
  return newest;
}

/**
 * The case as draft `draft` sees it, or undefined when it does not apply there: its rules and every
 * expectation's rule mapped to that draft's IDs (LLM-4 for CRYSTAL-4), its level that draft's, and
 * `judged_draft` set so its cantrips are constructed for that draft.
 */
export function caseForDraft(c: LoadedCase, draft: string): LoadedCase | undefined {
  if (c.judged_draft === draft) return c;
  const applies = caseDrafts(c);
  if (!applies.includes(draft)) return undefined;
  const from = rulesDraftOf(c);
  const level = levelFor(c, draft);
  if (level === undefined) return undefined;
  const map = (id: string): string => {
    const there = ruleIdAt(id, draft, from);
    // The loader refuses such a case; one built in code that gets here is a kit bug.
    if (there === undefined) throw new Error(`case ${c.id}: rule ${id} of draft ${from} has no counterpart in draft ${draft}`);
    return there;
  };
  // Each expectation carries the level its failure counts at in this draft (harness/case-file/drafts.ts `expectationLevel`).
  const mapped = (list: Expectation[]): Expectation[] =>
    list.map((e) => {
      const at = expectationLevel(e, c, draft) ?? level;
      return e.rule === undefined ? { ...e, level: at } : { ...e, rule: map(e.rule), level: at };
    });
  return {
    ...c,
    rules: c.rules.map(map),
    // The description names rules in the case file's ids too: a report shows it in the judged draft's.
    description: ruleIdsInTextAt(c.description, draft, from),
    level,
    drafts: applies,
    rules_draft: draft,
    expect: mapped(c.expect),
    ...(c.premise !== undefined && { premise: mapped(c.premise) }),
    judged_draft: draft,
  };
}

/**
 * The draft whose rule IDs the kit's own checks name: the drive's faults (a query after done: LOOP-3),
 * the ambient invariants, the generated properties. They are written once, in 0.1.0's IDs.
 */
export const KIT_RULES_DRAFT = '0.1.0';

/**
 * The one map of a rule id into the judged draft's ids, used wherever an id reaches a run or a report
 * (a case's rules, the kit's own checks, a report built from any suite result, the prose of a case).
 * `from` is the draft the id was written in (the kit's own checks name 0.1.0's ids; an id `from` lacks is
 * read in the draft that has it). An id the judged
 * draft already has stays (no registered draft reuses another draft's id for another rule:
 * harness/report/drafts.test.ts); an id of `from` becomes its counterpart (CRYSTAL-4 -> LLM-4);
 * undefined when the judged draft removed the rule, since no output may show an id that is not in the
 * judged draft's catalog. An id no draft knows (a catalog built in a test) is kept as it is.
 */
export function ruleIdAt(id: string, draft: string, from: string = KIT_RULES_DRAFT): string | undefined {
  const has = (version: string): boolean => ruleIdsOf(version).has(id);
  if (id === '' || has(draft)) return id;
  // Written in another draft's ids than `from` says (a filter term of a later draft, say): mapped from the draft that has it.
  const source = has(from) ? from : draftVersions().find(has);
  return source === undefined ? id : mapRuleId(id, source, draft);
}

/**
 * Rule IDs the kit's own checks name, in the judged draft's IDs ({@link ruleIdAt}): each 0.1.0 ID becomes
 * its counterpart (CRYSTAL-4 -> LLM-4), one without a counterpart there is dropped, duplicates once.
 */
export function kitRulesIn(ids: readonly string[], draft: string): string[] {
  return [...new Set(ids.flatMap((id) => ruleIdAt(id, draft) ?? []))];
}

/**
 * Prose written in the kit's 0.1.0 ids (a case's description, a message of the kit's) with each rule id
 * it names in the judged draft's ids: "CALL-4's business" reads "IDENTITY-4's business" at 0.3.1. An id
 * the judged draft removed is left as written, with the draft that has it: "CANTRIP-3 of 0.1.0".
 */
export function ruleIdsInTextAt(text: string, draft: string, from: string = KIT_RULES_DRAFT): string {
  return text.replace(/\b[A-Z]+-\d+\b/g, (id) => {
    const there = ruleIdAt(id, draft, from);
    if (there !== undefined) return there;
    const has = (version: string): boolean => ruleIdsOf(version).has(id);
    return `${id} of ${has(from) ? from : (draftVersions().find(has) ?? from)}`;
  });
}

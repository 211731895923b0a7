/**
 * Which drafts of the spec a case applies to, in whose rule IDs it is written, and its level in each
 * draft (issue 24; the keys `drafts`, `rules_draft` and `level` of docs/INTERPRETING.md, "Drafts").
 * The registry and the catalogs are spec/drafts.ts; this module only reads them.
 *
 * A case applies to a draft when each of its rules has a counterpart there that asks the same thing:
 * the change kinds from the case's `rules_draft` are only same, renamed, reworded or level-changed.
 * An `amended` rule may still fit, but only a person who read both texts can say so: such a case lists
 * its drafts. A removed, reversed or new rule never fits: a case listing that draft is refused.
 */
import { catalogOf, draftVersions, ruleCounterpart, type DraftRule } from '../../spec/drafts.ts';
import type { Case, Expectation, Level } from './types.ts';

/** The draft whose rule IDs a case file uses unless a case names another with `rules_draft`. */
export const CASE_FILE_RULES_DRAFT = '0.1.0';

/** Change kinds under which a rule keeps its meaning: a case written for one draft holds in the other. */
const KEEPS_MEANING: ReadonlySet<string> = new Set(['same', 'renamed', 'reworded', 'level-changed']);
/** Change kinds under which no case of one draft can hold in the other. */
const NEVER_FITS: ReadonlySet<string> = new Set(['removed', 'reversed', 'new']);

type Problem = [pointer: string, message: string];

/** The draft whose IDs the case's `rules` and expectations' `rule` use. */
export function rulesDraftOf(c: Pick<Case, 'rules_draft'>): string {
  return c.rules_draft ?? CASE_FILE_RULES_DRAFT;
}

/**
 * The drafts a case applies to, oldest first: its `drafts` when given, otherwise every registered
 * draft where each of its rules keeps its meaning. Assumes a case that loaded (known rules and drafts).
 */
export function caseDrafts(c: Pick<Case, 'rules' | 'drafts' | 'rules_draft'>): string[] {
  const listed = c.drafts;
  if (listed !== undefined) return draftVersions().filter((d) => listed.includes(d));
  const from = rulesDraftOf(c);
  return draftVersions().filter((to) => c.rules.every((id) => changesOf(id, from, to).every((k) => KEEPS_MEANING.has(k))));
}

/** The case's level in a draft: its one level, or the map's entry (undefined when the map has none). */
export function levelFor(c: Pick<Case, 'level'>, draft: string): Level | undefined {
  return typeof c.level === 'string' ? c.level : c.level[draft];
}

/** Every level a rule states, as a whole or in one of its clauses. */
export function statedLevels(rule: DraftRule): Level[] {
  return [rule.level, ...(rule.clauses ?? []).map((clause) => clause.level)];
}

/** What became of rule `id` of draft `from` in draft `to`: its change kinds (`removed` when dropped). */
function changesOf(id: string, from: string, to: string): string[] {
  const counterpart = ruleCounterpart(id, from, to);
  return counterpart.id === undefined && !counterpart.changes.includes('removed') ? ['new'] : counterpart.changes;
}

/**
 * Load-time checks of a case's drafts, each a JSON pointer into the case (`at`) and what is wrong:
 * `rules_draft` and every `drafts` entry are registered; each rule is one of the `rules_draft`
 * catalog's; no listed draft removes, reverses or lacks one of its rules; a case with a rule amended
 * in some draft lists its drafts; its level in each draft it applies to is one its rules state there,
 * and a level map names exactly those drafts.
 */
export function checkCaseDrafts(c: Case, at: string): Problem[] {
  const known = draftVersions();
  const knownText = known.join(', ');
  const problems: Problem[] = [];
  if (c.rules_draft !== undefined && !known.includes(c.rules_draft)) {
    return [[`${at}/rules_draft`, `'${c.rules_draft}' is not a registered draft (spec/drafts.yaml knows ${knownText})`]];
  }
  const from = rulesDraftOf(c);
  const catalogIds = new Set(catalogOf(from).rules.map((r) => r.id));
  c.rules.forEach((id, j) => {
    if (!catalogIds.has(id)) problems.push([`${at}/rules/${j}`, `'${id}' is not a rule of draft ${from}'s catalog${c.rules_draft === undefined ? ' (the case names no rules_draft, so its rule IDs are 0.1.0\'s)' : ''}`]);
  });
  (c.drafts ?? []).forEach((d, j) => {
    if (!known.includes(d)) problems.push([`${at}/drafts/${j}`, `'${d}' is not a registered draft (spec/drafts.yaml knows ${knownText})`]);
  });
  if (problems.length > 0) return problems;

  const others = known.filter((d) => d !== from);
  if (c.drafts === undefined) {
    c.rules.forEach((id, j) => {
      const amendedIn = others.filter((d) => changesOf(id, from, d).includes('amended'));
      if (amendedIn.length > 0) {
        problems.push([`${at}/rules/${j}`, `${id} is amended in draft ${amendedIn.join(' and ')}: list the drafts this case applies to under 'drafts:' after reading the rule in each`]);
      }
    });
  }
  (c.drafts ?? []).forEach((d, j) => {
    for (const id of c.rules) {
      const misfit = changesOf(id, from, d).filter((k) => NEVER_FITS.has(k));
      if (misfit.length > 0) problems.push([`${at}/drafts/${j}`, `${id} (draft ${from}) is ${misfit.join(' and ')} in draft ${d}: this case cannot hold there`]);
    }
  });
  if (problems.length > 0) return problems;

  const applies = caseDrafts(c);
  if (applies.length === 0) {
    return [[`${at}/rules`, `no registered draft keeps the meaning of all of ${c.rules.join(', ')}: the case applies to no draft`]];
  }
  const caseLevels = levelProblems(c, at, from, applies);
  return caseLevels.length > 0 ? caseLevels : expectationLevelProblems(c, at, from, applies);
}

/**
 * The level a failure of expectation `e` of case `c` counts at in `draft` (issue 29): its own `level`
 * there when it gives one; otherwise the weaker of the case's level and the level its rule has in that
 * draft (a LOOM-12 check, SHOULD, in a MUST case counts at SHOULD; a COMP-9 check at 0.3.1 at SHOULD); the
 * case's level for an expectation that names no rule. Undefined when the case has no level there.
 */
export function expectationLevel(e: Pick<Expectation, 'rule' | 'level'>, c: Pick<Case, 'level' | 'rules_draft'>, draft: string): Level | undefined {
  const caseLevel = levelFor(c, draft);
  if (caseLevel === undefined) return undefined;
  if (e.level !== undefined) return levelFor({ level: e.level }, draft) ?? caseLevel;
  if (e.rule === undefined) return caseLevel;
  const there = ruleCounterpart(e.rule, rulesDraftOf(c), draft).id;
  const rule = there === undefined ? undefined : catalogOf(draft).rules.find((r) => r.id === there);
  return rule === undefined || RANK[rule.level] >= RANK[caseLevel] ? caseLevel : rule.level;
}

/**
 * An expectation's own `level` (one, or one per draft the case applies to) is one its rule states in
 * each draft (the rule's level or a clause's) and no stronger than the case's there.
 */
function expectationLevelProblems(c: Case, at: string, from: string, applies: string[]): Problem[] {
  const problems: Problem[] = [];
  const lists: [string, Expectation[] | undefined][] = [['expect', c.expect], ['premise', c.premise]];
  for (const [key, list] of lists) {
    (list ?? []).forEach((e, k) => {
      if (e.level === undefined) return;
      const pointer = `${at}/${key}/${k}/level`;
      if (e.rule === undefined) return void problems.push([pointer, 'an expectation with a level of its own names the rule whose part it checks (rule:)']);
      if (typeof e.level === 'object') {
        for (const d of Object.keys(e.level)) if (!applies.includes(d)) problems.push([`${pointer}/${d}`, `the case does not apply to draft ${d} (it applies to ${applies.join(', ')})`]);
      }
      for (const d of applies) {
        const level = levelFor({ level: e.level! }, d);
        if (level === undefined) {
          problems.push([pointer, `no level for draft ${d}, which the case applies to`]);
          continue;
        }
        const caseLevel = levelFor(c, d);
        if (caseLevel !== undefined && RANK[level] > RANK[caseLevel]) problems.push([pointer, `level ${level} in draft ${d} is stronger than the case's (${caseLevel})`]);
        const there = ruleCounterpart(e.rule, from, d).id;
        const rule = there === undefined ? undefined : catalogOf(d).rules.find((r) => r.id === there);
        if (rule && !statedLevels(rule).includes(level)) problems.push([pointer, `${there} states no ${level} part in draft ${d} (it states ${[...new Set(statedLevels(rule))].join('/')})`]);
      }
    });
  }
  return problems;
}

const RANK: Record<Level, number> = { MAY: 1, SHOULD: 2, MUST: 3 };

/**
 * The level test (docs/INTERPRETING.md, "Drafts"). A level map names exactly the drafts the case
 * applies to. In each draft D it applies to, the case's level L must be
 *  1. no stronger than the strongest level its rules state in D (a rule's level or a clause's): a
 *     COMP-7 case cannot claim MUST at 0.1.0, where COMP-7 is MAY; a COMP-9 case cannot stay MUST at
 *     0.3.1, where COMP-9 is SHOULD. A weaker level is allowed: a case may check only the part of a
 *     rule the spec asks for at that strength;
 *  2. given per draft when it is the level of an obligation that changed level between the case's
 *     rules_draft and D: a single SHOULD on a PROD-4 case (the 80% trigger, MAY at 0.3.1) is refused,
 *     since the reader cannot tell which part it checks; a map settles it.
 */
function levelProblems(c: Case, at: string, from: string, applies: string[]): Problem[] {
  const problems: Problem[] = [];
  const single = typeof c.level === 'string';
  if (typeof c.level === 'object') {
    for (const key of Object.keys(c.level)) {
      if (!applies.includes(key)) problems.push([`${at}/level/${key}`, `the case does not apply to draft ${key} (it applies to ${applies.join(', ')})`]);
    }
  }
  const perDraft = `give the level per draft, e.g. level: { ${applies.map((a) => `${a}: ...`).join(', ')} }`;
  const older = (a: string, b: string): boolean => draftVersions().indexOf(a) < draftVersions().indexOf(b);
  for (const d of applies) {
    const level = levelFor(c, d);
    const pointer = single ? `${at}/level` : `${at}/level/${d}`;
    if (level === undefined) {
      problems.push([`${at}/level`, `no level for draft ${d}, which the case applies to`]);
      continue;
    }
    const stated = c.rules.map((id) => {
      const counterpart = ruleCounterpart(id, from, d);
      return { id, there: counterpart.id!, counterpart, levels: statedLevels(catalogOf(d).rules.find((r) => r.id === counterpart.id)!) };
    });
    const strongest = Math.max(...stated.flatMap((s) => s.levels.map((l) => RANK[l])));
    if (RANK[level] > strongest) {
      const said = stated.map((s) => `${s.there} states ${[...new Set(s.levels)].join('/')}`).join('; ');
      problems.push([pointer, `level ${level} in draft ${d} is stronger than any of the case's rules there (${said})${single && applies.length > 1 ? `: ${perDraft}` : ''}`]);
      continue;
    }
    if (!single) continue;
    for (const s of stated) {
      for (const change of s.counterpart.level_changes) {
        // level_changes compare the later draft with the earlier, whichever way the case maps.
        const [here, there] = older(from, d) ? [change.from, change.to] : [change.to, change.from];
        if (here === level && there !== level) {
          problems.push([pointer, `${s.id} (${change.part}) is ${here} in draft ${from} but ${there} in draft ${d}, and the case's one level is ${level}: ${perDraft}`]);
        }
      }
    }
  }
  return problems;
}

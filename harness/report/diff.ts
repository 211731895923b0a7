/**
 * Compares two reports (an earlier run and a later one, or two implementations): which cases and
 * properties newly fail, which are fixed, which fail for a different reason, which were added or
 * removed, and how rule statuses and level verdicts moved. As data (`diffReports`), as console text
 * and as Markdown.
 *
 * "Reason" means the cause keys of harness/report/root-causes.ts: a failure's expectation path, matcher and
 * kind of difference, an invariant's cause, a driving problem or the error, with ids and numbers taken
 * out. Two runs that fail a case in the same way compare equal even when turn ids or timings differ.
 *
 * Two reports may have judged different drafts (the same implementation under 0.1.0 and 0.3.1, say).
 * The diff then says so first, and compares rules through the registry's map of rule ids, so `LLM-4`
 * of 0.3.1 is compared with `CRYSTAL-4` of 0.1.0; a rule of one draft only (new, or removed) is listed
 * as such, never as a change of status. Cases are compared by id, as always: the case file is the same
 * for every draft, and a case outside one of the two drafts is added or removed.
 */
import type { Report, RuleStatus } from './report.ts';
import { BROKEN, caseCauseTexts, caseStatus, causeKeys, propertyCauseTexts, implementationName, LEVELS, mdCode, mdText, plural, propertyCauseKeys, type EffectiveStatus, type ReportCase, type ReportProperty } from './format.ts';
import { notExercisedText, profileText } from './profile.ts';
import { ruleCounterpart, type Counterpart } from '../../spec/drafts.ts';
import { draftName, draftOfReport, type ReportDraft } from './draft.ts';

/** A status in a diff: a case's effective status (report-format.ts `caseStatus`), a property's, or `absent`. */
export type DiffStatus = EffectiveStatus | 'absent';

export interface Change {
  kind: 'case' | 'property';
  id: string;
  rules: string[];
  level: string;
  from: DiffStatus;
  to: DiffStatus;
  /** Cause keys in the old run that the new run no longer shows. */
  gone_causes: string[];
  /** Cause keys the new run shows that the old run did not. */
  new_causes: string[];
  /** The causes the new run shows (or the old run's, for a fix). */
  causes: string[];
  /** Each cause key above in the words of the case or property itself, with its own values (the report it comes from). */
  cause_texts?: Record<string, string>;
  /** For a case in one report only: the draft of the other report, when that report lists it as outside its draft (not run there). */
  outside_draft?: string;
}

export interface RuleChange {
  /** The rule's id in the newer report's draft (the older one's for a rule only it has). */
  id: string;
  /** Its id in the older report's draft, when the two drafts name it differently (`CRYSTAL-4` for `LLM-4`). */
  old_id?: string;
  title: string;
  from: RuleStatus | 'absent';
  to: RuleStatus | 'absent';
  /** Across drafts, how the rule itself changed when it did more than change its name (`reversed`, `amended`, `level-changed`). */
  changes?: string[];
}

/** A rule that only one of the two drafts has: new in the newer draft, or removed by it. */
export interface OneDraftRule {
  id: string;
  title: string;
  /** The draft that has it (a version). */
  draft: string;
  /** Its status in the report of that draft. */
  status: RuleStatus;
}

export interface VerdictChange {
  level: string;
  from: string;
  to: string;
}

/** One side of a diff: the implementation, when it ran, the case file's spec version and the draft judged. */
export interface DiffSide {
  implementation: string;
  started_at: string;
  spec_version: string;
  draft: ReportDraft;
}

export interface ReportDiff {
  old: DiffSide;
  new: DiffSide;
  /** Present when the two reports judged different drafts (their versions): rules are then compared through the map of rule ids. */
  drafts?: { from: string; to: string };
  /** Not failing before (or not there), failing, errored or stale now. */
  new_failures: Change[];
  /** Failing, errored or stale before, passing now (a stale entry taken off the list passes). */
  fixed: Change[];
  /** Broken in both runs, with a different status or different causes. */
  changed_reasons: Change[];
  /** Any other move: pass → skipped, skipped → pass, fail → xfail, fail → skipped, … */
  other_changes: Change[];
  /** In the new run only (these may also be in new_failures). */
  added: Change[];
  /** In the old run only. */
  removed: Change[];
  rules: RuleChange[];
  /** Across drafts: the rules only one of the two drafts has, with their status there. Empty when both judged one draft. */
  rules_in_one_draft: OneDraftRule[];
  verdict: VerdictChange[];
  /** The profile judged, when it moved (declared features, or how many rules nothing exercised): `core (…); 21 of 67 rules not exercised` → `full (…); 1 of 67 …`. */
  profile?: { from: string; to: string };
}

interface Item {
  kind: 'case' | 'property';
  id: string;
  rules: string[];
  level: string;
  status: EffectiveStatus;
  causes: string[];
  texts: Record<string, string>;
}

const fromCase = (c: ReportCase): Item => ({ kind: 'case', id: c.id, rules: c.rules, level: c.level, status: caseStatus(c), causes: BROKEN.has(caseStatus(c)) || c.status === 'xfail' ? causeKeys(c) : [], texts: caseCauseTexts(c) });
const fromProperty = (p: ReportProperty): Item => ({ kind: 'property', id: p.id, rules: p.rules, level: p.level, status: p.status, causes: BROKEN.has(p.status) ? propertyCauseKeys(p) : [], texts: propertyCauseTexts(p) });

/** A cause key in the words of the case that shows it, when known. */
const causeWords = (c: Change, key: string): string => c.cause_texts?.[key] ?? key;

const sameSet = (a: string[], b: string[]): boolean => a.length === b.length && a.every((x) => b.includes(x));

/** Compares `before` with `after`; both are report.json contents. */
export function diffReports(before: Report, after: Report): ReportDiff {
  const side = (r: Report): DiffSide => ({ implementation: implementationName(r), started_at: r.environment.started_at, spec_version: r.spec_version, draft: draftOfReport(r) });
  const oldDraft = draftOfReport(before).version;
  const newDraft = draftOfReport(after).version;
  const diff: ReportDiff = {
    old: side(before),
    new: side(after),
    ...(oldDraft !== newDraft && { drafts: { from: oldDraft, to: newDraft } }),
    new_failures: [],
    fixed: [],
    changed_reasons: [],
    other_changes: [],
    added: [],
    removed: [],
    rules: [],
    rules_in_one_draft: [],
    verdict: [],
  };
  const compare = (olds: Item[], news: Item[]): void => {
    const oldById = new Map(olds.map((i) => [i.id, i]));
    const newIds = new Set(news.map((i) => i.id));
    for (const n of news) {
      const o = oldById.get(n.id);
      const change: Change = {
        kind: n.kind,
        id: n.id,
        rules: n.rules,
        level: n.level,
        from: o?.status ?? 'absent',
        to: n.status,
        gone_causes: (o?.causes ?? []).filter((k) => !n.causes.includes(k)),
        new_causes: n.causes.filter((k) => !(o?.causes ?? []).includes(k)),
        causes: n.causes,
        cause_texts: { ...(o?.texts ?? {}), ...n.texts },
      };
      if (!o) diff.added.push(change);
      const wasBroken = o !== undefined && BROKEN.has(o.status);
      const isBroken = BROKEN.has(n.status);
      if (isBroken && !wasBroken) diff.new_failures.push(change);
      else if (wasBroken && n.status === 'pass') diff.fixed.push({ ...change, causes: o.causes, cause_texts: o.texts });
      else if (wasBroken && isBroken) {
        if (o.status !== n.status || !sameSet(o.causes, n.causes)) diff.changed_reasons.push(change);
      } else if (o && o.status !== n.status) diff.other_changes.push(change);
    }
    for (const o of olds) {
      if (newIds.has(o.id)) continue;
      diff.removed.push({ kind: o.kind, id: o.id, rules: o.rules, level: o.level, from: o.status, to: 'absent', gone_causes: o.causes, new_causes: [], causes: o.causes, cause_texts: o.texts });
    }
  };
  compare(before.cases.map(fromCase), after.cases.map(fromCase));
  // A case in one report only because the other judged a draft it does not apply to says so.
  for (const c of diff.added) if (before.outside_draft?.includes(c.id)) c.outside_draft = oldDraft;
  for (const c of diff.removed) if (after.outside_draft?.includes(c.id)) c.outside_draft = newDraft;
  compare((before.properties ?? []).map(fromProperty), (after.properties ?? []).map(fromProperty));

  diffRules(before, after, diff);
  for (const level of LEVELS) {
    const from = before.verdict[level].status;
    const to = after.verdict[level].status;
    if (from !== to) diff.verdict.push({ level, from, to });
  }
  const profileOf = (r: Report): string => `${profileText(r.profile)}; ${notExercisedText(r.profile)}`;
  if (profileOf(before) !== profileOf(after)) diff.profile = { from: profileOf(before), to: profileOf(after) };
  return diff;
}

/** Changes of which kinds say the rule itself changed, not only its name or words. */
const SUBSTANTIVE = new Set(['amended', 'level-changed', 'reversed']);

/**
 * Rule statuses compared. Within one draft, by id. Across drafts, each rule of the newer report is
 * compared with its counterpart in the older draft (spec/drafts.ts `ruleCounterpart`); a rule with no
 * counterpart, on either side, goes to `rules_in_one_draft` with its status.
 */
function diffRules(before: Report, after: Report, diff: ReportDiff): void {
  const from = draftOfReport(before).version;
  const to = draftOfReport(after).version;
  const oldRules = new Map(before.rules.map((r) => [r.id, r]));
  const matched = new Set<string>();
  for (const r of after.rules) {
    const counterpart = from === to ? { id: r.id, changes: ['same'] } : counterpartIn(r.id, to, from);
    if (counterpart.id === undefined) {
      diff.rules_in_one_draft.push({ id: r.id, title: r.title, draft: to, status: r.status });
      continue;
    }
    matched.add(counterpart.id);
    const was = oldRules.get(counterpart.id)?.status ?? 'absent';
    if (was === r.status) continue;
    const changes = counterpart.changes.filter((c) => SUBSTANTIVE.has(c));
    diff.rules.push({ id: r.id, ...(counterpart.id !== r.id && { old_id: counterpart.id }), title: r.title, from: was, to: r.status, ...(changes.length > 0 && { changes }) });
  }
  for (const r of before.rules) {
    if (matched.has(r.id)) continue;
    if (from === to) diff.rules.push({ id: r.id, title: r.title, from: r.status, to: 'absent' });
    else diff.rules_in_one_draft.push({ id: r.id, title: r.title, draft: from, status: r.status });
  }
}

/** The counterpart of a rule in another draft; a rule the registry does not know there (a report's stray id) has none. */
function counterpartIn(id: string, version: string, other: string): Pick<Counterpart, 'id' | 'changes'> {
  try {
    return ruleCounterpart(id, version, other);
  } catch {
    return { id: undefined, changes: [] };
  }
}

/** True when the later run is worse somewhere: a new failure, or a level that passed and now fails. */
export function hasRegressions(diff: ReportDiff): boolean {
  return diff.new_failures.length > 0 || diff.verdict.some((v) => v.to === 'fail');
}

/** True when the two runs agree on every status and cause. */
export function isUnchanged(diff: ReportDiff): boolean {
  return (
    diff.new_failures.length + diff.fixed.length + diff.changed_reasons.length + diff.other_changes.length + diff.added.length + diff.removed.length + diff.rules.length + diff.rules_in_one_draft.length + diff.verdict.length === 0 &&
    diff.profile === undefined &&
    diff.drafts === undefined
  );
}

/** The diff's first line when the two reports judged different drafts. */
function draftsLine(diff: ReportDiff): string | undefined {
  if (!diff.drafts) return undefined;
  return `different drafts: old judged ${draftName(diff.old.draft)}, new judged ${draftName(diff.new.draft)}; rules are compared through the map of rule ids between drafts, cases by id`;
}

/** `LLM-4 (CRYSTAL-4 at 0.1.0)`: a rule under both drafts' ids when they differ. */
const ruleIds = (diff: ReportDiff, r: RuleChange): string => (r.old_id ? `${r.id} (${r.old_id} at ${diff.old.draft.version})` : r.id);
const ruleChanges = (r: RuleChange): string => (r.changes ? ` [${r.changes.join(', ')} between the drafts]` : '');

/** `outside draft 0.3.1: not run there`, under a case that only one report has for that reason. */
const outsideNote = (c: Change): string[] => (c.outside_draft ? [`outside draft ${c.outside_draft}: not run there`] : []);

const label = (c: Change): string => `${c.kind === 'property' ? 'property ' : ''}${c.id}`;
const move = (c: { from: string; to: string }): string => `${c.from} → ${c.to}`;

/** The diff for a terminal: one block per kind of change, the causes indented under each item. */
export function renderDiffText(diff: ReportDiff): string {
  const drafts = draftsLine(diff);
  const out: string[] = [
    ...(drafts ? [drafts] : []),
    `old: ${diff.old.implementation} (${diff.old.started_at}) against ${draftName(diff.old.draft)}`,
    `new: ${diff.new.implementation} (${diff.new.started_at}) against ${draftName(diff.new.draft)}`,
  ];
  if (isUnchanged(diff)) {
    out.push('no differences: every case, property, rule and verdict has the same status and the same causes');
    return `${out.join('\n')}\n`;
  }
  for (const v of diff.verdict) out.push(`verdict ${v.level}: ${move(v)}`);
  if (diff.profile) out.push(`profile: ${move(diff.profile)}`);
  const block = (title: string, changes: Change[], show: (c: Change) => string[]): void => {
    if (changes.length === 0) return;
    out.push('', `${title} (${changes.length}):`);
    for (const c of changes) {
      out.push(`  ${label(c)} [${c.rules.join(', ')}] ${move(c)}`);
      for (const line of show(c)) out.push(`      ${line}`);
    }
  };
  block('new failures', diff.new_failures, (c) => c.causes.map((k) => causeWords(c, k)));
  block('fixed', diff.fixed, () => []);
  block('changed reasons', diff.changed_reasons, (c) => [...c.gone_causes.map((k) => `- ${causeWords(c, k)}`), ...c.new_causes.map((k) => `+ ${causeWords(c, k)}`)]);
  block('other status changes', diff.other_changes, () => []);
  block('added', diff.added, outsideNote);
  block('removed', diff.removed, outsideNote);
  if (diff.rules.length > 0) {
    out.push('', `rules whose status changed (${diff.rules.length}):`);
    for (const r of diff.rules) out.push(`  ${ruleIds(diff, r)} ${r.title}: ${move(r)}${ruleChanges(r)}`);
  }
  if (diff.rules_in_one_draft.length > 0) {
    out.push('', `rules of one draft only (${diff.rules_in_one_draft.length}; not compared):`);
    for (const r of diff.rules_in_one_draft) out.push(`  ${r.id} ${r.title}: only in ${r.draft} (${r.status} there)`);
  }
  return `${out.join('\n')}\n`;
}

/** The diff as Markdown (for a pull-request comment or a job summary). */
export function renderDiffMarkdown(diff: ReportDiff): string {
  const drafts = draftsLine(diff);
  const out: string[] = [
    diff.drafts ? `## Conformance diff across drafts: ${mdText(draftName(diff.old.draft))} → ${mdText(draftName(diff.new.draft))}` : `## Conformance diff: ${mdText(draftName(diff.new.draft))}`,
    '',
    ...(drafts ? [`**${mdText(drafts.charAt(0).toUpperCase() + drafts.slice(1))}.**`, ''] : []),
    `Old: ${mdText(diff.old.implementation)} (${mdText(diff.old.started_at)}) · New: ${mdText(diff.new.implementation)} (${mdText(diff.new.started_at)})`,
    '',
  ];
  if (isUnchanged(diff)) {
    out.push('No differences: every case, property, rule and verdict has the same status and the same causes.', '');
    return out.join('\n');
  }
  const counts = [
    plural(diff.new_failures.length, 'new failure'),
    `${diff.fixed.length} fixed`,
    plural(diff.changed_reasons.length, 'changed reason'),
    plural(diff.other_changes.length, 'other status change'),
    `${diff.added.length} added`,
    `${diff.removed.length} removed`,
  ];
  out.push(`${hasRegressions(diff) ? '❌' : '✅'} ${counts.join(' · ')}`, '');
  if (diff.verdict.length > 0) {
    out.push('| level | old | new |', '| --- | --- | --- |', ...diff.verdict.map((v) => `| ${v.level} | ${v.from} | ${v.to} |`), '');
  }
  if (diff.profile) out.push(`Profile judged: ${mdText(diff.profile.from)} → ${mdText(diff.profile.to)}`, '');
  const section = (title: string, changes: Change[], detail: (c: Change) => string[]): void => {
    if (changes.length === 0) return;
    out.push(`### ${title} (${changes.length})`, '');
    for (const c of changes) {
      out.push(`- ${mdCode(label(c))} (${mdText(c.rules.join(', '))}): ${c.from} → ${c.to}`);
      for (const line of detail(c)) out.push(`  - ${line}`);
    }
    out.push('');
  };
  section('New failures', diff.new_failures, (c) => c.causes.map((k) => mdCode(causeWords(c, k))));
  section('Fixed', diff.fixed, () => []);
  section('Changed reasons', diff.changed_reasons, (c) => [...c.gone_causes.map((k) => `no longer: ${mdCode(causeWords(c, k))}`), ...c.new_causes.map((k) => `now: ${mdCode(causeWords(c, k))}`)]);
  section('Other status changes', diff.other_changes, () => []);
  section('Added', diff.added, outsideNote);
  section('Removed', diff.removed, outsideNote);
  if (diff.rules.length > 0) {
    out.push(`### Rules (${diff.rules.length})`, '', '| rule | old | new |', '| --- | --- | --- |');
    for (const r of diff.rules) out.push(`| ${mdText(ruleIds(diff, r))} ${mdText(r.title)}${mdText(ruleChanges(r))} | ${r.from} | ${r.to} |`);
    out.push('');
  }
  if (diff.rules_in_one_draft.length > 0) {
    out.push(`### Rules of one draft only (${diff.rules_in_one_draft.length}; not compared)`, '', '| rule | only in | status there |', '| --- | --- | --- |');
    for (const r of diff.rules_in_one_draft) out.push(`| ${r.id} ${mdText(r.title)} | ${r.draft} | ${r.status} |`);
    out.push('');
  }
  return out.join('\n');
}

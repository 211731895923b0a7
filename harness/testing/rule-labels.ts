/**
 * What a report blames and which rule ids it shows, for the measurement of one rule label per defect
 * (bench/rule-labels.ts) and its test (harness/report/one-rule-label.test.ts): every output of a report
 * (report.json, report.md, the console, junit.xml, report.html, summary.md, badge.json, `diff`) scanned
 * for rule ids outside the judged draft's catalog, and the rules a report blames, each with where.
 */
import { catalogOf, draftVersions, mapRuleId } from '../../spec/drafts.ts';
import type { Adapter } from '../../schemas/adapter.ts';
import { conformantVariant, type Defect } from '../../fixtures/miniatures/miniature.ts';
import type { Report } from '../report/report.ts';
import { caseSummaryLines, propertyLines, renderMarkdown, verdictLines } from '../report/markdown.ts';
import { reportOutputs } from '../report/outputs.ts';
import { diffReports, renderDiffMarkdown, renderDiffText } from '../report/diff.ts';
import { EXPECTED, LOOM_DEFECTS, variantWithLoomDefect } from './defect-rules.ts';

/** The rules each defect is declared to break, in 0.1.0 ids (harness/testing/defect-rules.ts, as the miniatures test checks them). */
export function declaredRules(): Map<string, string[]> {
  return new Map([...Object.entries(EXPECTED).map(([defect, e]) => [defect, e.rules] as const), ...Object.entries(LOOM_DEFECTS).map(([defect, e]) => [defect, e.rules] as const)]);
}

/** The broken copy named `defect`: a miniature defect, or a rewritten loom (harness/testing/defect-rules.ts `LOOM_DEFECTS`). */
export function brokenVariant(defect: string): Adapter {
  return defect in LOOM_DEFECTS ? variantWithLoomDefect(defect) : conformantVariant(defect as Defect);
}

/** Every rule-id-shaped token (`LOOP-3`, `IDENTITY-4`) whose family some draft's catalog uses. */
export function ruleIdsIn(text: string): string[] {
  const families = new Set(draftVersions().flatMap((d) => catalogOf(d).rules.map((r) => r.id.replace(/-\d+$/, ''))));
  return [...new Set([...text.matchAll(/\b([A-Z]+)-\d+\b/g)].filter((m) => families.has(m[1]!)).map((m) => m[0]))];
}

/** Every text a report is shown as: report.json, report.md, the console lines, the other files, and a diff against a clean run. */
export function everyOutput(report: Report, clean?: Report): Record<string, string> {
  const texts: Record<string, string> = {
    'report.json': JSON.stringify(report),
    'report.md': renderMarkdown(report),
    console: [...caseSummaryLines(report), ...propertyLines(report), ...verdictLines(report)].join('\n'),
  };
  for (const f of reportOutputs(report)) texts[f.file] = f.content;
  if (clean) {
    const diff = diffReports(clean, report);
    texts['diff (text)'] = renderDiffText(diff);
    texts['diff (markdown)'] = renderDiffMarkdown(diff);
  }
  return texts;
}

/**
 * The rule ids a report blames, each with where: failed cases' `failed_rules` (case), failed expectations
 * that are not a departure's consequence (expectation), root causes (cause), ambient findings (ambient),
 * violated ambient checks (ambient check), the rules rolled up as failing (rule). A consequence's rule, listed as not judged, is no blame.
 */
export function blamedRules(report: Report): Map<string, Set<string>> {
  const ids = new Map<string, Set<string>>();
  const add = (id: string, where: string): void => void (ids.get(id) ?? ids.set(id, new Set()).get(id)!).add(where);
  for (const c of report.cases.filter((x) => x.status === 'fail' || x.status === 'errored')) {
    c.failed_rules.forEach((r) => add(r, 'case'));
    for (const f of c.failures) if (f.rule !== undefined && f.consequence !== true) add(f.rule, 'expectation');
  }
  report.root_causes.forEach((g) => g.rules.forEach((r) => add(r, 'cause')));
  report.ambient_checks.forEach((a) => a.findings.forEach((f) => f.rules.forEach((r) => add(r, 'ambient'))));
  // A violated check is shown failing under its rules (report.md's table, junit's ambient test).
  report.ambient_checks.filter((a) => a.status === 'fail').forEach((a) => a.rules.forEach((r) => add(r, 'ambient check')));
  report.rules.filter((r) => r.status === 'fail').forEach((r) => add(r.id, 'rule'));
  return ids;
}

export interface LabelCount {
  defect: string;
  draft: string;
  groups: number;
  labels: string[];
  /** Blamed ids that are not the defect's declared rules (in the draft's ids), each with where it is blamed. */
  extra: string[];
  /** Ids shown anywhere in any output that the draft's catalog does not have, with the outputs showing them. */
  leaks: Record<string, string[]>;
}

/** Measures one defect at one draft (see the module comment). */
export function countLabels(defect: string, draft: string, report: Report, clean?: Report, declared = declaredRules()): LabelCount {
  const catalog = new Set(catalogOf(draft).rules.map((r) => r.id));
  const wanted = new Set((declared.get(defect) ?? []).map((id) => mapRuleId(id, '0.1.0', draft)).filter((id): id is string => id !== undefined));
  const blamed = blamedRules(report);
  const labels = [...blamed.keys()].sort();
  const leaks: Record<string, string[]> = {};
  for (const [name, text] of Object.entries(everyOutput(report, clean))) {
    for (const id of ruleIdsIn(text).filter((x) => !catalog.has(x))) (leaks[id] ??= []).push(name);
  }
  return { defect, draft, groups: report.root_causes.length, labels, extra: labels.filter((r) => !wanted.has(r)).map((r) => `${r} (${[...blamed.get(r)!].join('/')})`), leaks };
}

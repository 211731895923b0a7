/**
 * Reports of one implementation judged at each registered draft, for the tests of the outputs across
 * drafts (diff, matrix). The reference is run once, through the adapter interface, on a small slice of
 * tests.yaml whose rules were renamed (CRYSTAL-n is LLM-n, CALL-n is IDENTITY-n), removed (CANTRIP-3),
 * kept (LOOP-3, LOOM-2) or changed level (COMP-9); that one run is then read as a run judged at each
 * draft, the way planning hands cases to a judged draft (the drafts contract): a case whose rules all
 * keep their meaning and level there is kept with its rule ids in that draft's terms; any other case is
 * outside the draft and dropped. This stands in for `run --spec` (H4a) while the reference declares no
 * draft; the ambient invariants' rule ids are left in 0.1.0's terms, as the judge writes them, for the
 * report to map (harness/report/judged-ids.ts).
 */
import { join } from 'node:path';
import { createReferenceAdapter } from '../../reference/adapter/index.ts';
import { draftVersions, ruleCounterpart } from '../../spec/drafts.ts';
import { loadCaseFile } from '../case-file/load.ts';
import { PACKAGE_ROOT } from '../case-file/package-root.ts';
import { selects } from '../plan/plan.ts';
import { assertReportValid, buildReport, type Report } from '../report/report.ts';
import { runSuite, type CaseResult, type SuiteResult } from '../run/run.ts';

/** The slice: rules of each kind of change between drafts, none of them slow (no code medium, no timeout wards). */
export const DRAFT_SAMPLE_TERMS = ['CRYSTAL', 'CALL', 'CANTRIP-3', 'LOOP-3', 'COMP-9', 'LOOM-2'];

/** Changes after which a case written for 0.1.0 still says what the later draft asks, at the same level. */
const KEEPS_MEANING = new Set(['same', 'renamed', 'reworded']);

/** A 0.1.0 case as planning would hand it to `version`, or undefined when it is outside that draft. */
export function caseAtDraft(c: CaseResult, version: string): CaseResult | undefined {
  const map = new Map<string, string>();
  for (const id of new Set([...c.rules, ...c.failed_rules, ...c.failures.flatMap((f) => (f.rule ? [f.rule] : []))])) {
    const counterpart = ruleCounterpart(id, '0.1.0', version);
    if (counterpart.id === undefined || !counterpart.changes.every((k) => KEEPS_MEANING.has(k))) return undefined;
    map.set(id, counterpart.id);
  }
  const to = (id: string): string => map.get(id) ?? id;
  return { ...c, rules: c.rules.map(to), failed_rules: c.failed_rules.map(to), failures: c.failures.map((f) => (f.rule ? { ...f, rule: to(f.rule) } : f)) };
}

/** One run read as judged at `version`: the cases of that draft, in its terms, and the ids of those outside it (as the run lists them). */
export function suiteAtDraft(suite: SuiteResult, version: string): SuiteResult & { outside_draft: string[] } {
  const kept = suite.cases.map((c) => [c, caseAtDraft(c, version)] as const);
  return { ...suite, draft: version, cases: kept.flatMap(([, c]) => c ?? []), outside_draft: kept.filter(([, c]) => c === undefined).map(([c]) => c.id) };
}

/** The reference's reports at every registered draft, oldest first, from one run of the slice. */
export async function referenceAtEveryDraft(): Promise<{ version: string; report: Report }[]> {
  const file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'), 'tests.yaml');
  const quick = (c: (typeof file.cases)[number]): boolean => selects(c, DRAFT_SAMPLE_TERMS) && !(c.requires ?? []).includes('code-medium') && !/"timeout_ms"|"delay_ms":[0-9]{3,}/.test(JSON.stringify(c));
  const suite = await runSuite({ ...file, cases: file.cases.filter(quick) }, () => createReferenceAdapter());
  return draftVersions().map((version) => {
    const report = buildReport(suiteAtDraft(suite, version), { filter: DRAFT_SAMPLE_TERMS });
    assertReportValid(report);
    return { version, report };
  });
}

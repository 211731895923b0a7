/**
 * Ambient checks, judged once per run. The ambient invariants (harness/judge/invariants.ts) run after
 * every case, but a case's verdict is its own expectations: an invariant's violation is not the case's
 * failure. Here each invariant becomes one check of the run, with the cases it looked at, the cases it
 * saw violated, and its findings: one per distinct structural difference (the cause key of
 * harness/report/root-causes.ts), each blamed on its own rules and shown with an example of its own.
 * A finding counts in the level verdict of its rules once, however many cases show it
 * (docs/reports.md, "Ambient checks").
 */
import type { Level } from '../case-file/index.ts';
import { parseCauseKey, rulesForProblem } from '../judge/index.ts';
import { byRuleOrder } from '../../spec/drafts.ts';
import { exampleDetail, invariantCauses } from './root-causes.ts';
import { kitRulesIn } from '../plan/index.ts';

/** What a case result must carry for its ambient checks to be read (a `CaseResult` or a report.json case). */
export interface AmbientSource {
  id: string;
  status: string;
  invariants: { id: string; rules: string[]; status: string; detail?: string; cause?: string }[];
}

/** One structural difference an ambient check saw, and the cases that show it. */
export interface AmbientFinding {
  /** What differed, with case-specific ids, indices and names taken out. */
  key: string;
  /** The rules the difference breaks, in catalog order (a schema problem's own rules, else the check's). */
  rules: string[];
  /** The spec section that describes the failing field, when the difference is a schema requirement. */
  section?: string;
  count: number;
  /** The cases that show it, in run order. */
  cases: string[];
  /** The first case that shows it, with the part of the check's text about this difference. */
  example: { case: string; detail: string };
}

/** One ambient check over the whole run. */
export interface AmbientCheck {
  id: string;
  /**
   * The rules the check stands for; for a violated check, the rules its findings break, so a check that
   * reads many rules (turn-schema: LOOM-2, LOOM-9, IDENTITY-4) is shown failing only under those it saw
   * broken, the same rule its findings, root causes and verdict name (one defect, one rule: issue 31).
   */
  rules: string[];
  /** fail: some case showed a violation; pass: it looked at some case and saw none; skipped: it never looked. */
  status: 'pass' | 'fail' | 'skipped';
  /** How many cases it looked at (did not skip). */
  checked: number;
  /** The cases it saw violated, in run order. */
  violated: string[];
  /** Why it never looked (the first case's reason), when skipped. */
  reason?: string;
  findings: AmbientFinding[];
}

/** Cases whose ambient checks are read: every case that ran to a verdict. */
const RAN: ReadonlySet<string> = new Set(['pass', 'fail', 'xfail']);

/**
 * Judges each ambient invariant once over every case that ran, in the order the invariants first appear;
 * rules are listed in the catalog order of `draft`, the draft whose ids the cases carry.
 */
export function ambientChecks(cases: readonly AmbientSource[], draft = '0.1.0'): AmbientCheck[] {
  const byCatalog = byRuleOrder(draft);
  const checks = new Map<string, AmbientCheck & { listed: Set<string>; failing: Set<string>; byKey: Map<string, AmbientFinding & { ruleSet: Set<string> }> }>();
  for (const c of cases) {
    if (!RAN.has(c.status)) continue;
    for (const inv of c.invariants) {
      let check = checks.get(inv.id);
      if (!check) {
        check = { id: inv.id, rules: [], status: 'skipped', checked: 0, violated: [], findings: [], listed: new Set(), failing: new Set(), byKey: new Map() };
        checks.set(inv.id, check);
      }
      if (inv.status === 'skipped') {
        check.reason ??= inv.detail;
        if (inv.rules.length > 0) inv.rules.forEach((r) => check.listed.add(r));
        continue;
      }
      check.checked++;
      if (inv.status !== 'fail') {
        inv.rules.forEach((r) => check.listed.add(r));
        continue;
      }
      check.violated.push(c.id);
      inv.rules.forEach((r) => check.failing.add(r));
      for (const line of invariantCauses(inv)) {
        const parsed = parseCauseKey(line);
        const attributed = parsed ? rulesForProblem(parsed.schema, parsed) : undefined;
        // A schema cause names its own rules; any other cause carries the invariant's rules for this failure.
        const rules = attributed && (attributed.rules.length > 0 || attributed.section) ? attributed.rules : inv.rules;
        let finding = check.byKey.get(line);
        if (!finding) {
          finding = { key: line, rules: [], ...(attributed?.section && { section: attributed.section }), count: 0, cases: [], example: { case: c.id, detail: exampleDetail(inv.detail, line) }, ruleSet: new Set() };
          check.byKey.set(line, finding);
        }
        if (!finding.cases.includes(c.id)) {
          finding.cases.push(c.id);
          finding.count++;
        }
        // A schema cause is attributed here, in the kit's 0.1.0 ids (schema-rules.ts): read in the cases' draft, so no finding falls outside every level.
        kitRulesIn(rules, draft).forEach((r) => finding.ruleSet.add(r));
      }
    }
  }
  return [...checks.values()].map(({ listed, failing, byKey, ...check }) => {
    const findings = [...byKey.values()].map(({ ruleSet, ...f }) => ({ ...f, rules: [...ruleSet].sort(byCatalog) })).sort((a, b) => b.count - a.count || a.key.localeCompare(b.key));
    const status = check.violated.length > 0 ? 'fail' : check.checked > 0 ? 'pass' : 'skipped';
    const { reason, ...rest } = check;
    const broken = new Set(findings.flatMap((f) => f.rules));
    const shown = status === 'fail' && broken.size > 0 ? broken : listed.size > 0 ? listed : failing;
    return { ...rest, rules: kitRulesIn([...shown], draft).sort(byCatalog), status, ...(status === 'skipped' && reason !== undefined && { reason }), findings };
  });
}

/** The rules ambient findings show broken, each with the checks that show it. */
export function ambientBrokenRules(checks: readonly AmbientCheck[]): Map<string, string[]> {
  const by = new Map<string, string[]>();
  for (const check of checks) for (const f of check.findings) for (const r of f.rules) if (!(by.get(r) ?? []).includes(check.id)) by.set(r, [...(by.get(r) ?? []), check.id]);
  return by;
}

/** How many ambient findings break a rule of `level` (each finding counts once, whatever its number of cases). */
export function ambientFailuresAt(checks: readonly AmbientCheck[], level: Level, levelOf: (rule: string) => Level | undefined): number {
  return checks.flatMap((c) => c.findings).filter((f) => f.rules.some((r) => levelOf(r) === level)).length;
}

/**
 * One defect, one rule label (issues 29 and 31): runs tests.yaml against each broken miniature
 * (fixtures/miniatures/, and the rewritten looms of harness/testing/defect-rules.ts) at each draft, and counts, per defect and draft, what its report
 * blames: the root-cause groups, the distinct rule ids the report shows broken (failed cases' rules,
 * their failed expectations' rules, the root causes', the ambient findings'), and the ids that are
 * not the defect's declared rules (fixtures/miniatures/README.md, mapped into the draft) or not in the
 * draft's catalog at all. Every output (report.json, report.md, the console, summary.md, junit.xml,
 * report.html) is scanned for rule ids outside the judged draft's catalog.
 *
 * `npx tsx bench/rule-labels.ts [--drafts 0.2.0,0.3.1] [defect ...]` prints one line per run and a total.
 * A whole-suite run per defect and draft: minutes on an idle machine (no timing is read from it).
 *
 * Measured on 2026-11-28 over the 42 broken copies (39 miniature defects, 3 rewritten looms) at each draft,
 * before (e9a7655) and after issue 31's "one defect, one rule label":
 *
 * | draft | copies blamed beyond their rules | copies showing an id outside the draft | root-cause groups | distinct labels |
 * | --- | --- | --- | --- | --- |
 * | 0.1.0 | 16 → 0 | 0 → 0 | 98 → 92 | 177 → 60 |
 * | 0.2.0 | 14 → 0 | 42 → 0 | 92 → 87 | 169 → 56 |
 * | 0.3.1 | 14 → 0 | 42 → 0 | 92 → 87 | 170 → 56 |
 *
 * Before, report.json did not say which failed expectations were a departure's consequences, so their
 * rules counted as blamed; the copies left with more than one label (7 or 8 per draft) break each of
 * them (harness/testing/defect-rules.ts).
 */
import { join } from 'node:path';
import { loadCaseFile, PACKAGE_ROOT } from '../harness/case-file/index.ts';
import { runSuite } from '../harness/run/index.ts';
import { buildReport } from '../harness/report/report.ts';
import { LOOM_DEFECTS } from '../harness/testing/defect-rules.ts';
import { brokenVariant, countLabels, declaredRules } from '../harness/testing/rule-labels.ts';
import { conformantVariant, DEFECTS, VARIANT_DRAFTS } from '../fixtures/miniatures/miniature.ts';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const at = args.indexOf('--drafts');
  const drafts = at >= 0 ? args.splice(at, 2)[1]!.split(',') : [...VARIANT_DRAFTS];
  const defects = args.length > 0 ? args : [...DEFECTS, ...Object.keys(LOOM_DEFECTS)];
  const file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
  const declared = declaredRules();
  let runs = 0;
  let withExtra = 0;
  let withLeaks = 0;
  for (const draft of drafts) {
    const clean = buildReport(await runSuite(file, () => conformantVariant(), { jobs: 6, draft }));
    for (const defect of defects) {
      const report = buildReport(await runSuite(file, () => brokenVariant(defect), { jobs: 6, draft }));
      const n = countLabels(defect, draft, report, clean, declared);
      runs++;
      if (n.extra.length > 0) withExtra++;
      if (Object.keys(n.leaks).length > 0) withLeaks++;
      const leaks = Object.entries(n.leaks).map(([id, where]) => `${id} in ${where.join('/')}`);
      console.log(`${draft} ${defect}: ${n.groups} root-cause groups; labels ${n.labels.join(', ') || '(none)'}; extra ${n.extra.join(', ') || '-'}; leaks ${leaks.join('; ') || '-'}`);
    }
  }
  console.log(`${runs} runs: ${withExtra} show a rule beyond the defect's declared ones, ${withLeaks} show an id outside the judged draft's catalog`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();

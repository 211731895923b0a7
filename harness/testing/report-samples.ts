/**
 * Reports for the tests of the report outputs: real runs of the reference, the conformant variant and
 * a defect miniature (each through the adapter interface only), and a small hand-made report holding
 * every status and the awkward text an output must escape.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
// These samples are 0.1.0 reports (harness/report/drafts.test.ts has the later drafts').
import { referenceOfTheSeedDraft } from './seed-draft-reference.ts';
import { Miniature } from '../../fixtures/miniatures/miniature.ts';
import type { Adapter } from '../../schemas/adapter.ts';
import type { LoadedCase } from '../case-file/types.ts';
import { loadCaseFile } from '../case-file/load.ts';
import { selects } from '../plan/filter.ts';
import { PROPERTIES } from '../properties/definitions.ts';
import { runProperties, type PropertyResult } from '../properties/run-properties.ts';
import { assertReportValid, buildReport, type Report } from '../report/report.ts';
import { runSuite, type CaseResult, type SuiteResult } from '../run/run.ts';

export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The slice of tests.yaml the samples run: cases of the loop, the circle and the loom (chapters 1, 4
 * and 6) without the code medium and without timeout wards or long crystal delays, and the properties
 * of the conversation family. That is enough for failures, skips, properties with a reproducer and
 * root causes, and keeps the three runs near a second (the code medium and the timeout cases would
 * add several seconds of sandbox work and waiting).
 */
export const SAMPLE_TERMS = ['LOOP', 'CIRCLE', 'LOOM'];
export const SAMPLE_SEED = 20240611;

const quick = (c: LoadedCase): boolean => selects(c, SAMPLE_TERMS) && !(c.requires ?? []).includes('code-medium') && !/"timeout_ms"|"delay_ms":[0-9]{3,}/.test(JSON.stringify(c));

export interface Samples {
  reference: Report;
  variant: Report;
  defect: Report;
}

async function sample(factory: () => Adapter): Promise<Report> {
  const file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'), 'tests.yaml');
  const suite = await runSuite({ ...file, cases: file.cases.filter(quick) }, factory);
  const properties = await runProperties(factory, suite.description, { runs: 3, seed: SAMPLE_SEED, filter: PROPERTIES.map((p) => p.id) });
  const report = buildReport(suite, { filter: SAMPLE_TERMS, properties });
  assertReportValid(report);
  return report;
}

/** Runs the three implementations (concurrently) and builds their reports. */
export async function sampleReports(): Promise<Samples> {
  const [reference, variant, defect] = await Promise.all([sample(referenceOfTheSeedDraft), sample(() => new Miniature()), sample(() => new Miniature('ignores-done'))]);
  return { reference, variant, defect };
}

/** Text that breaks naive XML, HTML and Markdown output. */
export const NASTY =
  'a <b>tag</b> & "quotes" \'single\' ]]> `tick` | pipe *star* [link](x) \u0000nul \u0001soh \u0008bs \u000bvt \u000cff \u001besc \u007fdel \u0085nel \ufffe \uffff lone \ud800 high, lone \udc00 low, pair 😀, tab\tnew\nline\r\n<script>alert(1)</script>';

const position = { file: 'tests.yaml', line: 1, column: 5 };
const baseCase = (id: string, rules: string[], status: CaseResult['status'], extra: Partial<CaseResult> = {}): CaseResult => ({
  id,
  rules,
  level: 'MUST',
  requires: [],
  description: `case ${id}`,
  status,
  duration_ms: 1.5,
  failures: [],
  expectations: 1,
  invariants: [],
  problems: [],
  failed_rules: [],
  position,
  ...extra,
});

/**
 * A report with one case of each status (pass, fail, errored by timeout, skipped, xfail, stale) and one
 * property of each (pass, fail with a reproducer, errored, skipped), its text full of {@link NASTY}.
 */
export function syntheticReport(): Report {
  const cases: CaseResult[] = [
    baseCase('plain-pass', ['LOOP-1'], 'pass'),
    baseCase('nasty-fail', ['LOOP-3', 'CIRCLE-8'], 'fail', {
      description: `description: ${NASTY}`,
      failures: [{ path: 'outcomes.first.result', matcher: 'equals', ok: false, expected: { equals: NASTY }, actual: `got ${NASTY}`, why: `values differ: ${NASTY}`, rule: 'CIRCLE-8' }],
      // Seen in this case, judged once for the run (report.ambient_checks), not part of the case's failure.
      invariants: [{ id: 'ids-and-parents', rules: ['LOOM-2'], status: 'fail', detail: `turn t-1 has parent ${NASTY}` }],
      problems: [`problem: ${NASTY}`],
      failed_rules: ['LOOP-3', 'CIRCLE-8'],
    }),
    baseCase('slow-errored', ['LOOP-4'], 'errored', { reason: `case slow-errored did not finish within 10 ms ${NASTY}`, timed_out: true, expectations: 0 }),
    baseCase('needs-folding', ['LOOM-5'], 'skipped', { reason: 'feature not declared: folding', expectations: 0 }),
    baseCase('known-broken', ['CIRCLE-5'], 'xfail', {
      failures: [{ path: 'outcomes.first.status', matcher: 'equals', ok: false, expected: { equals: 'terminated' }, actual: 'truncated', why: 'values differ' }],
      failed_rules: ['CIRCLE-5'],
    }),
    baseCase('now-passes', ['LOOP-2'], 'pass', { stale: true }),
  ];
  const suite: SuiteResult = {
    description: { name: `nasty <impl> & "co"`, version: '0.0.1', spec_version: '0.1.0-draft', protocol_version: 1, features: [] },
    file: 'tests.yaml',
    spec_version: '0.1.0-draft',
    draft: '0.1.0',
    format_version: 1,
    started_at: '2026-01-02T03:04:05.678Z',
    duration_ms: 12.34,
    cases,
  };
  const prop = (id: string, status: PropertyResult['status'], extra: Partial<PropertyResult> = {}): PropertyResult => ({
    id,
    rules: ['LOOP-3'],
    level: 'MUST',
    title: `property ${id}`,
    status,
    runs: 3,
    seed: 42,
    duration_ms: 2,
    failed_rules: [],
    ...extra,
  });
  const properties: PropertyResult[] = [
    prop('holds', 'pass'),
    prop('breaks', 'fail', {
      failed_rules: ['LOOP-3'],
      counterexample: {
        case_yaml: `- id: property-breaks\n  description: "${NASTY.replace(/[\u0000-\u001f"\\]/g, ' ')}"\n  rules: [ LOOP-3 ]\n`,
        steps: 1,
        shrinks: 4,
        failures: [{ path: 'outcomes.first.status', matcher: 'equals', ok: false, expected: { equals: 'terminated' }, actual: 'truncated', why: 'values differ' }],
        invariants: [],
      },
    }),
    prop('throws', 'errored', { reason: `adapter threw: ${NASTY}` }),
    prop('not-applicable', 'skipped', { reason: 'feature not declared: composition', runs: 0 }),
  ];
  const report = buildReport(suite, { properties });
  assertReportValid(report);
  return report;
}

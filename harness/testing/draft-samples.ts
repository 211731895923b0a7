/**
 * Reports of one implementation judged at each registered draft, for the tests of the outputs across
 * drafts (diff, matrix): the reference, through the adapter interface, run at 0.1.0, 0.2.0 and 0.3.1 as
 * `run --spec` runs it (planning for the judged draft: cases outside it not run, rules and levels in its
 * terms, `setup.draft` on every construct), on a small slice of tests.yaml whose rules were renamed
 * (CRYSTAL-n is LLM-n, CALL-n is IDENTITY-n), removed (CANTRIP-3), reversed (CALL-3), kept (LOOP-3,
 * LOOM-2) or changed level (COMP-9). The reference is wrapped to declare the three drafts, which it does
 * not do itself before it implements them; the wrapper changes nothing once it does.
 */
import { join } from 'node:path';
import { createReferenceAdapter } from '../../reference/adapter/index.ts';
import type { Adapter, Description } from '../../schemas/adapter.ts';
import { draftVersions } from '../../spec/drafts.ts';
import { loadCaseFile } from '../case-file/load.ts';
import { PACKAGE_ROOT } from '../case-file/package-root.ts';
import { assertReportValid, buildReport, type Report } from '../report/report.ts';
import { runSuite } from '../run/run.ts';

/** The slice, in both drafts' family names: rules of each kind of change between drafts, none of them slow. */
export const DRAFT_SAMPLE_TERMS = ['CRYSTAL', 'LLM', 'CALL', 'IDENTITY', 'CANTRIP-3', 'LOOP-3', 'COMP-9', 'LOOM-2'];

/** The reference, declaring every registered draft. */
function referenceOfEveryDraft(): Adapter {
  const inner = createReferenceAdapter();
  return Object.assign(Object.create(inner) as Adapter, {
    describe: async (): Promise<Description> => ({ ...(await inner.describe()), drafts: draftVersions() }),
  });
}

/** The reference's reports at every registered draft, oldest first, one run per draft. */
export async function referenceAtEveryDraft(): Promise<{ version: string; report: Report }[]> {
  const file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'), 'tests.yaml');
  // Without the code medium and the cases that wait on timers: seconds of sandbox work and waiting that the outputs do not need.
  const quick = file.cases.filter((c) => !(c.requires ?? []).includes('code-medium') && !/"timeout_ms"|"delay_ms":[0-9]{3,}/.test(JSON.stringify(c)));
  return Promise.all(
    draftVersions().map(async (version) => {
      const suite = await runSuite({ ...file, cases: quick }, referenceOfEveryDraft, { draft: version, filter: DRAFT_SAMPLE_TERMS });
      const report = buildReport(suite, { filter: DRAFT_SAMPLE_TERMS });
      assertReportValid(report);
      return { version, report };
    }),
  );
}

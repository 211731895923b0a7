/**
 * The two reports issue 21 asks to see, from real runs of tests.yaml through the adapter interface, with
 * every output written as the CLI writes it (report.json, report.md, junit.xml, report.html, summary.md,
 * badge.json):
 *
 * - record shapes: the conformant variant (fixtures/miniatures/miniature.ts), whose loom keeps gate records
 *   without ids or error names and results as the text the entity saw, on the cases about gate results;
 * - a refused construction: the same cases on an implementation that refuses every construction as
 *   unsupported.
 *
 * docs/reports.md shows an excerpt of each report.md; `npx tsx harness/testing/must-show-reports.ts` prints
 * them, and harness/run/record-shapes.test.ts fails when the docs no longer match a run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CantripSetup, Host, Result } from '../../schemas/adapter.ts';
import { Miniature } from '../../fixtures/miniatures/miniature.ts';
import { loadCaseFile } from '../case-file/load.ts';
import { PACKAGE_ROOT } from '../case-file/package-root.ts';
import { renderMarkdown } from '../report/markdown.ts';
import { writeReportOutputs } from '../report/outputs.ts';
import { assertReportValid, buildReport, type Report } from '../report/report.ts';
import { runSuite, type AdapterFactory } from '../run/run.ts';

/** Cases about gate results (CIRCLE-4, CIRCLE-5, CIRCLE-7, COMP-3): their gates return numbers, text and a failure. */
export const GATE_RESULT_CASES = ['gate-calls-run-in-utterance-order', 'crystal4-caller-ids-link-results', 'circle7-different-delays-keep-call-order', 'gate-failure-returns-as-observation', 'comp3-batch-results-in-request-order'];

/** The reason the refusing implementation gives. */
export const REFUSAL = 'this implementation builds no cantrip of that shape';

/** The conformant variant, refusing every construction as unsupported (an implementation with a narrower setup). */
export class RefusesEverySetup extends Miniature {
  override async construct(_setup: CantripSetup, _host: Host): Promise<Result<{ cantrip: string }>> {
    return { ok: false, error: { code: 'unsupported', message: REFUSAL } };
  }
}

/** Runs the gate-result cases of tests.yaml on `factory` and returns the schema-valid report. */
export async function gateResultReport(factory: AdapterFactory): Promise<Report> {
  const file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'), 'tests.yaml');
  const suite = await runSuite(file, factory, { filter: GATE_RESULT_CASES });
  const report = buildReport(suite, { filter: GATE_RESULT_CASES });
  assertReportValid(report);
  return report;
}

/** Writes every output of `report` into `dir` as the CLI does; returns report.md's text. */
export function writeEveryOutput(dir: string, report: Report): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
  const md = renderMarkdown(report);
  writeFileSync(join(dir, 'report.md'), md);
  writeReportOutputs(dir, report);
  return md;
}

/** The lines of report.md's section `heading` (`## Record shapes`), without the trailing blank lines. */
export function mdSection(md: string, heading: string): string[] {
  const lines = md.split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`report.md has no section ${heading}`);
  const end = lines.findIndex((l, i) => i > start && l.startsWith('## '));
  const section = lines.slice(start, end < 0 ? undefined : end);
  while (section.at(-1) === '') section.pop();
  return section;
}

/** The verdict table of report.md (its heading and table, not the profile under it). */
const verdictTable = (md: string): string[] => {
  const section = mdSection(md, '## Verdict');
  return [section[0]!, '', ...section.filter((l) => l.startsWith('|'))];
};

/** What docs/reports.md shows of the record-shapes report: the verdict, the record shapes, the failures. */
export function recordShapesExcerpt(md: string): string {
  return [...verdictTable(md), '', ...mdSection(md, '## Record shapes'), '', ...mdSection(md, '## Failures')].join('\n');
}

/** Run-to-run durations in the cases table, shown as `…` in the docs. */
const withoutDurations = (row: string): string => row.replace(/^(\|[^|]*\|[^|]*\|[^|]*\|[^|]*\|) [0-9.]+ \|/, '$1 … |');

/** What docs/reports.md shows of the refused-construction report: the verdict, the failures, the cases (durations elided). */
export function refusedExcerpt(md: string): string {
  return [...verdictTable(md), '', ...mdSection(md, '## Failures'), '', ...mdSection(md, '## Cases').map(withoutDurations)].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const shapes = renderMarkdown(await gateResultReport(() => new Miniature()));
  const refused = renderMarkdown(await gateResultReport(() => new RefusesEverySetup()));
  console.log(`${recordShapesExcerpt(shapes)}\n\n----\n\n${refusedExcerpt(refused)}`);
}

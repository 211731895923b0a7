/**
 * Every file written next to report.json, in one place, so the CLI (and anyone using the library) can
 * write them all with one call: junit.xml, report.html, summary.md and badge.json. report.json and
 * report.md themselves stay with the CLI (report.ts, report-markdown.ts).
 */
import type { Catalog } from '../../spec/catalog.ts';
import type { Report } from './report.ts';
import { HTML_FILE, renderHtml } from './html.ts';
import { JUNIT_FILE, renderJUnit } from './junit.ts';
import { BADGE_FILE, renderBadgeJson, renderJobSummary, SUMMARY_FILE } from './summary.ts';
import { makeOutputFolder, writeOutputFile } from './write-files.ts';

export interface OutputOptions {
  catalog?: Catalog;
  /** The badge's left-hand text (default "cantrip"). */
  badgeLabel?: string;
}

export interface OutputFile {
  /** File name, relative to the output folder. */
  file: string;
  content: string;
}

/** The extra outputs of a report, as file names and contents (nothing is written). */
export function reportOutputs(report: Report, options: OutputOptions = {}): OutputFile[] {
  return [
    { file: JUNIT_FILE, content: renderJUnit(report) },
    { file: HTML_FILE, content: renderHtml(report, options.catalog ? { catalog: options.catalog } : {}) },
    { file: SUMMARY_FILE, content: renderJobSummary(report) },
    { file: BADGE_FILE, content: renderBadgeJson(report, options.badgeLabel !== undefined ? { label: options.badgeLabel } : {}) },
  ];
}

/** Writes the extra outputs into `dir` (created if needed), each atomically and never through a symlink (write-files.ts); returns the paths written. */
export function writeReportOutputs(dir: string, report: Report, options: OutputOptions = {}): string[] {
  makeOutputFolder(dir);
  return reportOutputs(report, options).map(({ file, content }) => writeOutputFile(dir, file, content));
}

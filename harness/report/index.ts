/** Stage 6, reporting: the report and each output format, root causes, diff and matrix. */
export { diffReports, hasRegressions, renderDiffMarkdown, renderDiffText } from './diff.ts';
export { readReport, reasonLine } from './format.ts';
export { caseSummaryLines, propertyLines, renderMarkdown, verdictLines } from './markdown.ts';
export { buildMatrix, renderMatrixHtml, renderMatrixMarkdown } from './matrix.ts';
export { writeReportOutputs } from './outputs.ts';
export { assertReportValid, buildReport, exitCode, INCOMPLETE_EXIT, NOTHING_JUDGED_EXIT, PROFILE_BELOW_EXIT, profileShortfall, selectedNothing } from './report.ts';
export type { VerdictOptions } from './report.ts';
export { PROFILE_ORDER, profileMeets } from './profile.ts';
export type { ProfileName } from './profile.ts';

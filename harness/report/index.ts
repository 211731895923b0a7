/** Stage 6, reporting: the report and each output format, root causes, diff and matrix. */
export { diffReports, hasRegressions, renderDiffMarkdown, renderDiffText } from './diff.ts';
export { readReport, reasonLine } from './format.ts';
export { caseSummaryLines, propertyLines, renderMarkdown, verdictLines } from './markdown.ts';
export { buildMatrix, renderMatrixHtml, renderMatrixMarkdown } from './matrix.ts';
export { writeReportOutputs } from './outputs.ts';
// What the results site (harness/site/) renders with: the report's words, styles and badges.
export type { Report, LevelVerdict } from './report.ts';
export type { RootCause } from './root-causes.ts';
export type { Matrix, MatrixCell, MatrixColumn, MatrixRow } from './matrix.ts';
export type { Change, ReportDiff } from './diff.ts';
export type { Badge } from './summary.ts';
export { cellText } from './matrix.ts';
export { anchor, causeText, clipText, expectationLine, html, LEVELS, oneLine, plural } from './format.ts';
export { documentHead, STYLE } from './html.ts';
export { notExercisedText, profileText, skipNote, skippedAt } from './profile.ts';
export { verdictDetail } from './markdown.ts';
export { renderBadge } from './summary.ts';
export { catalogOfReport, draftName, draftOfReport } from './draft.ts';
export { checkOutputFolder, makeOutputFolder, OutputFolderError, writeOutputFile } from './write-files.ts';
export { assertReportValid, buildReport, exitCode, INCOMPLETE_EXIT, NOTHING_JUDGED_EXIT, PROFILE_BELOW_EXIT, profileShortfall, selectedNothing } from './report.ts';
export type { VerdictOptions } from './report.ts';
export { PROFILE_ORDER, profileMeets } from './profile.ts';
export type { ProfileName } from './profile.ts';

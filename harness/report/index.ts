/** Stage 6, reporting: the report and each output format, root causes, diff and matrix. */
export { diffReports, hasRegressions, renderDiffMarkdown, renderDiffText } from './diff.ts';
export { readReport } from './format.ts';
export { caseSummaryLines, propertyLines, renderMarkdown, verdictLines } from './markdown.ts';
export { buildMatrix, renderMatrixHtml, renderMatrixMarkdown } from './matrix.ts';
export { writeReportOutputs } from './outputs.ts';
export { assertReportValid, buildReport, exitCode } from './report.ts';
export { checkOutputFolder, makeOutputFolder, OutputFolderError, writeOutputFile } from './write-files.ts';

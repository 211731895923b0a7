/**
 * The comparison commands: `diff <old.json> <new.json>` (new failures, fixed cases, changed reasons)
 * and `matrix <a.json> <b.json> ...` (rule by implementation). Both read reports written by `run`.
 * Exit codes: `diff` 1 when the newer report has regressions, `matrix` 0; 2 for bad usage or a report
 * that does not read.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseCommandLine, type OptionTable } from './arguments.ts';
import { diffReports, hasRegressions, renderDiffMarkdown, renderDiffText } from '../report/index.ts';
import { readReport } from '../report/index.ts';
import { buildMatrix, renderMatrixHtml, renderMatrixMarkdown } from '../report/index.ts';

export interface CompareIo {
  out: (line: string) => void;
  err: (line: string) => void;
  cwd: string;
}

export const DIFF_USAGE = 'usage: cantrip-conformance diff <old report.json> <new report.json> [--format text|markdown|json]';
export const MATRIX_USAGE = 'usage: cantrip-conformance matrix <report.json> <report.json>... [--html <file>] [--only-differences]';

const DIFF_OPTIONS = { format: { type: 'string' } } as const satisfies OptionTable;
const MATRIX_OPTIONS = { html: { type: 'string' }, 'only-differences': { type: 'boolean' } } as const satisfies OptionTable;

const DIFF_HELP = `${DIFF_USAGE}
  Compares two reports written by \`run\`: new failures, fixed cases, changed reasons. Reports of two
  drafts are compared rule by rule through the map of rule ids between drafts (the first line says so).
  --format <f>   text | markdown | json [text]
  exit codes: 0 no regression, 1 the newer report has regressions, 2 bad usage or a report that does not read`;

const MATRIX_HELP = `${MATRIX_USAGE}
  A rule-by-implementation table of two or more reports written by \`run\`, which may have judged
  different drafts: each row is then one rule across them (LLM-4 / CRYSTAL-4), "not in this draft" where
  a column's draft has no such rule.
  --html <file>          also write the table as a self-contained HTML file
  --only-differences     only the rules on which the reports differ
  exit codes: 0 the table was written, 2 bad usage or a report that does not read`;

export function runDiff(args: string[], io: CompareIo): number {
  try {
    const { values, positionals: files } = parseCommandLine(args, DIFF_OPTIONS, true);
    if (values['help'] === true) {
      io.out(DIFF_HELP);
      return 0;
    }
    if (files.length !== 2) throw new Error('diff compares exactly two reports');
    const format = (values['format'] as string | undefined) ?? 'text';
    if (!['text', 'markdown', 'json'].includes(format)) throw new Error(`--format is text, markdown or json, got '${format}'`);
    const [before, after] = files.map((f) => readReport(resolve(io.cwd, f))) as [ReturnType<typeof readReport>, ReturnType<typeof readReport>];
    const diff = diffReports(before, after);
    io.out(format === 'json' ? JSON.stringify(diff, null, 2) : format === 'markdown' ? renderDiffMarkdown(diff) : renderDiffText(diff));
    return hasRegressions(diff) ? 1 : 0;
  } catch (error) {
    io.err(`${(error as Error).message}\n${DIFF_USAGE}`);
    return 2;
  }
}

export function runMatrix(args: string[], io: CompareIo): number {
  try {
    const { values, positionals: files } = parseCommandLine(args, MATRIX_OPTIONS, true);
    if (values['help'] === true) {
      io.out(MATRIX_HELP);
      return 0;
    }
    if (files.length < 2) throw new Error('matrix needs at least two reports');
    // The file each report came from names its column when two reports are of one implementation and version.
    const matrix = buildMatrix(files.map((f) => ({ report: readReport(resolve(io.cwd, f)), source: f })));
    const options = { onlyDifferences: values['only-differences'] === true };
    io.out(renderMatrixMarkdown(matrix, options));
    const html = values['html'] as string | undefined;
    if (html !== undefined) {
      writeFileSync(resolve(io.cwd, html), renderMatrixHtml(matrix, options));
      io.out(`wrote ${resolve(io.cwd, html)}`);
    }
    return 0;
  } catch (error) {
    io.err(`${(error as Error).message}\n${MATRIX_USAGE}`);
    return 2;
  }
}

/**
 * The comparison commands: `diff <old.json> <new.json>` (new failures, fixed cases, changed reasons)
 * and `matrix <a.json> <b.json> ...` (rule by implementation). Both read reports written by `run`.
 * Exit codes: `diff` 1 when the newer report has regressions, `matrix` 0; 2 for bad usage or a report
 * that does not read.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
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

/** Splits arguments into positional files and `--flag [value]` options (flags in `bare` take no value). */
function split(args: string[], bare: readonly string[]): { files: string[]; flags: Map<string, string> } {
  const files: string[] = [];
  const flags = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('--')) files.push(arg);
    else if (bare.includes(arg)) flags.set(arg, '');
    else {
      const value = args[i + 1];
      if (value === undefined || value.startsWith('--')) throw new Error(`${arg} needs a value`);
      flags.set(arg, value);
      i++;
    }
  }
  return { files, flags };
}

export function runDiff(args: string[], io: CompareIo): number {
  try {
    const { files, flags } = split(args, []);
    const unknown = [...flags.keys()].find((f) => f !== '--format');
    if (unknown !== undefined) throw new Error(`unknown option '${unknown}'`);
    if (files.length !== 2) throw new Error('diff compares exactly two reports');
    const format = flags.get('--format') ?? 'text';
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
    const { files, flags } = split(args, ['--only-differences']);
    const unknown = [...flags.keys()].find((f) => f !== '--html' && f !== '--only-differences');
    if (unknown !== undefined) throw new Error(`unknown option '${unknown}'`);
    if (files.length < 2) throw new Error('matrix needs at least two reports');
    const matrix = buildMatrix(files.map((f) => ({ report: readReport(resolve(io.cwd, f)) })));
    const options = { onlyDifferences: flags.has('--only-differences') };
    io.out(renderMatrixMarkdown(matrix, options));
    const html = flags.get('--html');
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

/**
 * The problems a case file is refused with, for the tests of the loader's checks: each test writes a
 * small file and looks for the problem at its line, column and JSON pointer.
 */
import { CaseFileError, loadCaseText } from '../case-file/index.ts';

/** The problems `loadCaseText` refuses `text` with (named `file` in them); throws when the file loads. */
export function problemsOf(text: string, file = 'cases.yaml'): CaseFileError['problems'] {
  try {
    loadCaseText(text, file);
  } catch (error) {
    if (error instanceof CaseFileError) return error.problems;
    throw error;
  }
  throw new Error(`expected ${file} to be refused`);
}

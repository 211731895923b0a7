/**
 * How the kit writes its output files so that they cannot be turned against the user: each file is
 * written to a fresh temporary name in the output folder (created exclusively, so an existing file or
 * symlink of that name is never followed) and renamed over the final name, which replaces a symlink
 * there instead of writing through it to a file outside the folder. A reader never sees half a report.
 * The folder itself is made one level at a time (Node's recursive mkdir never returns under /proc), and
 * checked before a run without leaving behind a folder the run never filled.
 */
import { lstatSync, mkdirSync, renameSync, rmdirSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

/** Why an output folder cannot hold the report: the path, and what went wrong there. */
export class OutputFolderError extends Error {
  override name = 'OutputFolderError';
}

/**
 * Makes `dir` and any missing parents, one level at a time; returns the folders it made, outermost
 * first (empty when `dir` existed). Throws {@link OutputFolderError} when a level exists and is not a
 * folder, or cannot be made.
 */
export function makeOutputFolder(dir: string): string[] {
  const missing: string[] = [];
  let at = dir;
  for (;;) {
    const stat = statOrUndefined(at);
    if (stat) {
      if (!stat.isDirectory()) throw new OutputFolderError(`cannot write the report to ${dir}: ENOTDIR: ${at} exists and is not a folder`);
      break;
    }
    missing.unshift(at);
    const parent = dirname(at);
    if (parent === at) break;
    at = parent;
  }
  const made: string[] = [];
  for (const level of missing) {
    try {
      mkdirSync(level);
      made.push(level);
    } catch (error) {
      removeFolders(made);
      throw new OutputFolderError(`cannot write the report to ${dir}: cannot make ${level} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
  }
  return made;
}

/**
 * Checks before a run that `dir` can hold the report: it is (or can be made) a folder in which a file
 * can be created and renamed. Leaves nothing behind: a folder it had to make is removed again, and made
 * anew when the report is written.
 */
export function checkOutputFolder(dir: string): void {
  const made = makeOutputFolder(dir);
  try {
    writeOutputFile(dir, '.cantrip-write-check', '');
    unlinkSync(join(dir, '.cantrip-write-check'));
  } catch (error) {
    throw new OutputFolderError(`cannot write the report to ${dir}: ${(error as Error).message}`);
  } finally {
    removeFolders(made);
  }
}

/** Writes `content` to `dir/name` through a temporary file and a rename; never through a symlink. */
export function writeOutputFile(dir: string, name: string, content: string): string {
  if (basename(name) !== name) throw new Error(`output file name '${name}' must not contain a folder`);
  const path = join(dir, name);
  const temporary = join(dir, `.${name}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    // wx: created here and now, never an existing file or a symlink planted under this name.
    writeFileSync(temporary, content, { flag: 'wx', mode: 0o644 });
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  return path;
}

/** Removes the folders `made` (outermost first) if they are still empty; never throws. */
function removeFolders(made: readonly string[]): void {
  for (const level of [...made].reverse()) {
    try {
      rmdirSync(level);
    } catch {
      return;
    }
  }
}

function statOrUndefined(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

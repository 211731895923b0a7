/**
 * The files a case's `setup.files` and `setup.links` describe, written to a fresh temporary directory
 * for that case only, so file gates (`read`, `list_dir`) have a real tree to work on in any language's
 * implementation. A gate's `root` is then read relative to that directory.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, normalize, sep } from 'node:path';

export interface CaseFiles {
  dir: string;
  cleanup(): Promise<void>;
}

/** Writes `files` (path -> content) and `links` (path -> symlink target, relative) under a new directory. */
export async function materializeFiles(files: Record<string, string> = {}, links: Record<string, string> = {}): Promise<CaseFiles> {
  const dir = await mkdtemp(join(tmpdir(), 'cantrip-case-'));
  const place = (path: string): string => {
    const clean = normalize(path);
    // The loader's schema already refuses these; this keeps the harness from writing outside its directory regardless.
    if (isAbsolute(clean) || clean === '..' || clean.startsWith(`..${sep}`)) throw new Error(`case file path '${path}' leaves the case directory`);
    return join(dir, clean);
  };
  for (const [path, content] of Object.entries(files)) {
    const target = place(path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content, 'utf8');
  }
  for (const [path, target] of Object.entries(links)) {
    const at = place(path);
    await mkdir(dirname(at), { recursive: true });
    await symlink(target, at);
  }
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** One regular file of the case directory as the run record shows it under `files`. */
export interface CaseDirectoryFile {
  /** Relative to the case directory, `/`-separated. */
  path: string;
  content: string;
}

/**
 * Every regular file under the case directory after the actions, sorted by path: what a case reads to
 * see whether an overlay reached the base (feature overlay-file-gates). Symlinks are not followed, so
 * nothing outside the directory is read.
 */
export async function readCaseFiles(dir: string, prefix = ''): Promise<CaseDirectoryFile[]> {
  const found: CaseDirectoryFile[] = [];
  for (const entry of await readdir(join(dir, prefix), { withFileTypes: true })) {
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) found.push(...(await readCaseFiles(dir, path)));
    else if (entry.isFile()) found.push({ path, content: await readFile(join(dir, path), 'utf8') });
  }
  return found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

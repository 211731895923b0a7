/**
 * The files a case's `setup.files` and `setup.links` describe, written to a fresh temporary directory
 * for that case only, so file gates (`read`, `list_dir`) have a real tree to work on in any language's
 * implementation. A gate's `root` is then read relative to that directory.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
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

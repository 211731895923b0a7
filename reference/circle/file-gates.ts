import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { CantripError } from '../errors.ts';
import { defineGate, type Gate } from './gate.ts';

/** Largest file `read` returns; bigger ones are refused rather than flooding the context. */
export const MAX_READ_BYTES = 1024 * 1024;

/**
 * The `read` gate, confined to `root` (§4.3, §4.4). The root is bound when the circle is built and
 * the entity only names paths (CIRCLE-10). Absolute paths inside the root and paths relative to it are
 * accepted; anything that leaves it, through `..` or through a symlink, is refused with
 * `path_outside_root` (a ward that narrows a gate, CIRCLE-6), before the file is even opened.
 */
export function readGate(options: { root: string }): Gate {
  return defineGate(
    {
      name: 'read',
      description: 'Read a text file under the circle root. Paths are relative to the root, or absolute inside it.',
      parameters: { type: 'object', properties: { path: { type: 'string', description: 'The file to read.' } }, required: ['path'] },
    },
    async ({ path }) => {
      const file = await confine(options.root, path);
      const info = await stat(file);
      if (!info.isFile()) throw new CantripError('invalid_gate_arguments', `'${String(path)}' is not a file`);
      if (info.size > MAX_READ_BYTES) throw new CantripError('invalid_gate_arguments', `'${String(path)}' is larger than ${MAX_READ_BYTES} bytes`);
      return readFile(file, 'utf8');
    },
  );
}

/** The `list_dir` gate, confined to `root` like {@link readGate}: the sorted names in one directory. */
export function listDirGate(options: { root: string }): Gate {
  return defineGate(
    {
      name: 'list_dir',
      description: 'List the names in a directory under the circle root.',
      parameters: { type: 'object', properties: { path: { type: 'string', description: 'The directory; the root when empty.' } } },
    },
    async ({ path }) => {
      const dir = await confine(options.root, path ?? '.');
      return (await readdir(dir)).sort();
    },
  );
}

/**
 * Resolves `requested` against `root` and proves the result stays inside it, first by the path's
 * text (so nothing outside is touched at all) and then after following symlinks. Shared with the
 * overlay's reads of the base (overlay.ts).
 */
export async function confine(root: string, requested: unknown): Promise<string> {
  if (typeof requested !== 'string') throw new CantripError('invalid_gate_arguments', 'path must be a string');
  if (requested.includes('\0')) throw new CantripError('invalid_gate_arguments', 'path contains a NUL byte');
  const base = resolve(root);
  const target = resolve(base, requested === '' ? '.' : requested);
  if (!inside(base, target)) refuse(requested);
  const realRoot = await realpath(base);
  let real: string;
  try {
    real = await realpath(resolve(realRoot, relative(base, target)));
  } catch {
    throw Object.assign(new Error(`no such file or directory: '${requested}'`), { name: 'NotFound' });
  }
  if (!inside(realRoot, real)) refuse(requested);
  return real;
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

function refuse(requested: string): never {
  throw new CantripError('path_outside_root', `'${requested}' is outside the circle root`);
}

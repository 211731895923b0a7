import { lstat, mkdir, readdir, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Turn } from '../../schemas/index.ts';
import { CantripError } from '../errors.ts';
import { confine, MAX_READ_BYTES } from './file-gates.ts';

/** One change an entity made to its overlay: new content, or `null` for a deletion (a whiteout over the base). */
export interface FileChange {
  path: string;
  content: string | null;
}

/** Who is asking, as a gate learns it from its call (GateContext): the entity, its turn, and the turn before it. */
export interface OverlayCaller {
  entityId: string;
  /** The turn in progress; its changes are logged under it, for the loom and for forks. */
  turnId?: string;
  /** The turn the entity's current one hangs from: where a fork's overlay is rebuilt from (LOOM-4). */
  previousTurnId?: string;
}

export interface FileOverlayOptions {
  /** The base directory; every path stays inside it, as for the plain file gates (CIRCLE-6). */
  root: string;
  /**
   * The thread up to a turn, oldest first, reaching at least as far up as the nearest call turn, so a
   * forked entity's overlay starts where its thread does (LOOM-4).
   */
  pathTo?: (turnId: string) => readonly Turn[];
}

/**
 * Copy-on-write file overlays over one root, one per entity (the idea comes from Cairn's agent
 * overlays, seed 002). The overlay is a gate dependency: it is built with the circle and handed to
 * the file gates before any entity exists (CIRCLE-10); the entity only names paths.
 *
 * - Reads fall through to the base when the entity's overlay has nothing at a path; writes and
 *   deletions (whiteouts) touch only the overlay, so the base is untouched until the host accepts.
 * - Each entity has its own overlay, children included: nothing is shared by accident (COMP-4).
 * - Every change is logged under the turn that made it. A forked entity's overlay is rebuilt from the
 *   changes logged on its thread up to the fork turn (its own cantrip's stretch of it, like its
 *   context), so it starts as the original's was at that turn, and its writes never reach the
 *   original's (LOOM-4). The same log lets the loom show each turn's changes (LOOM-1).
 * - `accept` merges an entity's overlay into the base, `reject` discards it; either way it is empty after.
 */
export class FileOverlay {
  readonly root: string;
  protected readonly pathTo: ((turnId: string) => readonly Turn[]) | undefined;
  /** Each entity's overlay: path -> content, or null for a whiteout. */
  private readonly overlays = new Map<string, Map<string, string | null>>();
  /** The changes made during each turn, in order. */
  private readonly log = new Map<string, FileChange[]>();

  constructor(options: FileOverlayOptions) {
    this.root = resolve(options.root);
    this.pathTo = options.pathTo;
  }

  /** The text at `path` as the entity sees it: its own overlay first, else the base. */
  async read(caller: OverlayCaller, path: unknown): Promise<string> {
    const key = overlayKey(this.root, path);
    const own = this.overlayOf(caller);
    if (own.has(key)) {
      const content = own.get(key);
      if (content === null || content === undefined) throw notFound(String(path));
      return content;
    }
    if (this.isOverlayDirectory(own, key)) throw new CantripError('invalid_gate_arguments', `'${String(path)}' is not a file`);
    const file = await confine(this.root, key === '' ? '.' : key);
    const info = await stat(file);
    if (!info.isFile()) throw new CantripError('invalid_gate_arguments', `'${String(path)}' is not a file`);
    if (info.size > MAX_READ_BYTES) throw new CantripError('invalid_gate_arguments', `'${String(path)}' is larger than ${MAX_READ_BYTES} bytes`);
    return readFile(file, 'utf8');
  }

  /** The sorted names in a directory as the entity sees it: the base's, less its whiteouts, plus its own files. */
  async list(caller: OverlayCaller, path: unknown): Promise<string[]> {
    const key = overlayKey(this.root, path ?? '.');
    const own = this.overlayOf(caller);
    if (own.has(key)) {
      if (own.get(key) === null) throw notFound(String(path));
      throw new CantripError('invalid_gate_arguments', `'${String(path)}' is not a directory`);
    }
    const names = new Set<string>();
    let found = false;
    try {
      const dir = await confine(this.root, key === '' ? '.' : key);
      if ((await stat(dir)).isDirectory()) {
        found = true;
        for (const name of await readdir(dir)) names.add(name);
      }
    } catch (error) {
      if (error instanceof CantripError) throw error; // outside the root: refused, not merely missing
    }
    const prefix = key === '' ? '' : `${key}/`;
    for (const [entry, content] of own) {
      if (!entry.startsWith(prefix)) continue;
      const name = entry.slice(prefix.length).split('/')[0]!;
      if (content === null) {
        if (!entry.slice(prefix.length).includes('/')) names.delete(name);
        continue;
      }
      names.add(name);
      found = true;
    }
    if (!found) throw notFound(String(path ?? '.'));
    return [...names].sort();
  }

  /** Writes `content` at `path` in the entity's overlay only; the base is not touched. */
  async write(caller: OverlayCaller, path: unknown, content: unknown): Promise<void> {
    if (typeof content !== 'string') throw new CantripError('invalid_gate_arguments', 'content must be a string');
    if (Buffer.byteLength(content, 'utf8') > MAX_READ_BYTES) throw new CantripError('invalid_gate_arguments', `content is larger than ${MAX_READ_BYTES} bytes`);
    const key = overlayKey(this.root, path);
    if (key === '') throw new CantripError('invalid_gate_arguments', 'the root itself is not a file');
    await this.checkWritable(key, String(path));
    const own = this.overlayOf(caller);
    if (this.isOverlayDirectory(own, key)) throw new CantripError('invalid_gate_arguments', `'${String(path)}' is a directory`);
    const parts = key.split('/');
    for (let i = 1; i < parts.length; i++) {
      if (typeof own.get(parts.slice(0, i).join('/')) === 'string') throw new CantripError('invalid_gate_arguments', `'${String(path)}' is under a file`);
    }
    this.change(caller, own, { path: key, content });
  }

  /** Deletes the file at `path` in the entity's view: a whiteout over the base, or just dropping its own copy. */
  async delete(caller: OverlayCaller, path: unknown): Promise<void> {
    const key = overlayKey(this.root, path);
    const own = this.overlayOf(caller);
    const inOverlay = own.get(key);
    const inBase = await this.baseFileExists(key);
    if (inOverlay === null || (inOverlay === undefined && !inBase)) throw notFound(String(path));
    this.change(caller, own, { path: key, content: null });
  }

  /** The paths changed during one turn, sorted, each once (what the loom shows for that turn, LOOM-1). */
  changedIn(turnId: string): string[] {
    return [...new Set((this.log.get(turnId) ?? []).map((change) => change.path))].sort();
  }

  /** What accepting would apply to the base: the entity's overlay, by path. */
  pending(caller: OverlayCaller): FileChange[] {
    return [...this.overlayOf(caller)].map(([path, content]) => ({ path, content })).sort((a, b) => (a.path < b.path ? -1 : 1));
  }

  /**
   * Merges the entity's overlay into the base: files written, whiteouts deleted. Every path is checked
   * against the root again first (the base may have changed since the write), and nothing is written
   * unless all of them pass. The overlay is empty afterwards. Returns the paths applied.
   */
  async accept(caller: OverlayCaller): Promise<string[]> {
    const changes = this.pending(caller);
    for (const change of changes) await this.checkWritable(change.path, change.path);
    for (const { path, content } of changes) {
      const target = join(this.root, ...path.split('/'));
      if (content === null) await rm(target, { force: true });
      else {
        await mkdir(dirname(target), { recursive: true });
        await writeFile(target, content, 'utf8');
      }
    }
    this.overlays.set(caller.entityId, new Map());
    return changes.map((change) => change.path);
  }

  /** Discards the entity's overlay; the base never saw it. Returns the paths dropped. */
  reject(caller: OverlayCaller): string[] {
    const paths = this.pending(caller).map((change) => change.path);
    this.overlays.set(caller.entityId, new Map());
    return paths;
  }

  private change(caller: OverlayCaller, own: Map<string, string | null>, change: FileChange): void {
    // A deletion is always kept as a whiteout, even of a file only the overlay had: one rule, and harmless.
    own.set(change.path, change.content);
    if (caller.turnId !== undefined) {
      const logged = this.log.get(caller.turnId) ?? [];
      logged.push(change);
      this.log.set(caller.turnId, logged);
    }
  }

  /**
   * The entity's overlay, made on first use: empty for a new entity or a child (COMP-4), and for a
   * forked one the changes logged on its thread up to the fork turn, replayed in order (LOOM-4).
   */
  protected overlayOf(caller: OverlayCaller): Map<string, string | null> {
    let own = this.overlays.get(caller.entityId);
    if (own) return own;
    own = new Map();
    if (this.pathTo && caller.previousTurnId !== undefined) {
      const path = this.pathTo(caller.previousTurnId);
      // Only this cantrip's stretch of the thread: a child's overlay does not start from its parent's.
      const lineage = path.slice(path.map((turn) => turn.role).lastIndexOf('call') + 1);
      for (const turn of lineage) for (const change of this.log.get(turn.id) ?? []) own.set(change.path, change.content);
    }
    this.overlays.set(caller.entityId, own);
    return own;
  }

  private isOverlayDirectory(own: Map<string, string | null>, key: string): boolean {
    const prefix = key === '' ? '' : `${key}/`;
    for (const [entry, content] of own) if (content !== null && entry.startsWith(prefix)) return true;
    return false;
  }

  private async baseFileExists(key: string): Promise<boolean> {
    try {
      return (await stat(await confine(this.root, key))).isFile();
    } catch (error) {
      if (error instanceof CantripError) throw error;
      return false;
    }
  }

  /**
   * Root confinement for a path that may not exist yet (CIRCLE-6): its deepest existing ancestor must
   * resolve, symlinks followed, inside the root, and an existing target must not be a symlink at all
   * (writing through one could land outside).
   */
  private async checkWritable(key: string, requested: string): Promise<void> {
    const realRoot = await realpath(this.root);
    const target = join(this.root, ...key.split('/'));
    const existing = await lstat(target).catch(() => undefined);
    if (existing?.isSymbolicLink()) throw outside(requested);
    if (existing?.isDirectory()) throw new CantripError('invalid_gate_arguments', `'${requested}' is a directory`);
    let ancestor = dirname(target);
    for (;;) {
      const info = await lstat(ancestor).catch(() => undefined);
      if (info) {
        const real = await realpath(ancestor).catch(() => undefined);
        if (real === undefined || !within(realRoot, real)) throw outside(requested);
        if (!(await stat(real)).isDirectory()) throw new CantripError('invalid_gate_arguments', `'${requested}' is under a file`);
        return;
      }
      if (ancestor === this.root) return;
      ancestor = dirname(ancestor);
    }
  }
}

/**
 * The key the overlay files `requested` under: relative to the root, `/`-separated, `''` for the root
 * itself. Paths that leave the root by their text (`..`, an absolute path elsewhere, a sibling sharing
 * the root's name as a prefix such as `../data2`) are refused before anything is touched.
 */
export function overlayKey(root: string, requested: unknown): string {
  if (typeof requested !== 'string') throw new CantripError('invalid_gate_arguments', 'path must be a string');
  if (requested.includes('\0')) throw new CantripError('invalid_gate_arguments', 'path contains a NUL byte');
  const base = resolve(root);
  const target = resolve(base, requested === '' ? '.' : requested);
  if (!within(base, target)) throw outside(requested);
  return relative(base, target).split(sep).filter((part) => part !== '').join('/');
}

function within(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

function outside(requested: string): CantripError {
  return new CantripError('path_outside_root', `'${requested}' is outside the circle root`);
}

function notFound(requested: string): Error {
  return Object.assign(new Error(`no such file or directory: '${requested}'`), { name: 'NotFound' });
}

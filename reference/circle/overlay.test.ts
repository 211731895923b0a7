import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Turn } from '../../schemas/index.ts';
import { FileOverlay, overlayKey } from './overlay.ts';
import { overlayFileGate } from './overlay-file-gates.ts';
import type { GateContext } from './gate.ts';

let dir = '';
let root = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cantrip-overlay-'));
  root = join(dir, 'data');
  await mkdir(join(root, 'sub'), { recursive: true });
  await mkdir(join(dir, 'data2'), { recursive: true });
  await writeFile(join(root, 'a.txt'), 'base a');
  await writeFile(join(root, 'sub', 'b.txt'), 'base b');
  await writeFile(join(dir, 'data2', 'secret.txt'), 'sibling');
  await writeFile(join(dir, 'outside.txt'), 'outside');
  await symlink('../outside.txt', join(root, 'escape'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const A = { entityId: 'a', turnId: 'a1' };
const B = { entityId: 'b', turnId: 'b1' };

/** Every file under `at` as path -> text, symlinks left out. */
async function tree(at: string, prefix = ''): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(at, { withFileTypes: true })) {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) Object.assign(out, await tree(join(at, entry.name), path));
    else if (entry.isFile()) out[path] = await readFile(join(at, entry.name), 'utf8');
  }
  return out;
}

describe('copy-on-write overlay over a root (feature overlay-file-gates)', () => {
  it('CIRCLE-10: reads fall through to the base; writes and deletions touch only the overlay until accepted', async () => {
    const overlay = new FileOverlay({ root });
    await expect(overlay.read(A, 'a.txt')).resolves.toBe('base a');
    await overlay.write(A, 'a.txt', 'mine');
    await overlay.write(A, 'new/c.txt', 'c');
    await overlay.delete(A, 'sub/b.txt');
    await expect(overlay.read(A, 'a.txt')).resolves.toBe('mine');
    await expect(overlay.read(A, 'sub/b.txt')).rejects.toMatchObject({ name: 'NotFound' });
    await expect(overlay.list(A, '.')).resolves.toEqual(['a.txt', 'escape', 'new', 'sub']);
    await expect(overlay.list(A, 'sub')).resolves.toEqual([]);
    expect(await readFile(join(root, 'a.txt'), 'utf8')).toBe('base a');
    expect(overlay.changedIn('a1')).toEqual(['a.txt', 'new/c.txt', 'sub/b.txt']);
    await overlay.accept(A);
    expect(await readFile(join(root, 'a.txt'), 'utf8')).toBe('mine');
    expect(await readFile(join(root, 'new', 'c.txt'), 'utf8')).toBe('c');
    await expect(readFile(join(root, 'sub', 'b.txt'), 'utf8')).rejects.toThrow();
    expect(overlay.pending(A)).toEqual([]);
  });

  it('COMP-4: each entity has its own overlay; reject discards one and leaves the base and the other alone', async () => {
    const overlay = new FileOverlay({ root });
    await overlay.write(A, 'a.txt', 'from a');
    await expect(overlay.read(B, 'a.txt')).resolves.toBe('base a');
    await overlay.write(B, 'b-only.txt', 'b');
    await expect(overlay.read(A, 'b-only.txt')).rejects.toMatchObject({ name: 'NotFound' });
    expect(overlay.reject(A)).toEqual(['a.txt']);
    await expect(overlay.read(A, 'a.txt')).resolves.toBe('base a');
    await expect(overlay.read(B, 'b-only.txt')).resolves.toBe('b');
    expect(await readFile(join(root, 'a.txt'), 'utf8')).toBe('base a');
  });

  it('LOOM-4: a fork starts from the changes logged on its thread up to the fork turn, within its own cantrip', async () => {
    const turn = (id: string, role: Turn['role'] = 'crystal') => ({ id, role }) as Turn;
    const paths: Record<string, Turn[]> = {
      a1: [turn('call', 'call'), turn('a1')],
      a2: [turn('call', 'call'), turn('a1'), turn('a2')],
      child0: [turn('call', 'call'), turn('a1'), turn('childcall', 'call')],
    };
    const overlay = new FileOverlay({ root, pathTo: (id) => paths[id] ?? [] });
    await overlay.write({ entityId: 'a', turnId: 'a1', previousTurnId: 'call' }, 'x.txt', 'one');
    await overlay.write({ entityId: 'a', turnId: 'a2', previousTurnId: 'a1' }, 'x.txt', 'two');
    const fork = { entityId: 'f', turnId: 'f1', previousTurnId: 'a1' };
    await expect(overlay.read(fork, 'x.txt')).resolves.toBe('one');
    await overlay.write(fork, 'x.txt', 'fork');
    await expect(overlay.read({ entityId: 'a' }, 'x.txt')).resolves.toBe('two');
    // A child hangs under a call turn of its own: it starts over the base, not over its parent's overlay.
    await expect(overlay.read({ entityId: 'c', turnId: 'c1', previousTurnId: 'child0' }, 'x.txt')).rejects.toMatchObject({ name: 'NotFound' });
  });

  it('CIRCLE-6: paths leaving the root are refused for every operation, the ../data2 prefix sibling and symlinks included', async () => {
    const overlay = new FileOverlay({ root });
    for (const path of ['../outside.txt', '../data2/secret.txt', join(dir, 'outside.txt'), '/etc/passwd']) {
      await expect(overlay.write(A, path, 'x'), path).rejects.toMatchObject({ code: 'path_outside_root' });
      await expect(overlay.read(A, path), path).rejects.toMatchObject({ code: 'path_outside_root' });
      await expect(overlay.delete(A, path), path).rejects.toMatchObject({ code: 'path_outside_root' });
    }
    await expect(overlay.list(A, '../data2')).rejects.toMatchObject({ code: 'path_outside_root' });
    await expect(overlay.write(A, 'escape', 'through the link')).rejects.toMatchObject({ code: 'path_outside_root' });
    await expect(overlay.read(A, 'escape')).rejects.toMatchObject({ code: 'path_outside_root' });
    expect(overlay.pending(A)).toEqual([]);
    expect(await readFile(join(dir, 'outside.txt'), 'utf8')).toBe('outside');
    expect(overlayKey(root, './sub/../a.txt')).toBe('a.txt');
  });

  it('CIRCLE-6: accept checks every path against the root again and writes nothing if one now leaves it', async () => {
    const overlay = new FileOverlay({ root });
    await overlay.write(A, 'a.txt', 'changed');
    await overlay.write(A, 'later/x.txt', 'x');
    // The base changes under the overlay: `later` becomes a link out of the root.
    await symlink('..', join(root, 'later'));
    await expect(overlay.accept(A)).rejects.toMatchObject({ code: 'path_outside_root' });
    expect(await readFile(join(root, 'a.txt'), 'utf8')).toBe('base a');
  });

  it('CIRCLE-10, LOOM-1: the gates bind the overlay at construction and report each turn\'s changes', async () => {
    const overlay = new FileOverlay({ root });
    const context: GateContext = { entityId: 'g', toolCallId: 't', signal: new AbortController().signal, turnId: 'g1' };
    const write = overlayFileGate('write', overlay);
    expect(write.definition.parameters).not.toHaveProperty('properties.root');
    await write.execute({ path: 'w.txt', content: 'w' }, context);
    await expect(overlayFileGate('read', overlay).execute({ path: 'w.txt' }, context)).resolves.toBe('w');
    await overlayFileGate('delete', overlay).execute({ path: 'a.txt' }, context);
    expect(write.filesChanged?.('g1')).toEqual(['a.txt', 'w.txt']);
    expect(write.filesChanged?.('other')).toEqual([]);
  });
});

/** One step of a generated session: a write, a deletion or a read, on a small set of paths. */
type Step = { op: 'write'; path: string; content: string } | { op: 'delete'; path: string } | { op: 'read'; path: string };
const paths = fc.constantFrom('a.txt', 'sub/b.txt', 'n.txt', 'sub/n.txt', 'deep/x/y.txt');
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant('write' as const), path: paths, content: fc.string({ maxLength: 6 }) }),
  fc.record({ op: fc.constant('delete' as const), path: paths }),
  fc.record({ op: fc.constant('read' as const), path: paths }),
);

/** Runs the steps; failures (a missing file) are part of the view, so they are recorded, not thrown. */
async function play(overlay: FileOverlay, steps: Step[]): Promise<void> {
  for (const s of steps) {
    if (s.op === 'write') await overlay.write(A, s.path, s.content);
    else if (s.op === 'delete') await overlay.delete(A, s.path).catch(() => undefined);
    else await overlay.read(A, s.path).catch(() => undefined);
  }
}

async function view(overlay: FileOverlay, caller: typeof A): Promise<Record<string, string | null>> {
  const seen: Record<string, string | null> = {};
  for (const path of ['a.txt', 'sub/b.txt', 'n.txt', 'sub/n.txt', 'deep/x/y.txt']) seen[path] = await overlay.read(caller, path).catch(() => null);
  return seen;
}

describe('overlay laws over generated write/read/delete sequences', () => {
  it('accept then read equals the overlay\'s view before accepting', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 12 }), async (steps) => {
        const base = join(dir, `law-${Math.random().toString(36).slice(2)}`);
        await mkdir(join(base, 'sub'), { recursive: true });
        await writeFile(join(base, 'a.txt'), 'A');
        await writeFile(join(base, 'sub', 'b.txt'), 'B');
        const overlay = new FileOverlay({ root: base });
        await play(overlay, steps);
        const before = await view(overlay, A);
        await overlay.accept(A);
        expect(await view(new FileOverlay({ root: base }), B)).toEqual(before);
        expect(await view(overlay, A)).toEqual(before);
      }),
      { numRuns: 60 },
    );
  });

  it('reject leaves the base exactly as it was', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 12 }), async (steps) => {
        const before = await tree(root);
        const overlay = new FileOverlay({ root });
        await play(overlay, steps);
        overlay.reject(A);
        expect(await tree(root)).toEqual(before);
        expect(await view(overlay, A)).toEqual(await view(new FileOverlay({ root }), B));
      }),
      { numRuns: 60 },
    );
  });
});

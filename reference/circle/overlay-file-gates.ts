import { defineGate, type Gate, type GateContext } from './gate.ts';
import type { FileOverlay, OverlayCaller } from './overlay.ts';

/** The names of the file gates that can work through an overlay. */
export type OverlayGateName = 'read' | 'list_dir' | 'write' | 'delete';

/**
 * A file gate that works through a copy-on-write {@link FileOverlay} (feature `overlay-file-gates`).
 * The overlay, and with it the root, is bound when the circle is built, never named by the entity
 * (CIRCLE-10); paths that leave the root are refused as with the plain gates (CIRCLE-6). Each entity
 * reads and writes its own overlay, keyed by the entity id the circle passes with every call, so a
 * child or a fork never shares one by accident (COMP-4, LOOM-4). The gate reports each turn's changes
 * so the loom records them with the turn (LOOM-1).
 */
export function overlayFileGate(name: OverlayGateName, overlay: FileOverlay): Gate {
  const changes = { filesChanged: (turnId: string) => overlay.changedIn(turnId) };
  switch (name) {
    case 'read':
      return defineGate(
        {
          name,
          description: 'Read a text file under the circle root, as this entity sees it (its own changes first). Paths are relative to the root.',
          parameters: { type: 'object', properties: { path: { type: 'string', description: 'The file to read.' } }, required: ['path'] },
        },
        ({ path }, context) => overlay.read(caller(context), path),
        changes,
      );
    case 'list_dir':
      return defineGate(
        {
          name,
          description: 'List the names in a directory under the circle root, as this entity sees it.',
          parameters: { type: 'object', properties: { path: { type: 'string', description: 'The directory; the root when empty.' } } },
        },
        ({ path }, context) => overlay.list(caller(context), path ?? '.'),
        changes,
      );
    case 'write':
      return defineGate(
        {
          name,
          description: 'Write a text file under the circle root. The change is kept apart from the shared files until the host accepts it.',
          parameters: {
            type: 'object',
            properties: { path: { type: 'string', description: 'The file to write.' }, content: { type: 'string', description: 'Its new text.' } },
            required: ['path', 'content'],
          },
        },
        async ({ path, content }, context) => {
          await overlay.write(caller(context), path, content);
          return { written: path };
        },
        changes,
      );
    case 'delete':
      return defineGate(
        {
          name,
          description: 'Delete a file under the circle root. The deletion is kept apart from the shared files until the host accepts it.',
          parameters: { type: 'object', properties: { path: { type: 'string', description: 'The file to delete.' } }, required: ['path'] },
        },
        async ({ path }, context) => {
          await overlay.delete(caller(context), path);
          return { deleted: path };
        },
        changes,
      );
  }
}

function caller(context: GateContext): OverlayCaller {
  return {
    entityId: context.entityId,
    turnId: context.turnId,
    ...(context.previousTurnId === undefined ? {} : { previousTurnId: context.previousTurnId }),
  };
}

/** The gates of a circle that report changed files: what {@link filesChangedIn} asks, found once per cast. */
export function fileChangingGates(gates: ReadonlyMap<string, Gate>): Gate[] {
  const found: Gate[] = [];
  for (const gate of gates.values()) if (gate.filesChanged) found.push(gate);
  return found;
}

/**
 * The paths one turn changed through any of `gates` (see {@link fileChangingGates}), sorted, each once
 * (for the loom, LOOM-1). Undefined when none changed anything, without allocating: this runs every
 * turn, and most circles have no such gate.
 */
export function filesChangedIn(gates: readonly Gate[], turnId: string): string[] | undefined {
  let paths: Set<string> | undefined;
  for (const gate of gates) {
    for (const path of gate.filesChanged!(turnId)) (paths ??= new Set()).add(path);
  }
  return paths ? [...paths].sort() : undefined;
}

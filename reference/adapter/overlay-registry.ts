import { resolve } from 'node:path';
import type { OverlayDecision, Turn } from '../../schemas/index.ts';
import { FileOverlay, type FileOverlayOptions } from '../circle/overlay.ts';
import type { Loom } from '../loom/loom.ts';

/**
 * The adapter's file overlays, one per gate root (feature `overlay-file-gates`). Gates built for the
 * same root get the same {@link FileOverlay}, so an entity's `write` is what its `read` sees; each
 * overlay keeps one layer per entity. The host's accept or reject reaches every root the entity used.
 */
export class OverlayRegistry {
  private readonly byRoot = new Map<string, FileOverlay>();

  constructor(
    private readonly pathTo: (turnId: string) => readonly Turn[],
    /** How an overlay is made: the reference's own by default; another store (a database, say) may stand in. */
    private readonly make: (options: FileOverlayOptions) => FileOverlay = (options) => new FileOverlay(options),
  ) {}

  /** The overlay over `root`, made when the first gate for that root is built (CIRCLE-10). */
  forRoot(root: string): FileOverlay {
    const key = resolve(root);
    let overlay = this.byRoot.get(key);
    if (!overlay) {
      overlay = this.make({ root: key, pathTo: this.pathTo });
      this.byRoot.set(key, overlay);
    }
    return overlay;
  }

  /** Applies the host's decision to the entity's layer over every root; `lastTurnId` places a layer never used yet. */
  async decide(entityId: string, decision: OverlayDecision, lastTurnId: string | undefined): Promise<void> {
    const caller = { entityId, ...(lastTurnId === undefined ? {} : { previousTurnId: lastTurnId }) };
    for (const overlay of this.byRoot.values()) {
      if (decision === 'accept') await overlay.accept(caller);
      else overlay.reject(caller);
    }
  }
}

/**
 * An entity's own stretch of its thread up to `turnId`: from the nearest call turn above it down to
 * it. Walked turn by turn, because a child's call turn hangs from its parent's turn in progress, which
 * is not in the loom yet (COMP-5), so the full path cannot be asked for.
 */
export function ownStretch(loom: Loom, turnId: string): Turn[] {
  const stretch: Turn[] = [];
  for (let id: string | null = turnId; id !== null && loom.has(id); ) {
    const turn = loom.get(id);
    stretch.unshift(turn);
    if (turn.role === 'call') break;
    id = turn.parent_id;
  }
  return stretch;
}

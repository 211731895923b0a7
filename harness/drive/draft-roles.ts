/**
 * A loom in the judged draft's words (§6.1 `role`), read in the kit's. The drafts name the kinds of turn
 * differently: 0.1.0 writes `crystal`, `call` and `fold`; 0.2.0 and 0.3.1 write `turn` and `identity`
 * (and, as `role` is a plain string there and no rule fixes its value, may keep the older words). Which
 * words each draft accepts is the registry's `turn_roles` (spec/drafts.yaml).
 *
 * The drive reads every loom and thread through {@link withDraftRoles}: a role word of the judged draft
 * becomes the kit's working word for its kind (`turn` reads as `crystal`, `identity` as `call`), so the
 * drive, the case file's paths (`loom.turns[role=crystal]`, `loom.entity(x)`, `loom.cast(x)`,
 * `loom.spawned(x)`), the invariants, the properties and the turn schema each judge one vocabulary. A
 * word the judged draft does not have is left as written, so the turn schema still reports it.
 */
import type { Adapter } from '../../schemas/adapter.ts';
import { withLoomView } from './loom-view.ts';
import type { Turn } from '../../schemas/records.ts';
import { turnKindAt } from '../../spec/drafts.ts';

/** `turn` with its role in the kit's working word when `draft` names that kind so; otherwise as it is. */
export function turnInKitWords(turn: Turn, draft: string | undefined): Turn {
  const kind = turnKindAt(turn.role, draft);
  return kind === undefined || kind === turn.role ? turn : { ...turn, role: kind };
}

/** Every turn of `turns` through {@link turnInKitWords}. */
export function turnsInKitWords(turns: readonly Turn[], draft: string | undefined): Turn[] {
  return turns.map((turn) => turnInKitWords(turn, draft));
}

/**
 * The adapter with `loom()` and `thread()` answering in the kit's role words for `draft`. Every other
 * member is the adapter's own, its methods called on the adapter itself (a class's private fields stay
 * reachable).
 */
export function withDraftRoles(adapter: Adapter, draft: string | undefined): Adapter {
  return withLoomView(adapter, (turns) => turnsInKitWords(turns, draft));
}

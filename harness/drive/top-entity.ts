import type { Turn } from '../../schemas/records.ts';

/**
 * The entity an action ran, from the turns it added: the one whose subtree does not hang from another
 * entity's turn added in the same action (its children's do). Undefined when it added no turns.
 */
export function topEntity(appended: readonly Turn[], all: readonly Turn[]): string | undefined {
  const byId = new Map(all.map((t) => [t.id, t]));
  const fresh = new Set(appended.map((t) => t.id));
  for (const t of appended) {
    if (t.entity_id === null) continue;
    let at = t.parent_id === null ? undefined : byId.get(t.parent_id);
    while (at && (at.role === 'call' || at.entity_id === t.entity_id)) at = at.parent_id === null ? undefined : byId.get(at.parent_id);
    if (!at || !fresh.has(at.id)) return t.entity_id;
  }
  return undefined;
}

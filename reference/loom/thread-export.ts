/**
 * Serializes a thread for export (LOOM-10), with an optional redaction pass for secrets.
 */
import type { LoomLine, Turn } from '../../schemas/records.ts';
import type { Redactor } from '../production/redaction.ts';

/** A copy of `value` with `redact` applied to every string value (never to keys), at any depth. */
export function redactStrings(value: unknown, redact: Redactor): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactStrings(item, redact));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactStrings(item, redact)]));
  }
  return value;
}

/**
 * A thread as JSONL (LOOM-10): one `{"kind":"turn","turn":...}` line per turn, root first, each turn
 * carrying its current reward. The output is itself a valid loom file, so an exported thread can be
 * loaded, replayed or forked like any other. Redaction touches string values only, so every line stays
 * valid JSON whatever the redactor does, and spares `id` and `parent_id`, so the links survive.
 */
export function threadToJsonl(thread: readonly Turn[], redact?: Redactor): string {
  return thread
    .map((turn) => {
      // Ids stay as stored so the exported lines still link into a tree.
      const exported = redact ? { ...(redactStrings(turn, redact) as Turn), id: turn.id, parent_id: turn.parent_id } : turn;
      const line: LoomLine = { kind: 'turn', turn: exported };
      return `${JSON.stringify(line)}\n`;
    })
    .join('');
}

import type { Turn, TruncationCause } from '../../schemas/index.ts';
import { readRecords } from '../drafts/gate-call-records.ts';

/**
 * LOOP-4: a short, deterministic account of what a cut-off cast got done, so whoever reads the outcome
 * knows how far the entity came: how many turns, which gates ran (and how many failed), and what the
 * entity last said.
 */
export function truncationSummary(turns: readonly Turn[], cause: TruncationCause): string {
  const counts = new Map<string, { calls: number; failed: number }>();
  for (const turn of turns) {
    for (const call of readRecords(turn.gate_calls)) {
      const entry = counts.get(call.gate) ?? { calls: 0, failed: 0 };
      entry.calls += 1;
      if (!call.ok) entry.failed += 1;
      counts.set(call.gate, entry);
    }
  }
  const gates = [...counts]
    .map(([gate, { calls, failed }]) => `${gate} x${calls}${failed ? ` (${failed} failed)` : ''}`)
    .join(', ');
  const last = [...turns].reverse().find((turn) => turn.utterance.trim() !== '')?.utterance.trim();
  return [
    `Cut off by the ${cause} ward after ${turns.length} turn${turns.length === 1 ? '' : 's'}.`,
    gates ? `Gates called: ${gates}.` : 'No gate was called.',
    last ? `Last utterance: ${last.length > 200 ? `${last.slice(0, 200)}...` : last}` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

import type { CrystalResponse, Turn, Usage } from '../../schemas/index.ts';
import type { Crystal } from '../crystal/contract.ts';
import { readRecords } from '../drafts/gate-call-records.ts';

/**
 * Folding settings (§6.8, PROD-4). The reference folds when the last query's reported usage (prompt
 * plus completion: a lower bound on the next prompt) passes `threshold` of the crystal's advertised
 * window; the default threshold is 0.8, as the spec suggests. Only crystals that advertise a window
 * can trigger a fold.
 */
export interface FoldingOptions {
  /** Fraction of the context window that triggers a fold. Default 0.8. */
  threshold?: number;
  /** Turns kept verbatim after a fold. Default 2. */
  keepRecentTurns?: number;
  /**
   * A second trigger (feature `folding-turn-trigger`): fold once more than this many crystal turns are
   * shown unfolded, whatever their size. PROD-4 leaves the threshold to the implementation, provided it
   * is documented; this one is documented here.
   */
  afterTurns?: number;
  /** Writes the summary of the folded turns; a deterministic digest by default (`digestTurns` below). */
  summarize?: (turns: readonly Turn[]) => string | Promise<string>;
}

/** The threshold the reference documents for PROD-4. */
export const DEFAULT_FOLD_THRESHOLD = 0.8;
export const DEFAULT_KEEP_RECENT_TURNS = 2;

/** PROD-4: whether the context has grown past the threshold of the crystal's window. */
export function shouldFold(usage: Usage, contextWindow: number | undefined, threshold = DEFAULT_FOLD_THRESHOLD): boolean {
  return contextWindow !== undefined && contextWindow > 0 && usage.prompt + usage.completion > threshold * contextWindow;
}

/**
 * The marker every fold summary starts with, so the entity can tell summary from record (§6.8 fidelity).
 * `[Folded: turns 1-18]`.
 */
export function foldMarker(fromSequence: number, toSequence: number): string {
  return `[Folded: turns ${fromSequence}-${toSequence}]`;
}

/** The default summarizer: one line per turn, what was said and which gates ran with what outcome. */
export function digestTurns(turns: readonly Turn[]): string {
  return turns
    .filter((turn) => turn.role === 'crystal')
    .map((turn) => {
      const said = turn.utterance.replace(/\s+/g, ' ').trim();
      const gates = readRecords(turn.gate_calls).map((call) => `${call.gate} ${call.ok ? 'ok' : `failed (${call.error?.name ?? 'error'})`}`).join(', ');
      return `turn ${turn.sequence}: ${said.length > 120 ? `${said.slice(0, 120)}...` : said || '(no text)'}${gates ? ` | gates: ${gates}` : ''}`;
    })
    .join('\n');
}

/** A summarizer that asks a crystal to condense the folded turns, for richer summaries than the digest. */
export function crystalSummarizer(crystal: Crystal): (turns: readonly Turn[]) => Promise<string> {
  return async (turns) => {
    const response: CrystalResponse = await crystal.query({
      messages: [
        { role: 'system', content: 'Summarize the work recorded below for the agent that did it. Keep facts, results and open problems.' },
        { role: 'user', content: digestTurns(turns) },
      ],
    });
    return response.content ?? digestTurns(turns);
  };
}

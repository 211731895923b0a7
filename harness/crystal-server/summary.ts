/** One-line accounts of exchanges, for the debugging command and for failure messages. */
import type { Exchange, WireProblem } from './types.ts';

/** E.g. `#3 +1520ms openai parent stream → 429 (provider step: status 429, retry-after 2)`. */
export function summarizeExchange(exchange: Exchange): string {
  const parts = [`#${exchange.seq}`, `+${Math.round(exchange.at_ms)}ms`, exchange.format, exchange.crystal ?? '?'];
  if (exchange.stream) parts.push('stream');
  if (exchange.auth !== 'ok') parts.push(`(key ${exchange.auth})`);
  let line = `${parts.join(' ')} → ${exchange.status ?? 'no answer'}`;
  const step = exchange.provider;
  if (step) {
    const bits = Object.entries(step).map(([k, v]) => `${k} ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`);
    line += ` (provider step: ${bits.join(', ')})`;
  } else if (exchange.reply && !exchange.reply.ok) {
    line += ` (failed reply: ${exchange.reply.error.message})`;
  }
  if (exchange.error) line += ` [${exchange.error}]`;
  return line;
}

/** The problems of an exchange, one per line, errors first. */
export function formatProblems(problems: readonly WireProblem[]): string {
  return [...problems]
    .sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1))
    .map((p) => `  ${p.severity} ${p.check}${p.at ? ` at ${p.at}` : ''}: ${p.message}`)
    .join('\n');
}

/** Every error-level problem of a run's exchanges, with the exchange it came from. */
export function wireErrors(exchanges: readonly Exchange[]): Array<{ seq: number; crystal?: string; problem: WireProblem }> {
  return exchanges.flatMap((e) =>
    e.problems.filter((p) => p.severity === 'error').map((problem) => ({ seq: e.seq, ...(e.crystal !== undefined && { crystal: e.crystal }), problem })),
  );
}

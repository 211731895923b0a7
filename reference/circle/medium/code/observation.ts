import type { GateCallRecord } from '../../../../schemas/index.ts';
import type { Evaluation } from './types.ts';

/**
 * The one composite observation of a code turn (CIRCLE-4, CIRCLE-5, CIRCLE-7, LOOP-1): every gate
 * result in call order (failures included, never swallowed), then console output, then how the
 * code ended — done, an error, or its completion value — and a note when the sandbox was reset.
 */
export function renderEvaluation(e: Evaluation): string {
  const sections: string[] = [];
  if (e.gate_calls.length > 0) sections.push(['[gate calls]', ...e.gate_calls.map(renderRecord)].join('\n'));
  if (e.output !== '') sections.push(`[output]\n${e.output}`);
  if (e.done) sections.push(`[done] ${json(e.done.answer)}`);
  else if (e.error) sections.push(`[error] ${e.error.name}: ${e.error.message}`);
  else if (e.value !== undefined) sections.push(`[value] ${json(e.value)}`);
  if (e.reset) sections.push('[sandbox reset] earlier variables and functions are gone; injected globals are back.');
  return sections.length > 0 ? sections.join('\n') : '[no output] the code ran and produced no value';
}

function renderRecord(record: GateCallRecord, index: number): string {
  const call = `${index + 1}. ${record.gate}(${Array.isArray(record.arguments) ? record.arguments.map(json).join(', ') : ''})`;
  if (record.ok) return `${call} -> ${record.result === undefined ? 'undefined' : json(record.result)}`;
  const error = record.error;
  return `${call} failed: ${error ? `${error.name}: ${error.message}` : 'unknown error'}`;
}

function json(value: unknown): string {
  if (value === undefined) return 'undefined';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

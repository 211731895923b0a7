/**
 * Which cases script a wait: a crystal reply held back by `delay_ms`, a `delay` test gate (or one slowed by `delay_ms`) in the
 * circle, or an event consumer that stalls or acknowledges slowly (`setup.consumer`). Such a case
 * spends most of its time waiting on the harness's timers, not computing, so a run may let it overlap
 * other cases (harness/run/run.ts, `--jobs`) without taking processor time from them. Read from the case
 * itself, never from how long it took on some machine. (Code-medium cases are not among them: their
 * sandbox computes, in a thread of its own.)
 */
import { scriptSteps, type LoadedCase } from '../case-file/index.ts';
import { testGateKind } from './test-gates.ts';

export function scriptsAWait(c: LoadedCase): boolean {
  const consumer = c.setup.consumer;
  if (consumer && ('stall' in consumer || consumer.delay_ms > 0)) return true;
  const gates = c.setup.circle?.gates ?? [];
  if (gates.some((gate) => testGateKind(typeof gate === 'string' ? { name: gate } : gate) === 'delay' || (typeof gate === 'object' && (gate.delay_ms ?? 0) > 0))) return true;
  return scriptSteps(c).some((step) => (step.delay_ms ?? 0) > 0);
}

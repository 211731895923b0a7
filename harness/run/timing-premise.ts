/**
 * Timing premises: what a case's real waits must have brought about before its expectations mean anything.
 *
 * A few cases are about a real deadline, say a timeout ward that must fire while a scripted reply is
 * held back. Their expectations only judge the implementation if the run got as far as the case meant
 * it to: the held query was asked before the ward fired. On an idle machine the turns before the hold
 * take milliseconds; on a busy one they may take longer than the ward. So such a case declares that
 * premise (`premise:`, expectations in the `expect` vocabulary, usually a request count), and when a run
 * misses it the harness runs the case again with every scripted time multiplied by
 * {@link PREMISE_TIME_FACTOR}: the wards' `timeout_ms`, the crystals' `delay_ms` and the case's own time
 * limit. The ward can then start small (the suite stays fast), and a slow machine buys itself room
 * instead of getting a verdict about its speed. After {@link PREMISE_ATTEMPTS} runs that all missed the
 * premise the case is `errored`, not failed: the run never reached what the case is about, which is no
 * evidence either way about the rules.
 * A run that went off script before the premise (a fault of the drive) is judged as it went.
 */
import type { CaseCrystal, EntityLane, LoadedCase, ScriptStep } from '../case-file/index.ts';
import { checkExpectations } from '../judge/index.ts';
import type { DriveResult } from '../drive/index.ts';

/** Runs of a case whose premise keeps failing, the first included: wards of 1×, 4× and 16× the scripted value. */
export const PREMISE_ATTEMPTS = 3;
/** How much every scripted time grows from one run of a case to the next. */
export const PREMISE_TIME_FACTOR = 4;

/**
 * The case with every real time it scripts multiplied by `factor`: the circle's ward `timeout_ms`, the case's own `timeout_ms` (or `defaultTimeoutMs` when it has none), each
 * crystal step's `delay_ms` and each slow test gate's `delay_ms`. Times keep their proportions, so a hold that outlasted the ward still does.
 */
export function withTimesScaled(c: LoadedCase, factor: number, defaultTimeoutMs: number): LoadedCase {
  const wards = c.setup.circle?.wards;
  const circle = c.setup.circle && {
    ...c.setup.circle,
    gates: c.setup.circle.gates.map((g) => (typeof g === 'object' && g.delay_ms !== undefined ? { ...g, delay_ms: g.delay_ms * factor } : g)),
    ...(wards && { wards: { ...wards, ...(wards.timeout_ms !== undefined && { timeout_ms: wards.timeout_ms * factor }) } }),
  };
  const steps = (list: ScriptStep[]): ScriptStep[] => list.map((step) => (step.delay_ms === undefined ? step : { ...step, delay_ms: step.delay_ms * factor }));
  const crystal = (declared: CaseCrystal): CaseCrystal => ({
    ...declared,
    ...(declared.script && { script: steps(declared.script) }),
    ...(declared.by_intent && { by_intent: Object.fromEntries(Object.entries(declared.by_intent).map(([intent, list]) => [intent, steps(list)])) }),
    // The lanes of a shared crystal hold steps too.
    ...(declared.by_entity && { by_entity: Object.fromEntries(Object.entries(declared.by_entity).map(([lane, l]) => [lane, crystal(l) as EntityLane])) }),
  });
  return {
    ...c,
    timeout_ms: (c.timeout_ms ?? defaultTimeoutMs) * factor,
    setup: { ...c.setup, ...(circle && { circle }) },
    ...(c.crystals && { crystals: Object.fromEntries(Object.entries(c.crystals).map(([name, declared]) => [name, crystal(declared)])) }),
  };
}

/**
 * What of its timing premise a run of the case missed, in words; undefined when it has none or met it.
 * A run that already went off script (a query the crystals cannot answer, say) is judged as it went:
 * the premise is about time, and that run was stopped by something else.
 */
export function missedPremise(c: LoadedCase, drive: DriveResult): string | undefined {
  if (!c.premise || drive.faults.length > 0) return undefined;
  const missed = checkExpectations(c.premise, drive).find((e) => !e.ok);
  if (!missed) return undefined;
  return `${missed.path} ${missed.matcher} ${JSON.stringify(missed.expected)}, found ${missed.actual === undefined ? 'nothing' : JSON.stringify(missed.actual)}`;
}

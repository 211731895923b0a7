/**
 * The code medium's evaluation deadline (MEDIUM-4's medium ward, `eval_timeout_ms`) belongs to the
 * implementation: the kit cannot stretch it for a busy machine the way it stretches its own limits
 * (harness/values/machine-load.ts). Left at the implementation's default (the reference's is 2 s), it cut
 * the few-millisecond programs of cases about something else (state across turns, record order) when the
 * machine was loaded, and those cases failed a working implementation (issue 31, item 5).
 *
 * So a code-circle case that sets no deadline of its own (it is not about the deadline: the cases that
 * are, set one) gets one here, when the implementation declares the ward (`describe().wards`):
 * {@link ROOMY_EVAL_DEADLINE_MS} stretched by the machine's load, like the case's own limit. An
 * implementation that does not declare the ward still runs the case with its own deadline, never skipped:
 * the kit has no portable way to see that a deadline fired, so for it the case stays as it was.
 *
 * Why this never turns a real failure into "incomplete" on an idle machine: there the deadline is
 * {@link ROOMY_EVAL_DEADLINE_MS}, the reference's own default and a fraction of the case's 10 s limit, so
 * an evaluation that hangs is still cut by the deadline, comes back as an observation and is judged as
 * before, rather than running into the case's limit (which would make the case errored). Under load the
 * deadline and the case's limit stretch by the same factor and keep that order.
 */
import type { Description } from '../../schemas/adapter.ts';
import type { LoadedCase } from '../case-file/index.ts';
import { loadFactor, stretchedForLoad } from '../values/index.ts';

/**
 * The evaluation deadline, on an idle machine, of a case that is not about it: the reference's default,
 * hundreds of times what any such program needs idle (they take milliseconds).
 */
export const ROOMY_EVAL_DEADLINE_MS = 2_000;

/**
 * `c` with an evaluation deadline of {@link ROOMY_EVAL_DEADLINE_MS} stretched by `factor` (by default the
 * machine's load now) when its circle is a code circle, it sets no deadline itself and the implementation
 * declares the `eval_timeout_ms` ward; otherwise `c` unchanged.
 */
export function withRoomyEvalDeadline(c: LoadedCase, description: Description, factor: number = loadFactor()): LoadedCase {
  const circle = c.setup.circle;
  if (circle === undefined || circle.wards?.eval_timeout_ms !== undefined) return c;
  // Only on a code circle (its code children inherit it, WARD-1): an implementation may refuse a code ward
  // on a conversation circle, and that refusal would then skip a case that ran before.
  if (circle.medium !== 'code' || !(description.wards ?? []).includes('eval_timeout_ms')) return c;
  return { ...c, setup: { ...c.setup, circle: { ...circle, wards: { ...circle.wards, eval_timeout_ms: stretchedForLoad(ROOMY_EVAL_DEADLINE_MS, factor) } } } };
}

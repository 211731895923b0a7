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
 * An implementation that does not declare the ward may declare its default deadline instead
 * (`describe().sandbox.eval_timeout_ms`). Then a code case that failed on a loaded machine is looked at
 * again ({@link ownDeadlineMayHaveCut}): when one of its programs ran, by the kit's clock, at least that
 * long, the deadline may have cut it, and the case is incomplete (errored, `own_eval_deadline`), not failed.
 * The kit's clock can only overstate a program's time (it counts from before the implementation has the
 * code to after it has answered), so a case whose programs all ran shorter than the deadline was not cut
 * and keeps its failure; on an idle machine nothing changes.
 *
 * Why this never turns a real failure into "incomplete" on an idle machine: there the deadline is
 * {@link ROOMY_EVAL_DEADLINE_MS}, the reference's own default and a fraction of the case's 10 s limit, so
 * an evaluation that hangs is still cut by the deadline, comes back as an observation and is judged as
 * before, rather than running into the case's limit (which would make the case errored). Under load the
 * deadline and the case's limit stretch by the same factor and keep that order.
 */
import type { Description } from '../../schemas/adapter.ts';
import type { LoadedCase } from '../case-file/index.ts';
import type { DriveResult } from '../drive/index.ts';
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

/** Why a failed code case is incomplete instead: its programs may have been cut by the implementation's own deadline on a loaded machine. */
export interface OwnEvalDeadline {
  /** The implementation's default evaluation deadline, as it declares it (`describe().sandbox.eval_timeout_ms`). */
  deadline_ms: number;
  /** The longest evaluation by the kit's clock: from a code reply handed back to the next query of its lane, or to its action's end. */
  longest_eval_ms: number;
  /** How much slower than idle the machine ran (1-minute load average per core), at least 1. */
  load_factor: number;
}

/**
 * For a failed case `c` (as run), whether the implementation's own evaluation deadline may have cut one of its
 * programs: the implementation declares its default deadline, the case sets none anywhere (neither it nor
 * the kit: no `eval_timeout_ms` in it, so it is not about the deadline), the machine was loaded (`factor` > 1),
 * and some program ran, by the kit's clock, at least the deadline. Otherwise undefined: the failure stands.
 */
export function ownDeadlineMayHaveCut(c: LoadedCase, description: Description, drive: Pick<DriveResult, 'queries' | 'actions'>, factor: number): OwnEvalDeadline | undefined {
  const deadline = description.sandbox?.eval_timeout_ms;
  const tool = description.sandbox?.tool;
  if (deadline === undefined || tool === undefined || factor <= 1) return undefined;
  if (JSON.stringify({ setup: c.setup, crystals: c.crystals, act: c.act }).includes('"eval_timeout_ms"')) return undefined;
  const longest = longestEvaluationMs(drive, tool);
  if (longest === undefined || longest < deadline) return undefined;
  return { deadline_ms: deadline, longest_eval_ms: Math.round(longest), load_factor: Math.round(factor * 10) / 10 };
}

/**
 * The longest time, by the kit's clock, from a reply carrying code (a call of the sandbox's tool) to what
 * came next from the same entity: its lane's next query, or the end of the action it ran in. Undefined
 * when no code was served.
 */
export function longestEvaluationMs(drive: Pick<DriveResult, 'queries' | 'actions'>, tool: string): number | undefined {
  const endOf = new Map<number, number>();
  for (const trace of drive.actions.values()) if (trace.ended_ms !== undefined) endOf.set(trace.index, trace.ended_ms);
  let longest: number | undefined;
  for (const [i, q] of drive.queries.entries()) {
    if (q.answered_ms === undefined || !q.reply.ok || !(q.reply.response.tool_calls ?? []).some((call) => call.gate === tool)) continue;
    const answered = q.answered_ms;
    const next = drive.queries.slice(i + 1).find((later) => later.lane === q.lane && later.asked_ms !== undefined && later.asked_ms >= answered);
    const end = next?.asked_ms ?? endOf.get(q.action);
    if (end !== undefined) longest = Math.max(longest ?? 0, end - answered);
  }
  return longest;
}

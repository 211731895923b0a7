/**
 * Noticing an adapter that has stopped answering. A case errors "unanswered" when it ran out of its time
 * limit, or when the implementation let a request (the handshake included) go unanswered past its
 * silence bound. Once several cases in a row errored unanswered for the same cause, the adapter is
 * clearly broken and waiting the full bound for every remaining case would only make the run take
 * minutes: the run stops waiting and reports the rest errored with that cause (harness/run/run.ts).
 *
 * Only unanswered errors count: an implementation that answers with an error, crashes or breaks the
 * protocol is answering, quickly, and each of its cases keeps its own verdict.
 */
import { normaliseText } from '../values/index.ts';

/** Cases in a row left unanswered for the same cause before the run stops waiting on the adapter. */
export const GIVE_UP_AFTER = 3;

/** What a run's case result carries that matters here (a `CaseResult` does). */
export interface CaseOutcome {
  id: string;
  status: string;
  reason?: string;
  timed_out?: boolean;
}

/**
 * The words in which the connection reports silence (schemas/protocol/connection.ts) and the stdio
 * adapter a handshake that went unanswered (jsonrpc-adapter.ts).
 */
const NO_ANSWER = [/ sent nothing for \d+ ms while /, / did not answer the handshake \(describe\) within \d+ ms/];

/** Whether a case errored for want of an answer. */
export function unanswered(result: CaseOutcome): boolean {
  if (result.status !== 'errored') return false;
  return result.timed_out === true || NO_ANSWER.some((words) => words.test(result.reason ?? ''));
}

/** Follows the cases a run executes, in order, and says when to stop waiting on the adapter. */
export class UnansweredStreak {
  private cause: string | undefined;
  private readonly cases: string[] = [];

  constructor(private readonly limit = GIVE_UP_AFTER) {}

  /**
   * Records a case the run executed (not one it skipped without running). Returns, once the streak is
   * long enough, the reason to give every remaining case; otherwise undefined.
   */
  record(result: CaseOutcome): string | undefined {
    if (this.limit <= 0) return undefined;
    if (!unanswered(result)) {
      this.cause = undefined;
      this.cases.length = 0;
      return undefined;
    }
    const said = (result.reason ?? '').split('\n')[0]!;
    const cause = normaliseText(said);
    if (cause !== this.cause) {
      this.cause = cause;
      this.cases.length = 0;
    }
    this.cases.push(result.id);
    if (this.cases.length < this.limit) return undefined;
    return `the adapter left ${this.cases.length} cases in a row unanswered (${this.cases.join(', ')}), so the run stopped waiting on it; the last said: ${said}`;
  }
}

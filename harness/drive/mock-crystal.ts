/**
 * The scripted mock crystals of one case. The implementation under test queries them through
 * `host.queryCrystal`; every request is recorded as sent, and every reply is what the case scripted.
 * Rules touched: CRYSTAL-2 (declared context window), CRYSTAL-3/4 (raw steps script invalid responses).
 */
import type { KitLimitReached } from './kit-limits.ts';
import type { CrystalReply, Description } from '../../schemas/adapter.ts';
import type { CrystalRequest, CrystalResponse, ToolCall } from '../../schemas/records.ts';
import { validate, formatProblems, hasSchema } from '../../schemas/loader.ts';
import type { CaseCrystal, ScriptStep } from '../case-file/index.ts';
import { jsonCopy } from '../values/index.ts';
import { translateBuiltinCall, translateCode } from './builtin-arguments.ts';
import type { OutcomeWatch } from './outcome-watch.ts';
import type { ProviderStep, ServedReply } from '../crystal-server/index.ts';
import { EntityLanes, firstUserText, keyedText } from './entity-lanes.ts';
import { stretchedForLoad } from '../values/index.ts';

export { firstUserText };

export const DEFAULT_USAGE = { prompt: 10, completion: 5, cached: 0 } as const;
/** Where requests to a shared crystal that carry no known intent are filed (`requests._unplaced`): INTENT-2 broken. */
export const UNPLACED_LANE = '_unplaced';
/** Upper bound on a scripted delay, so no case can hang on one (the case schema has the same bound). */
export const MAX_STEP_DELAY_MS = 20_000;
/**
 * How long a step that awaits concurrent queries waits for them: long enough for a busy machine to start
 * sibling queries that really run at once, short enough that an implementation running them one after
 * another fails in seconds.
 */
export const AWAIT_CONCURRENT_MS = 5000;
/** The reply to a query made after its cast's outcome was decided: plain text, no usage, no script step taken. */
export const AFTER_OUTCOME_REPLY = { content: 'Summary: the work so far is recorded in the loom.', usage: { prompt: 0, completion: 0, cached: 0 } } as const;

/** One recorded query: which crystal, what was sent, what came back, during which action. */
export interface QueryRecord {
  crystal: string;
  /** Whose script answered it: the crystal's name, or the lane of a shared crystal (drive/entity-lanes.ts). */
  lane: string;
  request: CrystalRequest;
  reply: CrystalReply;
  action: number;
  /** Set when the query came after its cast's outcome was decided (a summary request, LOOP-4): why. */
  after_outcome?: string;
  /** How the reply travels over a wire transport (the step's `provider`), when the step says. */
  provider?: ProviderStep;
  /** Set when the step `throws`: `host.queryCrystal` rejects with this message (the reply records it as a failure). */
  thrown?: string;
  /** Set when the step was served `raw`, unchecked: it may be an invalid reply, which need not make a turn. */
  raw?: true;
  /** When the query arrived and when its reply was handed back, by the kit's clock (performance.now(), ms). */
  asked_ms?: number;
  answered_ms?: number;
}

/** Problems that make a case fail (or error) however the implementation reacts to the reply. */
export interface CrystalFault {
  /** `skip`: the implementation offers no way to express a scripted step (a built-in option it does not take). */
  kind: 'fail' | 'error' | 'skip';
  message: string;
  /** The rules a `fail` breaks, when it is not the case's own (a request no entity's intent places: INTENT-2). */
  rules?: string[];
  /** A `fail` of a sentence that has no rule id in any draft, by its section (`§4.5`): the case fails blaming none of its rules. */
  unnumbered?: string;
  /**
   * What the departure leaves unreliable, when it is less than the whole run: `loom`, the loom's record of
   * the run (a turn stored that did not happen, or a reply's turn missing), while the replies went where
   * the script sent them. Expectations and ambient checks that read it are its consequences; the rest are
   * still judged (harness/judge/consequences.ts). Absent: the whole run, since the script's replies went astray.
   */
  departs?: DepartedPart[];
}

/**
 * A part of the run record a departure can leave unreliable on its own: `loom`; `call-turn`, the call
 * turn a loom without one does not have (CALL-4), and so the threads that would start from it; `requests`,
 * what the crystals were sent (a send's intent composed with earlier ones, INTENT-2); or one action whose cast
 * ended before its script did, after which the kit moved the crystal's script on to the next action's
 * steps (MockCrystals.realignAfter): what that action came back with, the loom, and the requests to its
 * lane after the first `through + 1` (counted from the start; counted from the end, those of later actions
 * are where the script put them again).
 */
export type DepartedPart = 'loom' | 'call-turn' | 'requests' | { action: string; lane: string; through: number };

/** Whether the request's last assistant message called done: a query after it is one LOOP-3 rules out. */
function followsDone(request: CrystalRequest): boolean {
  const last = [...(request.messages ?? [])].reverse().find((m) => m.role === 'assistant');
  return (last?.tool_calls ?? []).some((t) => t.gate === 'done');
}

/**
 * Whether a scripted step is a well-formed reply whose `done` call, with an answer, the implementation
 * has to accept: served as written (not raw, no error, no provider-level twist) with distinct call ids.
 * Whether the case's setup leaves it room to refuse is the outcome watch's part (doneIsCertain).
 */
function callsDoneForCertain(step: ScriptStep): boolean {
  if (step.raw || step.error || step.throws !== undefined || step.provider !== undefined || !step.tool_calls) return false;
  const ids = step.tool_calls.flatMap((t) => (t.id === undefined ? [] : [t.id]));
  if (new Set(ids).size !== ids.length) return false;
  return step.tool_calls.some((t) => t.gate === 'done' && t.arguments_raw === undefined && typeof t.args === 'object' && t.args !== null && Object.hasOwn(t.args, 'answer'));
}

/** The estimate the harness uses against a declared context window (chars / 4 of the request JSON). */
export function estimateTokens(request: CrystalRequest): number {
  return Math.ceil(JSON.stringify(request).length / 4);
}

function pending(): CrystalReply {
  return { ok: false, error: { message: 'no reply yet' } };
}

/**
 * Characters of requests (as JSON) the mock crystals keep per case: far beyond a case's own (a few dozen
 * requests of a few KB), as much as one protocol line. Past it a request is still answered from the script,
 * but not kept, and the case is errored: its expectations read the requests, and would judge part of them.
 */
export const MAX_REQUEST_CHARS_KEPT = 64 * 1024 * 1024;

export class MockCrystals {
  readonly queries: QueryRecord[] = [];
  readonly faults: CrystalFault[] = [];
  /** The kit's bounds reached (drive/kit-limits.ts): the requests kept. */
  readonly limits: KitLimitReached[] = [];
  private requestChars = 0;
  private requestsCut: KitLimitReached | undefined;
  private readonly scripts = new Map<string, ScriptStep[]>();
  private readonly byIntent = new Map<string, [string, ScriptStep[]][]>();
  private readonly served = new Map<string, number>();
  private nextToolCallId = 1;
  /** Index of the action in progress, stamped on each query. */
  private currentAction = -1;

  constructor(
    private readonly crystals: Record<string, CaseCrystal>,
    private readonly description: Pick<Description, 'sandbox' | 'builtins'>,
    private readonly wait: (ms: number) => Promise<void>,
    private readonly watch: OutcomeWatch,
    private readonly lanes: EntityLanes = new EntityLanes({ crystals, act: [] }),
  ) {
    for (const [name, c] of Object.entries(crystals)) {
      this.scripts.set(name, [...(c.script ?? [])]);
      this.byIntent.set(name, Object.entries(c.by_intent ?? {}).map(([k, steps]) => [k, [...steps]]));
      // The lanes of a shared crystal are scripted like crystals of their own; only the placement differs.
      for (const [lane, l] of Object.entries(c.by_entity ?? {})) {
        this.scripts.set(lane, [...(l.script ?? [])]);
        this.byIntent.set(lane, Object.entries(l.by_intent ?? {}).map(([k, steps]) => [k, [...steps]]));
      }
    }
  }

  /**
   * Feature loom-during-cast: reads the loom for a step's `snapshot_loom` before its reply goes back
   * (drive/mid-cast-snapshot.ts; set by the drive). Unset, such a step is served without a read.
   */
  snapshotLoom: ((name: string) => Promise<void>) | undefined;

  /** The most queries each crystal (each lane of a shared one) had in flight at once (COMP-3 shows concurrency with it). */
  readonly peakInFlight = new Map<string, number>();
  private readonly inFlight = new Map<string, number>();
  /** Crystals on which a hold for concurrent queries ran out its bound (awaitConcurrent). */
  private readonly concurrencyNotReached = new Set<string>();
  private readonly arrivals = new Map<string, Array<() => void>>();

  /** Whether a lane or crystal is one children query (or the unplaced lane), not the actions' own entities'. */
  childCrystal(lane: string): boolean {
    return lane === UNPLACED_LANE || this.watch.isChildCrystal(lane);
  }

  /** A new action of the case began. */
  beginAction(index: number): void {
    this.currentAction = index;
    this.watch.beginAction(index);
  }

  /** Answers one query (the body of `host.queryCrystal`). */
  async query(crystal: string, request: CrystalRequest): Promise<CrystalReply> {
    const entry = await this.record(crystal, request);
    entry.answered_ms = performance.now();
    // A step that throws: the query rejects, as a client that crashed would, instead of answering.
    if (entry.thrown !== undefined) throw new Error(entry.thrown);
    return structuredClone(entry.reply);
  }

  /** Answers one query that came over a wire transport, with how the reply is to travel (the crystal server's `answer`). */
  async serve(crystal: string, request: CrystalRequest): Promise<ServedReply> {
    const entry = await this.record(crystal, request);
    entry.answered_ms = performance.now();
    return { ...structuredClone(entry.reply), ...(entry.provider !== undefined && { provider: structuredClone(entry.provider) }) };
  }

  private async record(crystal: string, request: CrystalRequest): Promise<QueryRecord> {
    const intent = this.lanes.entityIntent(request);
    const placed = this.lanes.place(crystal, request);
    // From here on, a lane of a shared crystal is what a crystal of its own would be; a request no
    // intent places is filed apart, so no entity's requests count it as theirs.
    const lane = placed ?? UNPLACED_LANE;
    const decided = placed === undefined ? undefined : this.watch.decided(lane, intent);
    // Recorded on arrival, so concurrent queries keep the order they were sent in.
    const entry: QueryRecord = { crystal, lane, request: this.keptCopy(request), reply: pending(), action: this.currentAction, asked_ms: performance.now(), ...(decided !== undefined && { after_outcome: decided }) };
    this.queries.push(entry);
    if (placed === undefined) {
      // No intent at all is INTENT-2 broken; a delegated intent with no lane is an entity the case did not expect.
      const known = this.lanes.carriesKnownIntent(request);
      const first = firstUserText(request);
      const message = known
        ? `a request to the shared crystal '${crystal}' comes from an entity the case scripts no lane for (${JSON.stringify(first ?? null)?.slice(0, 80)}): the run left the case's script`
        : `a request to the shared crystal '${crystal}' carries no intent of the case's entities as its first user message (${JSON.stringify(first ?? null)?.slice(0, 80)}): the harness cannot tell which entity asked`;
      entry.reply = this.fault('fail', message, known ? undefined : ['INTENT-2']);
      return entry;
    }
    crystal = lane;
    if (this.watch.doneEnded(crystal, intent)) {
      // A done call the entity had to accept ended its cast, with no room for a summary: the run leaves its script here.
      entry.reply = this.fault('fail', `crystal '${crystal}' was queried again after a reply whose done call, with its answer, ends the cast: the loop did not stop`, ['LOOP-3', 'CIRCLE-8']);
      return entry;
    }
    if (decided !== undefined) {
      // One query after the outcome is a summary (LOOP-4); a second means the loop did not stop.
      if (this.watch.takeAfterOutcome(crystal, intent) > 1) {
        entry.reply = this.fault('fail', `crystal '${crystal}' was queried again after the cast's outcome was decided (${decided}): the loop did not stop`, followsDone(request) && this.watch.servedDone(crystal, intent) ? ['LOOP-3'] : this.watch.wardRules(crystal, intent));
        return entry;
      }
      entry.reply = { ok: true, response: jsonCopy(AFTER_OUTCOME_REPLY) as CrystalResponse };
      return entry;
    }
    const index = this.served.get(crystal) ?? 0;
    this.served.set(crystal, index + 1);
    const now = (this.inFlight.get(crystal) ?? 0) + 1;
    this.inFlight.set(crystal, now);
    this.peakInFlight.set(crystal, Math.max(now, this.peakInFlight.get(crystal) ?? 0));
    for (const wake of this.arrivals.get(crystal)?.splice(0) ?? []) wake();
    try {
      entry.reply = await this.answer(crystal, request, index, entry);
      if (entry.reply.ok) this.watch.noteAnswer(crystal, intent, entry.reply.response.usage, entry.reply.response.tool_calls ?? []);
    } finally {
      this.inFlight.set(crystal, (this.inFlight.get(crystal) ?? 1) - 1);
    }
    return entry;
  }

  /** A copy of `request` to keep, or an empty one once {@link MAX_REQUEST_CHARS_KEPT} are kept (the case is then errored, once). */
  private keptCopy(request: CrystalRequest): CrystalRequest {
    const text = JSON.stringify(request);
    this.requestChars += text.length;
    if (this.requestChars <= MAX_REQUEST_CHARS_KEPT) return JSON.parse(text) as CrystalRequest;
    if (this.requestsCut === undefined) {
      this.requestsCut = { kind: 'crystal_requests', bound: MAX_REQUEST_CHARS_KEPT, seen: this.requestChars, judged: false };
      this.limits.push(this.requestsCut);
      this.faults.push({ kind: 'error', message: `the implementation's crystal requests came to more than ${MAX_REQUEST_CHARS_KEPT} characters of JSON; the kit keeps at most that many per case (truncated after ${MAX_REQUEST_CHARS_KEPT} characters), so the case is not judged` });
    }
    this.requestsCut.seen = this.requestChars;
    return { messages: [] };
  }

  /**
   * Holds a reply until `count` queries to `crystal` are in flight at once, or `boundMs` passes: a
   * deterministic way to see whether an implementation really runs children concurrently (COMP-3).
   * A sequential implementation simply waits out the bound, and the peak it reached shows it.
   */
  private async awaitConcurrent(crystal: string, count: number, boundMs: number): Promise<void> {
    // Once a hold ran out its bound, the implementation has shown it does not reach `count` at once; later
    // holds on the crystal need not wait again (three children one by one would wait three bounds, past the case's limit).
    if (this.concurrencyNotReached.has(crystal)) return;
    const deadline = performance.now() + boundMs;
    while ((this.inFlight.get(crystal) ?? 0) < count && performance.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - performance.now()));
        const list = this.arrivals.get(crystal) ?? [];
        list.push(() => {
          clearTimeout(timer);
          resolve();
        });
        this.arrivals.set(crystal, list);
      });
    }
    if ((this.inFlight.get(crystal) ?? 0) < count) this.concurrencyNotReached.add(crystal);
  }

  private async answer(crystal: string, request: CrystalRequest, index: number, entry: QueryRecord): Promise<CrystalReply> {
    // `crystal` is the lane by now; the crystal the implementation named holds the declaration.
    const declared = this.crystals[entry.crystal];
    if (!declared) {
      return this.fault('fail', `the implementation queried crystal '${crystal}', which the case does not declare (request #${index})`);
    }
    if (declared.context_window !== undefined && estimateTokens(request) > declared.context_window) {
      return { ok: false, error: { code: 'context_limit_exceeded', message: `request of ~${estimateTokens(request)} tokens exceeds the window of ${declared.context_window}` } };
    }
    const step = this.nextStep(crystal, request);
    if (!step) {
      // Queried after a reply that called done: the script ran out because the loop went on (LOOP-3).
      if (followsDone(request) && this.watch.servedDone(crystal, this.lanes.entityIntent(request))) return this.fault('fail', `crystal '${crystal}' was queried again after a reply that called done (request #${index}; its script is exhausted): the loop did not stop`, ['LOOP-3']);
      // A cast or send given no intent that queried at all was not refused: its request can carry no intent, so
      // INTENT-2 is not what broke; the case's own expectations judge the run it should have refused (INTENT-1).
      if (this.lanes.givesNoIntent(entry.action)) return this.fault('fail', `crystal '${crystal}' has no scripted response for request #${index}, made by an action the case gives no intent`);
      // A request that carries no intent the case gives cannot be told from another entity's: INTENT-2, as on a shared crystal.
      if (!this.lanes.carriesEntityKey(request)) return this.fault('fail', `crystal '${crystal}' has no scripted response left for request #${index}, which carries no intent of the case's entities among its user messages: the harness cannot tell which entity asked`, ['INTENT-2']);
      return this.fault('fail', `crystal '${crystal}' has no scripted response left for request #${index} (its script is exhausted)`);
    }
    if (step.await_concurrent) await this.awaitConcurrent(crystal, step.await_concurrent, stretchedForLoad(AWAIT_CONCURRENT_MS));
    if (step.delay_ms) {
      const ms = Math.min(step.delay_ms, MAX_STEP_DELAY_MS);
      const ended = this.watch.noteWait(ms);
      try {
        await this.wait(ms);
      } finally {
        ended();
      }
    }
    // LOOM-1 seen mid-cast: the loom as it is while this query waits, read before the reply is served.
    if (step.snapshot_loom !== undefined) await this.snapshotLoom?.(step.snapshot_loom);
    if (step.throws !== undefined) {
      entry.thrown = step.throws;
      return { ok: false, error: { message: step.throws } };
    }
    if (step.provider !== undefined) entry.provider = step.provider;
    if (step.raw) entry.raw = true;
    // A provider-level status is a failed query on every transport (over callback, without the HTTP body).
    if (step.provider?.status !== undefined) return { ok: false, error: { status: step.provider.status, message: step.provider.message ?? `provider answered ${step.provider.status}` } };
    // CRYSTAL-2: over a wire the server answers in the format's overflow shape; over the callback, a coded failure.
    if (step.provider?.overflow) return { ok: false, error: { code: 'context_limit_exceeded', message: 'the request is longer than the context window' } };
    if (step.error) {
      const { status, code } = step.error;
      const message = step.error.message ?? `scripted failure${status ? ` (status ${status})` : ''}${code ? ` (${code})` : ''}`;
      return { ok: false, error: { ...(status !== undefined && { status }), ...(code !== undefined && { code }), message } };
    }
    const response = this.toResponse(step, request);
    if (typeof response === 'string') {
      this.faults.push({ kind: 'skip', message: response });
      return { ok: false, error: { message: response } };
    }
    // A malformed body replaces the reply on the wire, so the reply need not be a valid one.
    if (!step.raw && step.provider?.malformed === undefined && hasSchema('crystal-response')) {
      const checked = validate('crystal-response', response);
      if (!checked.ok) return this.fault('error', `crystal '${crystal}' step for request #${index} is not a valid response (mark it raw: true if intended):\n${formatProblems(checked.problems)}`);
    }
    if ((step.tool_calls ?? []).some((t) => t.gate === 'done')) this.watch.noteDone(crystal, this.lanes.entityIntent(request), callsDoneForCertain(step));
    return { ok: true, response };
  }

  /**
   * After a cast that ended before its script did, moves `lane`'s script on past that cast's remaining
   * steps, so the next action is answered from its own: up to and including the first step whose done
   * call certainly ends a cast, when it comes within the `within` steps the cast still had before its turn
   * cap (a done in that window can only have been that cast's). Returns whether it did; a lane scripted
   * by intent, or a window with no such step, is left alone (the whole run is then departed).
   */
  realignAfter(lane: string, within: number): boolean {
    const steps = this.scripts.get(lane);
    if (!steps || (this.byIntent.get(lane)?.length ?? 0) > 0) return false;
    const at = steps.slice(0, within).findIndex(callsDoneForCertain);
    if (at < 0) return false;
    steps.splice(0, at + 1);
    return true;
  }

  private nextStep(crystal: string, request: CrystalRequest): ScriptStep | undefined {
    const keyed = this.byIntent.get(crystal) ?? [];
    // The latest user message that carries a key picks the script (keyedText), as on a shared crystal.
    const text = keyedText(request, keyed.map(([key]) => key));
    if (text !== undefined) {
      for (const [key, steps] of keyed) {
        if (text.includes(key)) return steps.shift();
      }
    }
    return this.scripts.get(crystal)?.shift();
  }

  /** The scripted step as a response in the implementation's own argument names, or why it cannot be one. */
  private toResponse(scripted: ScriptStep, request: CrystalRequest): CrystalResponse | string {
    const step = servedForMedium(scripted, request, this.description.sandbox?.tool);
    const calls: ToolCall[] = [];
    for (const c of step.tool_calls ?? []) {
      let args: unknown = c.args ?? {};
      if (c.arguments_raw === undefined) {
        const translated = translateBuiltinCall(c.gate, args, request.tools, this.description.builtins);
        if (!translated.ok) return translated.reason;
        args = translated.args;
      }
      calls.push({ id: c.id ?? this.toolCallId(), gate: c.gate, arguments: c.arguments_raw ?? JSON.stringify(args) });
    }
    const sandbox = this.description.sandbox;
    if (step.code) {
      // The plan skips cases whose language the sandbox does not speak, so this lookup succeeds.
      const source = sandbox ? step.code[sandbox.language] : undefined;
      if (sandbox && source !== undefined) {
        calls.push({ id: this.toolCallId(), gate: sandbox.tool, arguments: JSON.stringify({ [sandbox.argument]: translateCode(source, this.description.builtins) }) });
      }
    }
    const response: CrystalResponse = { content: step.content ?? null, usage: { ...(step.usage ?? DEFAULT_USAGE) } };
    if (calls.length > 0 || step.tool_calls) response.tool_calls = calls;
    // A raw step may send an explicit null, as some providers do for "no calls".
    if (step.tool_calls === null) (response as { tool_calls?: ToolCall[] | null }).tool_calls = null;
    if (step.thinking !== undefined) response.thinking = step.thinking;
    if (step.metadata !== undefined) response.metadata = step.metadata;
    // Tools the provider ran itself (LLM-7): not calls for the implementation to run, so never translated.
    if (step.provider_tools !== undefined) {
      response.provider_tools = step.provider_tools.map((t) => ({ id: t.id, name: t.name, arguments: JSON.stringify(t.args ?? {}), result: t.result }));
    }
    return response;
  }

  private toolCallId(): string {
    return `tc${this.nextToolCallId++}`;
  }

  private fault(kind: CrystalFault['kind'], message: string, rules?: string[]): CrystalReply {
    this.faults.push({ kind, message, ...(rules && { rules }) });
    return { ok: false, error: { code: 'crystal_error', message } };
  }
}

/**
 * A `whichever_medium` step as the request's entity can act on it: its code when the request offers the
 * sandbox's tool (a code circle), else its tool calls. From 0.2.0 a child's medium is the implementation's
 * choice (COMP-1), so a case about what a child answers need not assume one.
 */
function servedForMedium(step: ScriptStep, request: CrystalRequest, sandboxTool: string | undefined): ScriptStep {
  if (step.whichever_medium !== true) return step;
  const { code, tool_calls: toolCalls, whichever_medium: _either, ...rest } = step;
  const inCode = sandboxTool !== undefined && (request.tools ?? []).some((t) => t.name === sandboxTool);
  return inCode ? { ...rest, ...(code && { code }) } : { ...rest, ...(toolCalls !== undefined && { tool_calls: toolCalls }) };
}

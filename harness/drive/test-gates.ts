/**
 * The harness-owned test gates (echo, fail, delay, counter, fixed; any of them slowed by `delay_ms`). Implementations register them from the
 * tool definitions below and forward each call to `host.callGate`; every call is logged with its
 * timing so cases can check order and blocking (CIRCLE-3, CIRCLE-7, COMP-2, COMP-3).
 */
import type { GateCallContext, GateReply } from '../../schemas/adapter.ts';
import type { ToolDefinition } from '../../schemas/records.ts';
import type { CaseGateObject, TestGateKind } from '../case-file/index.ts';
import { jsonCopy } from '../values/index.ts';
import { checkCarried, refusedForCredential, withCredential, type GateCredential } from './gate-credential.ts';

export const TEST_GATE_KINDS: readonly TestGateKind[] = ['echo', 'fail', 'delay', 'counter', 'fixed'];
/** Kinds a gate gets by its name alone; `fixed` needs `behaves_as` and a `result`. */
const KINDS_BY_NAME: readonly TestGateKind[] = ['echo', 'fail', 'delay', 'counter'];
/** Upper bound on one delay-gate wait. */
export const MAX_GATE_DELAY_MS = 2000;

const PARAMETERS: Record<TestGateKind, { description: string; parameters: Record<string, unknown> }> = {
  echo: {
    description: 'Returns the text it is given.',
    parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
  fail: {
    description: 'Always fails, with the given message.',
    parameters: { type: 'object', properties: { message: { type: 'string' } } },
  },
  delay: {
    description: 'Waits the given number of milliseconds, then returns it.',
    parameters: { type: 'object', properties: { ms: { type: 'integer', minimum: 0 } }, required: ['ms'] },
  },
  counter: { description: 'Returns 1, then 2, then 3...', parameters: { type: 'object', properties: {} } },
  fixed: { description: 'Returns the same value on every call.', parameters: { type: 'object', properties: {} } },
};

/** The kind of a configured gate when it is a test gate, else undefined (a built-in gate). */
export function testGateKind(gate: CaseGateObject): TestGateKind | undefined {
  if (gate.behaves_as) return gate.behaves_as;
  return (KINDS_BY_NAME as readonly string[]).includes(gate.name) ? (gate.name as TestGateKind) : undefined;
}

/** The tool definition the implementation registers for a test gate; a case may declare its own argument schema. */
export function testGateDefinition(name: string, kind: TestGateKind, declared?: Record<string, unknown>): ToolDefinition {
  const { description, parameters } = PARAMETERS[kind];
  return { name, description, parameters: structuredClone(declared ?? parameters) };
}

/** One logged test-gate call. Times are ms since the case started. */
export interface GateCallLog {
  index: number;
  gate: string;
  entity_id: string;
  tool_call_id: string;
  args: unknown;
  reply?: GateReply;
  /** A gate built with a credential (feature gate-credentials): whether this call carried it. */
  credential?: 'carried' | 'missing' | 'wrong';
  started_ms: number;
  ended_ms?: number;
}

export class TestGates {
  readonly log: GateCallLog[] = [];
  private readonly counters = new Map<string, number>();

  constructor(
    private readonly gates: Map<string, CaseGateObject & { kind: TestGateKind }>,
    private readonly now: () => number,
    private readonly wait: (ms: number) => Promise<void>,
    /** The run's credential, for the gates built with one (`credential: true`). */
    private readonly credential?: GateCredential,
  ) {}

  /** The body of `host.callGate`. */
  async call(gate: string, args: unknown, context: GateCallContext): Promise<GateReply> {
    const entry: GateCallLog = { index: this.log.length, gate, entity_id: context.entity_id, tool_call_id: context.tool_call_id, args: jsonCopy(args), started_ms: this.now() };
    this.log.push(entry);
    // PROD-8: a gate built with a credential refuses a call that does not carry it, as a real one would.
    const secret = this.gates.get(gate)?.credential === true ? this.credential : undefined;
    if (secret) entry.credential = checkCarried(secret, context);
    if (entry.credential === 'missing' || entry.credential === 'wrong') {
      entry.reply = refusedForCredential(entry.credential);
      entry.ended_ms = this.now();
      return entry.reply;
    }
    // A slow gate (`delay_ms`): waits, then answers as its kind (bounded like the delay gate).
    const slow = this.gates.get(gate)?.delay_ms;
    if (slow !== undefined) await this.wait(Math.min(slow, MAX_GATE_DELAY_MS));
    const answer = await this.behave(gate, args);
    // A reply that says `{credential}` repeats the secret it was called with.
    const reply = secret ? withCredential(answer, secret) : answer;
    entry.reply = reply;
    entry.ended_ms = this.now();
    return reply;
  }

  private async behave(gate: string, args: unknown): Promise<GateReply> {
    const config = this.gates.get(gate);
    if (!config) return { ok: false, error: { name: 'UnknownTestGate', message: `the harness has no test gate '${gate}'` } };
    const a = (args ?? {}) as Record<string, unknown>;
    switch (config.kind) {
      case 'echo':
        return typeof a.text === 'string' ? { ok: true, result: a.text } : { ok: false, error: { name: 'InvalidArguments', message: 'echo needs a string text' } };
      case 'fail':
        return { ok: false, error: { name: config.error_name ?? 'TestGateError', message: config.error_message ?? (typeof a.message === 'string' ? a.message : 'test gate failed') } };
      case 'fixed':
        return { ok: true, result: jsonCopy(config.result ?? null) };
      case 'delay': {
        const ms = typeof a.ms === 'number' && a.ms >= 0 ? a.ms : 0;
        await this.wait(Math.min(ms, MAX_GATE_DELAY_MS));
        return { ok: true, result: ms };
      }
      case 'counter': {
        const n = (this.counters.get(gate) ?? 0) + 1;
        this.counters.set(gate, n);
        return { ok: true, result: n };
      }
    }
  }
}

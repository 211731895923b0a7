import type { GateCallRecord, Message, ToolCall, ToolDefinition, Turn } from '../../../schemas/index.ts';
import { CantripError } from '../../errors.ts';
import type { Gate } from '../gate.ts';
import type { Wards } from '../wards.ts';
import { verifyCall } from '../verifiers.ts';
import { renderEvaluation } from './code/observation.ts';
import { CODE_ARGUMENT, CODE_TOOL, gateParameterNames, presentCodeMedium } from './code/presentation.ts';
import { createSandbox } from './code/sandbox.ts';
import { keepSpare } from './code/worker-pool.ts';
import type { Evaluation, Sandbox, SandboxGate } from './code/types.ts';
import { NO_GATE_CALLED, type Action, type ActContext, type Medium, type MediumSession, type OpenOptions } from './medium.ts';
import { readRecords } from '../../drafts/gate-call-records.ts';

/**
 * The code medium (§4.1, §4.7): the entity writes JavaScript, handed over through one tool, `js`,
 * with its program in `code`; the program runs in the entity's own QuickJS sandbox, where every gate
 * is an ordinary synchronous function (CIRCLE-3) and variables persist from turn to turn (CIRCLE-9).
 * Each program's gate calls, console output and value or error make one observation (CIRCLE-7).
 *
 * Gates take positional arguments in the order of their parameters (`done(answer)`, `read(path)`,
 * `echo(text)`); a gate with several parameters may instead get one object holding them by name
 * (`call_entity({ intent, context })`). Records in the loom carry the named form.
 */
export function codeMedium(wards: Pick<Wards, 'evalTimeoutMs' | 'memoryLimitBytes' | 'maxOutputChars'> = {}): Medium {
  // A code circle will want a sandbox soon: start a worker now, while the cantrip is still being set up.
  keepSpare();
  return Object.freeze({
    kind: 'code' as const,
    // Sandbox heaps cannot be serialized, so a fork re-runs the recorded programs (see restore below).
    forkStrategy: 'replay' as const,
    present: (gates: readonly Gate[]): ToolDefinition[] => [presentCodeMedium(gates.map((gate) => gate.definition)).tool],
    open: (gates: ReadonlyMap<string, Gate>, options: OpenOptions = {}) => openSession(gates, wards, options),
    rebuild: rebuildCodeTurn,
  });
}

async function openSession(gates: ReadonlyMap<string, Gate>, wards: Parameters<typeof codeMedium>[0], options: OpenOptions): Promise<MediumSession> {
  // The gates close over the context of the utterance being run, which changes every turn.
  let current: (ActContext & { toolCallId: string }) | undefined;
  let calls = 0;
  // While restoring a fork, gate calls are answered from the recorded results instead of running.
  let replaying: GateCallRecord[] | undefined;
  const sandboxGates: SandboxGate[] = [...gates.values()].map((gate) => ({
    name: gate.definition.name,
    call: async (positional: unknown[]) => {
      if (replaying) return replayed(replaying.shift(), gate.definition.name);
      if (!current) throw new CantripError('sandbox_error', 'a gate was called outside an evaluation');
      calls += 1;
      const args = namedArguments(gate.definition, positional);
      // CIRCLE-6: the circle's verifiers see the call before the gate does; a refusal is thrown into the program.
      verifyCall(options.verifiers ?? [], gate.definition.name, args);
      return gate.execute(args, { ...current, toolCallId: `${current.toolCallId}.${calls}` });
    },
  }));
  const sandbox: Sandbox = await createSandbox({
    gates: sandboxGates,
    limits: {
      ...(wards?.evalTimeoutMs === undefined ? {} : { evalTimeoutMs: wards.evalTimeoutMs }),
      ...(wards?.memoryLimitBytes === undefined ? {} : { memoryLimitBytes: wards.memoryLimitBytes }),
      ...(wards?.maxOutputChars === undefined ? {} : { maxOutputChars: wards.maxOutputChars }),
    },
    ...(options.globals ? { globals: options.globals } : {}),
  });
  return {
    async act(toolCalls: readonly ToolCall[], context: ActContext): Promise<Action> {
      const gateCalls: GateCallRecord[] = [];
      const messages: Message[] = [];
      const observations: string[] = [];
      const programs: string[] = [];
      let done: Action['done'];
      for (const call of toolCalls) {
        if (done) {
          messages.push({ role: 'tool', tool_call_id: call.id, content: 'skipped: done was already called' });
          continue;
        }
        const code = call.gate === CODE_TOOL ? (JSON.parse(call.arguments) as Record<string, unknown>)[CODE_ARGUMENT] : undefined;
        if (typeof code !== 'string') {
          const text = `error GateUnavailable: this circle runs code through ${CODE_TOOL}(${CODE_ARGUMENT}); '${call.gate}' is not a tool here`;
          messages.push({ role: 'tool', tool_call_id: call.id, content: text });
          observations.push(text);
          continue;
        }
        programs.push(code);
        if (options.thread) await exposeThread(sandbox, options.thread());
        current = { ...context, toolCallId: call.id };
        calls = 0;
        let evaluation: Evaluation;
        try {
          // The cast's signal ends any gate wait when a ward fires or the parent stops this entity.
          evaluation = await sandbox.evaluate(code, { idPrefix: call.id, signal: context.signal });
        } finally {
          current = undefined;
        }
        const records = evaluation.gate_calls.map((record) => withNamedArguments(record, gates));
        gateCalls.push(...records);
        const observation = renderEvaluation({ ...evaluation, gate_calls: records });
        observations.push(observation);
        messages.push({ role: 'tool', tool_call_id: call.id, content: observation });
        if (evaluation.done) done = { answer: evaluation.done.answer };
      }
      return { gateCalls, messages, observation: observations.join('\n'), utterance: programs.join('\n\n'), ...(done ? { done } : {}) };
    },
    /**
     * LOOM-4 (strategy `replay`): re-runs each recorded program so the fork's sandbox holds the same
     * state. LOOM-13 (0.2.0 and 0.3.1; at 0.1.0 the same, by our choice): no gate runs during the
     * replay; each call is answered with its recorded result, read back whatever draft's shape the
     * turn stored it in.
     */
    async restore(path: readonly Turn[]): Promise<void> {
      for (const turn of path) {
        if (turn.role !== 'crystal' || turn.utterance === '' || turn.observation === '' || turn.observation === NO_GATE_CALLED) continue;
        replaying = readRecords(turn.gate_calls);
        try {
          await sandbox.evaluate(turn.utterance, { idPrefix: `replay_${turn.sequence}` });
        } finally {
          replaying = undefined;
        }
      }
    },
    dispose: () => sandbox.dispose(),
  };
}

/** The recorded answer to a gate call during replay; a program that calls differently than recorded is an error. */
function replayed(record: GateCallRecord | undefined, gate: string): unknown {
  if (!record || record.gate !== gate) throw new CantripError('sandbox_error', `replay diverged at a call of ${gate}`);
  if (record.ok) return record.result;
  throw Object.assign(new Error(record.error?.message ?? 'failed'), { name: record.error?.name ?? 'Error' });
}

/**
 * LOOM-11: before each program, the entity's thread so far is set as the global `loom.thread`, plain
 * data the code reads like any other value; nothing about it reaches the entity any other way.
 */
async function exposeThread(sandbox: Sandbox, thread: readonly Turn[]): Promise<void> {
  const json = JSON.stringify({ thread });
  const program = `Object.defineProperty(globalThis, 'loom', { value: Object.freeze(JSON.parse(${JSON.stringify(json)})), configurable: true, writable: false, enumerable: false }); undefined`;
  await sandbox.evaluate(program, { idPrefix: 'loom' });
}

/** Positional arguments as the named object a gate's definition describes. */
export function namedArguments(definition: ToolDefinition, positional: unknown[]): Record<string, unknown> {
  const names = gateParameterNames(definition);
  const [first] = positional;
  if (
    names.length > 1 &&
    positional.length === 1 &&
    typeof first === 'object' &&
    first !== null &&
    !Array.isArray(first) &&
    Object.keys(first).every((key) => names.includes(key))
  ) {
    return { ...(first as Record<string, unknown>) };
  }
  const named: Record<string, unknown> = {};
  names.forEach((name, index) => {
    if (index < positional.length) named[name] = positional[index];
  });
  return named;
}

function withNamedArguments(record: GateCallRecord, gates: ReadonlyMap<string, Gate>): GateCallRecord {
  const gate = gates.get(record.gate);
  if (!gate || !Array.isArray(record.arguments)) return record;
  return { ...record, arguments: namedArguments(gate.definition, record.arguments) };
}

/** A recorded code turn as messages again: the program as a `js` call, the observation as its result (LOOM-4). */
function rebuildCodeTurn(turn: Turn): Message[] {
  if (turn.utterance === '') return [];
  // A reply without a program: text only, followed by the circle's reminder when the cast went on.
  if (turn.observation === '' || turn.observation === NO_GATE_CALLED) {
    const reply: Message[] = [{ role: 'assistant', content: turn.utterance }];
    return turn.observation === NO_GATE_CALLED ? [...reply, { role: 'user', content: NO_GATE_CALLED }] : reply;
  }
  const id = `${CODE_TOOL}_${turn.sequence}`;
  return [
    { role: 'assistant', content: null, tool_calls: [{ id, gate: CODE_TOOL, arguments: JSON.stringify({ [CODE_ARGUMENT]: turn.utterance }) }] },
    { role: 'tool', tool_call_id: id, content: turn.observation },
  ];
}

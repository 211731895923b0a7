import type { GateCallRecord, Message, ToolCall } from '../../../schemas/index.ts';
import type { Gate } from '../gate.ts';
import { DONE } from '../done.ts';
import { executeGate } from '../gate-execution.ts';
import type { Verifier } from '../verifiers.ts';
import type { Action, ActContext, Medium, MediumSession, OpenOptions } from './medium.ts';

/**
 * The conversation medium of a tool-calling circle (§4.5): gates are presented as tools, and an
 * utterance acts only through its tool calls.
 *
 * Calls run one after another in the order the crystal gave them (CIRCLE-7), each result returned
 * as a `tool` message linked by id (CIRCLE-4). Once `done` has been processed the rest are skipped
 * (LOOP-3); they still get a `tool` message saying so, so the context stays well-formed for a later cast.
 */
export const conversationMedium: Medium = Object.freeze({
  kind: 'conversation' as const,
  // The recorded messages are the whole state of a conversation: nothing to re-run.
  forkStrategy: 'snapshot' as const,
  present: (gates: readonly Gate[]) => gates.map((gate) => structuredClone(gate.definition)),
  open: async (gates: ReadonlyMap<string, Gate>, options: OpenOptions = {}): Promise<MediumSession> => ({
    act: (toolCalls, context) => act(gates, toolCalls, context, options.verifiers ?? []),
    dispose: () => {},
  }),
});

async function act(
  gates: ReadonlyMap<string, Gate>,
  toolCalls: readonly ToolCall[],
  context: ActContext,
  verifiers: readonly Verifier[],
): Promise<Action> {
  const gateCalls: GateCallRecord[] = [];
  const messages: Message[] = [];
  let done: Action['done'];
  for (const call of toolCalls) {
    if (done) {
      messages.push({ role: 'tool', tool_call_id: call.id, content: 'skipped: done was already called' });
      continue;
    }
    const record = await executeGate(gates, call, { ...context, toolCallId: call.id }, verifiers);
    gateCalls.push(record);
    messages.push({ role: 'tool', tool_call_id: call.id, content: renderRecord(record) });
    if (call.gate === DONE && record.ok) done = { answer: record.result };
  }
  // The observation is what the entity was shown, one line per result; the full records sit in gate_calls.
  const observation = messages.length === 1 ? (messages[0]!.content ?? '') : messages.map((message) => message.content).join('\n');
  return done ? { gateCalls, messages, observation, done } : { gateCalls, messages, observation };
}

/** A gate call record as the crystal reads it in a `tool` message. */
export function renderRecord(record: GateCallRecord): string {
  return record.ok ? JSON.stringify(record.result) : `error ${record.error?.name}: ${record.error?.message}`;
}

import type { SessionUpdate, ToolKind } from '@agentclientprotocol/sdk';
import type { GateCallRecord, StreamEvent, ToolCall } from '../../schemas/index.ts';
import type { Redactor } from '../production/redaction.ts';

/**
 * PROD-6: turns the loop's streaming events for one prompt into ACP session updates. What the crystal
 * says becomes `agent_message_chunk` (its thinking, `agent_thought_chunk`); each gate call becomes a
 * `tool_call` in progress, and its record a `tool_call_update` that completes or fails it with the
 * result. A record whose call was never announced (a gate called from inside code) is reported as a
 * finished `tool_call` of its own, so the client never sees an update for an id it does not know.
 * Usage and turn boundaries have no update here (the prompt's response carries the usage).
 *
 * PROD-8: every string in an update passes through `redact` first, so no credential reaches the client.
 */
export class SessionUpdates {
  private readonly announced = new Set<string>();

  constructor(private readonly redact: Redactor) {}

  /** The update for one event, or none when the event has no ACP counterpart. */
  fromEvent(event: StreamEvent): SessionUpdate | undefined {
    switch (event.type) {
      case 'text':
        return typeof event.data === 'string' && event.data !== '' ? this.message('agent_message_chunk', event.data) : undefined;
      case 'thinking':
        return typeof event.data === 'string' && event.data !== '' ? this.message('agent_thought_chunk', event.data) : undefined;
      case 'gate_call':
        return this.toolCall(event.data as ToolCall);
      case 'gate_result':
        return this.toolResult(event.data as GateCallRecord);
      default:
        return undefined;
    }
  }

  /** The final answer of a cast that ended with `done`, as the agent's last message chunk. */
  answer(result: unknown): SessionUpdate | undefined {
    if (result === undefined || result === null || result === '') return undefined;
    return this.message('agent_message_chunk', typeof result === 'string' ? result : JSON.stringify(result));
  }

  private message(kind: 'agent_message_chunk' | 'agent_thought_chunk', text: string): SessionUpdate {
    return { sessionUpdate: kind, content: { type: 'text', text: this.redact(text) } };
  }

  private toolCall(call: ToolCall): SessionUpdate {
    this.announced.add(call.id);
    return {
      sessionUpdate: 'tool_call',
      toolCallId: call.id,
      title: call.gate,
      kind: kindOf(call.gate),
      status: 'in_progress',
      rawInput: redactDeep(parsedArguments(call.arguments), this.redact),
    };
  }

  private toolResult(record: GateCallRecord): SessionUpdate {
    const outcome = record.ok ? record.result : record.error;
    const finished = {
      toolCallId: record.tool_call_id,
      status: record.ok ? ('completed' as const) : ('failed' as const),
      content: [{ type: 'content' as const, content: { type: 'text' as const, text: this.redact(textOf(outcome)) } }],
      rawOutput: redactDeep(outcome, this.redact),
    };
    if (this.announced.delete(record.tool_call_id)) return { sessionUpdate: 'tool_call_update', ...finished };
    return {
      sessionUpdate: 'tool_call',
      title: record.gate,
      kind: kindOf(record.gate),
      rawInput: redactDeep(record.arguments, this.redact),
      ...finished,
    };
  }
}

/** A hint for the client's display only: the reference's reading gates read, everything else is other. */
function kindOf(gate: string): ToolKind {
  return gate === 'read' || gate === 'list_dir' ? 'read' : 'other';
}

function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text; // shown as sent; the gate call's record says how the circle treated it
  }
}

function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value) ?? '';
}

/** PROD-8: a copy of `value` with every string scrubbed. */
export function redactDeep(value: unknown, redact: Redactor): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redact));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactDeep(item, redact)]));
  }
  return value;
}

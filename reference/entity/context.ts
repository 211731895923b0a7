import type { Message, Turn } from '../../schemas/index.ts';
import { renderRecord } from '../circle/medium/conversation.ts';
import { NO_GATE_CALLED, type Medium } from '../circle/medium/medium.ts';
import { readRecords } from '../drafts/gate-call-records.ts';

/**
 * Rebuilds an entity's working context (everything after the call's system message) from a path of
 * the loom (LOOM-4): the intents, each utterance as an assistant message with the gate calls that ran,
 * and each observation as `tool` messages. Used to start a forked entity exactly where turn N left off.
 */
export function contextFromThread(path: readonly Turn[], medium?: Medium): Message[] {
  const messages: Message[] = [];
  for (const turn of path) {
    if (turn.role === 'call') continue;
    if (turn.role === 'fold') {
      messages.push({ role: 'user', content: turn.observation });
      continue;
    }
    if (turn.intent) messages.push({ role: 'user', content: turn.intent });
    if (medium?.rebuild) {
      messages.push(...medium.rebuild(turn));
      continue;
    }
    // Records read back whatever draft wrote them (reference/drafts/gate-call-records.ts).
    const records = readRecords(turn.gate_calls);
    const toolCalls = records.map((record) => ({
      id: record.tool_call_id,
      gate: record.gate,
      arguments: JSON.stringify(record.arguments ?? {}),
    }));
    if (turn.utterance === '' && toolCalls.length === 0) continue; // a turn cut off before the crystal answered
    messages.push({
      role: 'assistant',
      content: turn.utterance === '' ? null : turn.utterance,
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    });
    for (const record of records) {
      messages.push({ role: 'tool', tool_call_id: record.tool_call_id, content: renderRecord(record) });
    }
    if (toolCalls.length === 0 && !turn.terminated && !turn.truncated) {
      messages.push({ role: 'user', content: NO_GATE_CALLED });
    }
  }
  return messages;
}

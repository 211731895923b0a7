import { createCall } from '../call/call.ts';
import { createCircle } from '../circle/circle.ts';
import { doneGate } from '../circle/done.ts';
import { listDirGate, readGate } from '../circle/file-gates.ts';
import type { Gate } from '../circle/gate.ts';
import type { Crystal } from '../crystal/contract.ts';
import { createCantrip, type Cantrip } from '../entity/cantrip.ts';
import type { EventSink } from '../production/events.ts';
import type { Redactor } from '../production/redaction.ts';
import type { AgentOptions } from './agent-options.ts';
import type { Draft } from '../drafts/draft.ts';

/**
 * The draft the agent's cantrip is built for: ACP is a rule of 0.2.0 and later (PROD-6, PROD-7), and
 * the agent follows the current draft, so a malformed `done` does not end a prompt (LOOP-7) and turns
 * keep text records (reference/drafts/).
 */
export const AGENT_DRAFT: Draft = '0.3.1';

/**
 * The one cantrip an agent process serves: every ACP session is an entity of it (PROD-7), so all
 * sessions share its call, its circle and its loom. The circle is `done` plus, with a root, the
 * confined `read` and `list_dir` gates; the `max_turns` ward bounds every prompt (CIRCLE-2).
 */
export function agentCantrip(
  options: Pick<AgentOptions, 'systemPrompt' | 'maxTurns' | 'root'>,
  crystal: Crystal,
  wiring: { onEvent: EventSink; redact: Redactor },
): Cantrip {
  const gates: Gate[] = [doneGate(undefined, AGENT_DRAFT)];
  if (options.root !== undefined) gates.push(readGate({ root: options.root }), listDirGate({ root: options.root }));
  return createCantrip({
    crystal,
    call: createCall({ systemPrompt: options.systemPrompt }),
    circle: createCircle({ gates, wards: { maxTurns: options.maxTurns } }),
    onEvent: wiring.onEvent,
    redact: wiring.redact,
    draft: AGENT_DRAFT,
  });
}

import type { StopReason } from '@agentclientprotocol/sdk';
import type { CastResult } from '../entity/cast-result.ts';

/**
 * PROD-6: why a prompt stopped, in ACP's words, from how its cast ended. A cast that ended itself
 * (`done`, or a reply with no gate call) is `end_turn`; the token ward is `max_tokens`; the other wards
 * (`max_turns`, `timeout`, `max_rejections`) are limits on the agent's own requests within the turn,
 * `max_turn_requests`; a cancelled cast is `cancelled`. A cast cut off because its crystal failed has
 * no stop reason: the prompt is answered with an error instead ({@link crystalFailed}).
 */
export function stopReasonOf(result: CastResult): StopReason {
  if (result.status === 'terminated') return 'end_turn';
  switch (result.truncationCause) {
    case 'max_tokens':
      return 'max_tokens';
    case 'cancelled':
    case 'parent_terminated':
      return 'cancelled';
    default:
      return 'max_turn_requests';
  }
}

/** Whether the cast ended because its crystal failed, so the prompt gets an error response. */
export function crystalFailed(result: CastResult): boolean {
  return result.status === 'truncated' && result.truncationCause === 'crystal_error';
}

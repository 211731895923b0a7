/**
 * After a case's actions, where the run's gate credential (drive/gate-credential.ts) shows in what the
 * implementation exported and showed: the record's `credential` (PROD-8).
 */
import { pathsShowing } from '../values/index.ts';
import type { CredentialRecord, GateCredential } from './gate-credential.ts';
import type { GateCallLog } from './test-gates.ts';
import type { RunRecord } from './run-record.ts';

/**
 * The parts of the run record the implementation produced and someone can see: the loom and its
 * exports (threads, snapshots, the default export, feature loom-export), the implementation's log output
 * (feature log-output), the streamed events, what the entity was shown (every request sent to
 * its LLM, tool results included), and what the user gets back (outcomes, refusals, failures, forks,
 * ACP prompts and sessions). The kit's own logs of the gates' replies (`gates`, `gate_log`) and the
 * scripted crystals' replies are not searched: they are the kit's, and the gate's reply may repeat the
 * secret on purpose.
 */
export const SEARCHED = ['loom', 'threads', 'snapshots', 'exports', 'logs', 'events', 'requests', 'after_outcome', 'outcomes', 'errors', 'failures', 'forks', 'mutations', 'acp', 'acp_sessions', 'acp_prompts'] as const satisfies readonly (keyof RunRecord)[];

/** Where the credential shows in the searched parts of `record`, in {@link SEARCHED} order. */
export function whereCredentialShows(record: RunRecord, needle: string): string[] {
  return SEARCHED.flatMap((key) => pathsShowing(record[key], needle, key));
}

/** The record's `credential`, from the gates' log and the record's searched parts. */
export function credentialRecord(record: RunRecord, credential: GateCredential, log: readonly GateCallLog[]): CredentialRecord {
  return {
    carried: log.filter((entry) => entry.credential === 'carried').length,
    not_carried: log.filter((entry) => entry.credential === 'missing' || entry.credential === 'wrong').length,
    found: whereCredentialShows(record, credential.needle),
  };
}

/**
 * Why a case with a gate credential cannot show anything about PROD-8, or undefined when it can: no
 * gate call ever carried the credential (the gate was never reached with it), and nothing leaked. A
 * leak found is judged whatever the gate got.
 */
export function credentialUnused(found: CredentialRecord): string | undefined {
  if (found.carried > 0 || found.found.length > 0) return undefined;
  return found.not_carried > 0
    ? 'not judged: the gate built with a credential was called without it (host.callGate context.credential), so the cast never used the secret (feature gate-credentials)'
    : 'not judged: the gate built with a credential was never called, so the cast never used the secret';
}

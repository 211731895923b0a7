/**
 * Load-time checks on gate credentials (feature `gate-credentials`, PROD-8) that the case schema cannot
 * express. The kit makes each run's credential up at random, so a case speaks of it only through the
 * `{credential}` placeholder of a gate's reply; each problem is a JSON pointer into the case and what
 * is wrong, reported by the loader at file:line:col.
 */
import type { Case, CaseGate, CaseGateObject } from './types.ts';

type Problem = [pointer: string, message: string];

/** What a case writes where a gate's reply repeats its credential. */
export const CREDENTIAL_PLACEHOLDER = '{credential}';

/** Whether `value` holds the placeholder in any string, at any depth. */
export function mentionsCredential(value: unknown): boolean {
  if (typeof value === 'string') return value.includes(CREDENTIAL_PLACEHOLDER);
  if (Array.isArray(value)) return value.some(mentionsCredential);
  if (value !== null && typeof value === 'object') return Object.values(value).some(mentionsCredential);
  return false;
}

/**
 * A gate's `error_message` or `result` that says `{credential}` belongs to a gate built with one
 * (`credential: true`): anywhere else the placeholder would be sent as it is, and a case meant to see a
 * reply repeating the secret would see none.
 */
export function checkGateCredentials(c: Case, at: string): Problem[] {
  const problems: Problem[] = [];
  const check = (g: CaseGate, where: string): void => {
    if (typeof g === 'string') return;
    // Gates bound for children only (child_gates) are built with the run's credential too.
    (g.child_gates ?? []).forEach((child, k) => check(child, `${where}/child_gates/${k}`));
    if (g.credential === true) return;
    for (const key of ['error_message', 'result'] as const satisfies readonly (keyof CaseGateObject)[]) {
      if (mentionsCredential(g[key])) problems.push([`${where}/${key}`, `'${CREDENTIAL_PLACEHOLDER}' stands for the gate's credential, but gate '${g.name}' has none: add credential: true`]);
    }
  };
  (c.setup.circle?.gates ?? []).forEach((g, j) => check(g, `${at}/setup/circle/gates/${j}`));
  return problems;
}

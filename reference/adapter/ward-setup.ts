import type { ChildLimitsSetup, VerifierSetup } from '../../schemas/index.ts';
import { allowDenyVerifier, argumentsSchemaVerifier, type Verifier } from '../circle/verifiers.ts';
import type { ChildLimits } from '../circle/child-limits.ts';

/**
 * The lineage wards of a case setup (wire names) as the reference's own: verifiers, in the order
 * given, which is their priority order (features `verifier-wards`), and child limits
 * (`child-circle-wards`). Translation only; what they do lives in circle/verifiers.ts and
 * composition/admit-child.ts.
 */
export function toVerifiers(setups: readonly VerifierSetup[] | undefined): Verifier[] {
  return (setups ?? []).map((setup) =>
    setup.kind === 'allow_deny'
      ? allowDenyVerifier(setup.name, { ...(setup.allow ? { allow: setup.allow } : {}), ...(setup.deny ? { deny: setup.deny } : {}) })
      : argumentsSchemaVerifier(setup.name, setup.gate, setup.schema),
  );
}

export function toChildLimits(setup: ChildLimitsSetup | undefined): ChildLimits | undefined {
  if (!setup) return undefined;
  const limits: Record<string, unknown> = {
    mediums: setup.mediums,
    allowGates: setup.allow_gates,
    denyGates: setup.deny_gates,
    maxTurns: setup.max_turns,
    timeoutMs: setup.timeout_ms,
    maxTokens: setup.max_tokens,
    maxDepth: setup.max_depth,
  };
  for (const key of Object.keys(limits)) if (limits[key] === undefined) delete limits[key];
  return Object.freeze(limits) as ChildLimits;
}

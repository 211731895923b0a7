/**
 * What a case's setup and actions need the implementation to offer, read from the setup itself when the
 * case file loads. A hand-written `requires:` list misses what nobody thought of (a delegation gate with a
 * crystal of its own needed `child-crystal` long before any case listed it); the loader adds every feature
 * derived here to the case's `requires`, so the planner skips, with the reason, a case whose setup uses a
 * capability the implementation does not declare (docs/INTERPRETING.md, "Features").
 *
 * Only what a setup unambiguously uses is derived; anything a case needs for its expectations alone
 * (streamed events, a fork strategy) stays in the hand-written list.
 */
import type { Feature } from '../../schemas/adapter.ts';
import { scriptSteps } from './script-steps.ts';
import type { Case, CaseGateObject } from './types.ts';

/** Every gate of the case's circle, as an object. */
function gatesOf(c: Case): CaseGateObject[] {
  return (c.setup.circle?.gates ?? []).map((g) => (typeof g === 'string' ? { name: g } : g));
}

/** The test gates bound for children only (`child_gates` of a delegation gate). */
function childGatesOf(c: Case): CaseGateObject[] {
  return gatesOf(c).flatMap((gate) => (gate.child_gates ?? []).map((g) => (typeof g === 'string' ? { name: g } : g)));
}

const COMPOSITION_GATES = new Set(['call_entity', 'call_entity_batch']);
const FILE_GATES = new Set(['read', 'list_dir', 'write', 'delete']);

/** The features the setup and the actions of `c` use, in {@link FEATURES} order, each once. */
export function setupNeeds(c: Case): Feature[] {
  const needs = new Set<Feature>();
  const s = c.setup;
  if (s.circle?.medium === 'code') needs.add('code-medium');
  for (const gate of gatesOf(c)) {
    if (COMPOSITION_GATES.has(gate.name)) {
      needs.add('composition');
      // COMP-7: a child MAY use a crystal or a call other than its parent's; offering that is optional.
      if (gate.crystal !== undefined && gate.crystal !== s.crystal) needs.add('child-crystal');
      if (gate.call !== undefined) needs.add('child-call');
      // COMP-1 from 0.2.0: gates bound for children beyond the parent's; offering them is optional.
      if (gate.child_gates !== undefined) needs.add('child-gates');
    }
    if (FILE_GATES.has(gate.name)) needs.add(gate.overlay === true || gate.name === 'write' || gate.name === 'delete' ? 'overlay-file-gates' : 'file-gates');
    if (gate.ephemeral === true) needs.add('ephemeral-gates');
    // PROD-8: a gate built with a credential of its own, which the implementation must know is a secret.
    if (gate.credential === true) needs.add('gate-credentials');
  }
  // So does one bound for children only: a child's calls carry it, and it is as much the setup's secret.
  if (childGatesOf(c).some((gate) => gate.credential === true)) needs.add('gate-credentials');
  if (s.folding !== undefined) needs.add('folding');
  if (s.expose_loom === true) needs.add('loom-exposure');
  if (s.circle?.verifiers !== undefined) needs.add('verifier-wards');
  if (s.circle?.child_limits !== undefined) needs.add('child-circle-wards');
  if (s.event_buffer !== undefined || s.consumer !== undefined) needs.add('bounded-events');
  // PROD-2 from 0.2.0: a configured maximum of retries; letting the setup configure it is optional here.
  if (s.retry !== undefined) needs.add('retry-limit');
  for (const action of c.act) {
    // ENTITY-2: accepting an entity id from the caller is optional.
    if ('invoke' in action && typeof action.invoke.entity_id === 'string') needs.add('caller-entity-id');
    // A restart needs a durable loom.
    if ('reopen' in action) needs.add('persistence');
    if ('overlay' in action) needs.add('overlay-file-gates');
    // PROD-6, PROD-7: the implementation run as an ACP agent.
    if ('acp_session' in action || 'acp_prompt' in action) needs.add('acp');
    // PROD-8: the loom's default export and the log output, each offered to the kit only if declared.
    if ('export_loom' in action) needs.add('loom-export');
    if ('logs' in action) needs.add('log-output');
  }
  // LOOM-1 read mid-cast: a step that snapshots the loom needs loom() answered while the cast runs.
  if (scriptSteps(c).some((step) => step.snapshot_loom !== undefined)) needs.add('loom-during-cast');
  return [...needs];
}

/** The hand-written `requires` of `c` followed by every derived need it does not list. */
export function withSetupNeeds(c: Case): Feature[] {
  const listed = c.requires ?? [];
  return [...listed, ...setupNeeds(c).filter((f) => !listed.includes(f))];
}

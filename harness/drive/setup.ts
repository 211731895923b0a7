/**
 * Turns a case's `setup` into the `CantripSetup` given to `Adapter.construct`, and collects what the
 * harness needs to know about it (its test gates, which crystals children use).
 */
import { join } from 'node:path';
import type { CantripSetup, GateSetup } from '../../schemas/adapter.ts';
import { scriptSteps, type CaseCall, type CaseGate, type CaseGateObject, type LoadedCase, type TestGateKind } from '../case-file/index.ts';
import { testGateDefinition, testGateKind } from './test-gates.ts';
import { makeGateCredential, type GateCredential } from './gate-credential.ts';
import { catalogOf } from '../../spec/drafts.ts';

/**
 * Whether a child given no identity speaks with its parent's call in the judged draft. From 0.3.1 on
 * COMP-10 gives it a generic identity of the implementation's own words instead (never the parent's
 * prompt), so its requests lead with a prompt the kit cannot know.
 */
function childInheritsTheCall(draft: string | undefined): boolean {
  return draft === undefined || !catalogOf(draft).rules.some((r) => r.id === 'COMP-10');
}

export interface PreparedSetup {
  setup: CantripSetup;
  testGates: Map<string, CaseGateObject & { kind: TestGateKind }>;
  /** For each crystal name (each lane of a shared crystal: drive/entity-lanes.ts), the system prompts its requests may lead with (CALL-2). */
  promptsByCrystal: Map<string, Set<string | null>>;
  /** Crystals that child entities use (the intent-first invariant is skipped for them). */
  childCrystals: Set<string>;
  /** Feature gate-credentials (PROD-8): the run's credential, when a gate is built with one; random per run. */
  credential?: GateCredential;
  /** Feature acp (PROD-8): the API key the kit handed the ACP agent for its crystal, once an ACP action started it. */
  acp_api_key?: string;
}

/** `filesDir`: where the case's files were written; file gates' roots are resolved against it. */
export function prepareSetup(c: LoadedCase, filesDir?: string): PreparedSetup {
  const s = c.setup;
  // The draft the case is judged at (set by planning): an implementation of several drafts builds that one's cantrip.
  const setup: CantripSetup = c.judged_draft === undefined ? {} : { draft: c.judged_draft };
  if (s.crystal !== undefined) {
    const declared = c.crystals?.[s.crystal];
    setup.crystal = {
      name: s.crystal,
      ...(declared?.context_window !== undefined && { context_window: declared.context_window }),
      ...(declared?.forces_tool_use !== undefined && { forces_tool_use: declared.forces_tool_use }),
    };
  }
  if (s.call !== undefined) setup.call = structuredClone(s.call);
  const testGates = new Map<string, CaseGateObject & { kind: TestGateKind }>();
  const promptsByCrystal = new Map<string, Set<string | null>>();
  const childCrystals = new Set<string>();
  const addPrompt = (crystal: string | undefined, call: CaseCall | undefined): void => {
    if (crystal === undefined) return;
    const set = promptsByCrystal.get(crystal) ?? new Set<string | null>();
    set.add(call?.system_prompt ?? null);
    promptsByCrystal.set(crystal, set);
  };
  addPrompt(s.crystal, s.call);
  /** Where a child's requests are filed: its crystal, or the lanes of that crystal when it is scripted per entity. */
  const childLanes = (crystal: string): string[] => Object.keys(c.crystals?.[crystal]?.by_entity ?? {}).concat(c.crystals?.[crystal]?.by_entity ? [] : [crystal]);
  // A cantrip constructed on another crystal (the swap) speaks with the same call.
  for (const action of c.act) if ('construct' in action && action.construct.crystal !== undefined) addPrompt(action.construct.crystal, s.call);
  // So does a fork continued on another crystal (CALL-4: both branches share the call).
  for (const action of c.act) if ('fork' in action && action.fork.crystal !== undefined) addPrompt(action.fork.crystal, s.call);
  // A gate bound for children only (child_gates) with a credential needs one made up as much as the parent's own.
  const credentialed = (g: CaseGate): boolean => typeof g === 'object' && (g.credential === true || (g.child_gates ?? []).some(credentialed));
  const credential = (s.circle?.gates ?? []).some(credentialed) ? makeGateCredential() : undefined;
  /** A test gate as the adapter gets it; the harness answers its calls (drive/test-gates.ts). */
  const testGateSetup = (gate: CaseGateObject): GateSetup | undefined => {
    const kind = testGateKind(gate);
    if (!kind) return undefined;
    testGates.set(gate.name, { ...gate, kind });
    return {
      name: gate.name,
      test: testGateDefinition(gate.name, kind, gate.parameters),
      ...(gate.ephemeral !== undefined && { ephemeral: gate.ephemeral }),
      ...(gate.credential === true && credential && { credential: credential.value }),
    };
  };
  if (s.circle) {
    const gates: GateSetup[] = s.circle.gates.map((g) => {
      const gate: CaseGateObject = typeof g === 'string' ? { name: g } : g;
      const test = testGateSetup(gate);
      if (test) return test;
      if (gate.name === 'call_entity' || gate.name === 'call_entity_batch') {
        const crystal = gate.crystal ?? s.crystal;
        if (crystal !== undefined) childCrystals.add(crystal);
        // A child without its own call speaks with the parent's (spec 5.1), up to 0.3.1 (COMP-10: a generic one).
        const known = gate.call !== undefined || childInheritsTheCall(c.judged_draft);
        if (crystal !== undefined && known) for (const lane of childLanes(crystal)) addPrompt(lane, gate.call ?? s.call);
        // Feature child-gates: test gates bound for children only (the loader admits nothing else here).
        const childGates = (gate.child_gates ?? []).flatMap((g) => testGateSetup(typeof g === 'string' ? { name: g } : g) ?? []);
        return {
          name: gate.name,
          ...(gate.crystal !== undefined && { crystal: gate.crystal }),
          ...(gate.call !== undefined && { call: gate.call }),
          ...(childGates.length > 0 && { child_gates: childGates }),
        };
      }
      if (gate.name === 'read' || gate.name === 'list_dir' || gate.name === 'write' || gate.name === 'delete') {
        const root = gate.root ?? '.';
        const at = filesDir === undefined ? root : join(filesDir, root);
        if (gate.name === 'write' || gate.name === 'delete') return { name: gate.name, root: at, overlay: true };
        return { name: gate.name, root: at, ...(gate.overlay === true && { overlay: true }) };
      }
      // Feature done-parameters: done presented with the argument schema the case declares.
      return { name: 'done', ...(gate.parameters !== undefined && { parameters: structuredClone(gate.parameters) }) };
    });
    // A case without a medium sends none: the implementation's default is what it is about (MEDIUM-1).
    setup.circle = { ...(s.circle.medium !== undefined && { medium: s.circle.medium }), gates, wards: structuredClone(s.circle.wards ?? {}) };
    if (s.circle.verifiers !== undefined) setup.circle.verifiers = structuredClone(s.circle.verifiers);
    if (s.circle.child_limits !== undefined) setup.circle.child_limits = structuredClone(s.circle.child_limits);
  }
  // COMP-7: a call_entity request may give the child a prompt of its own; it may lead the child's requests too.
  for (const step of scriptSteps(c)) {
    for (const call of step.tool_calls ?? []) {
      const entries = call.gate === 'call_entity' ? [call.args] : call.gate === 'call_entity_batch' ? ((call.args as { intents?: unknown[] } | undefined)?.intents ?? []) : [];
      for (const entry of entries) {
        const prompt = (entry as { system_prompt?: unknown } | undefined)?.system_prompt;
        if (typeof prompt === 'string') for (const crystal of childCrystals) for (const lane of childLanes(crystal)) addPrompt(lane, { system_prompt: prompt });
        // COMP-7 from 0.2.0: a request may name the child's LLM (the `llm` option), a crystal of the case that children query.
        const llm = (entry as { llm?: unknown } | undefined)?.llm;
        if (typeof llm === 'string' && c.crystals?.[llm] !== undefined) {
          childCrystals.add(llm);
          const gate = (s.circle?.gates ?? []).find((g): g is CaseGateObject => typeof g === 'object' && g.name === call.gate);
          if (gate?.call !== undefined || childInheritsTheCall(c.judged_draft)) for (const lane of childLanes(llm)) addPrompt(lane, typeof prompt === 'string' ? { system_prompt: prompt } : (gate?.call ?? s.call));
        }
      }
    }
  }
  if (s.require_done !== undefined) setup.require_done = s.require_done;
  if (s.tool_choice !== undefined) setup.tool_choice = s.tool_choice;
  if (s.folding !== undefined) setup.folding = structuredClone(s.folding);
  if (s.expose_loom !== undefined) setup.expose_loom = s.expose_loom;
  if (s.event_buffer !== undefined) setup.event_buffer = s.event_buffer;
  // Feature retry-limit (PROD-2 from 0.2.0): the configured maximum of retries.
  if (s.retry !== undefined) setup.retry = structuredClone(s.retry);
  return { setup, testGates, promptsByCrystal, childCrystals, ...(credential && { credential }) };
}

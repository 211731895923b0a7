/**
 * Every scripted crystal step of a case, wherever it sits: a crystal's `script` and `by_intent`, and the
 * same in each lane of a shared crystal (`by_entity`). Checks that read all steps (delegated intents,
 * code languages, scripted waits, step snapshots) read them through here, so a lane is never forgotten.
 */
import type { Case, CaseCrystal, EntityLane, ScriptStep } from './types.ts';

/** One step with the JSON pointer of its place in the case (from the case's root), for load errors. */
export interface PlacedStep {
  pointer: string;
  step: ScriptStep;
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The steps of one crystal or lane, its `script` first, each with its pointer under `at`. */
function placedStepsOf(k: CaseCrystal | EntityLane, at: string): PlacedStep[] {
  const script = (k.script ?? []).map((step, i) => ({ pointer: `${at}/script/${i}`, step }));
  const byIntent = Object.entries(k.by_intent ?? {}).flatMap(([intent, steps]) => steps.map((step, i) => ({ pointer: `${at}/by_intent/${escapePointer(intent)}/${i}`, step })));
  return [...script, ...byIntent];
}

/** Every step of every crystal of `c`, lanes included, with where it sits (`/crystals/<name>/...`). */
export function placedSteps(c: Pick<Case, 'crystals'>): PlacedStep[] {
  return Object.entries(c.crystals ?? {}).flatMap(([name, k]) => {
    const at = `/crystals/${escapePointer(name)}`;
    const lanes = Object.entries(k.by_entity ?? {}).flatMap(([lane, l]) => placedStepsOf(l, `${at}/by_entity/${escapePointer(lane)}`));
    return [...placedStepsOf(k, at), ...lanes];
  });
}

/** Every step of every crystal of `c`, lanes included. */
export function scriptSteps(c: Pick<Case, 'crystals'>): ScriptStep[] {
  return placedSteps(c).map((p) => p.step);
}

/** The names the case's steps keep a loom snapshot under (`snapshot_loom`, feature loom-during-cast). */
export function stepSnapshotNames(c: Pick<Case, 'crystals'>): Set<string> {
  return new Set(placedSteps(c).flatMap((p) => (p.step.snapshot_loom === undefined ? [] : [p.step.snapshot_loom])));
}

/** The intents the case's scripted delegation calls ask for (`call_entity` and each `call_entity_batch` entry). */
export function delegatedIntents(c: Pick<Case, 'crystals'>): string[] {
  const intents = new Set<string>();
  for (const step of scriptSteps(c)) {
    for (const call of step.tool_calls ?? []) {
      const args = call.args as { intent?: unknown; intents?: { intent?: unknown }[] } | undefined;
      if (call.gate === 'call_entity' && typeof args?.intent === 'string') intents.add(args.intent);
      if (call.gate === 'call_entity_batch') for (const entry of args?.intents ?? []) if (typeof entry?.intent === 'string') intents.add(entry.intent);
    }
  }
  return [...intents];
}

/**
 * Every scripted crystal step of a case, wherever it sits: a crystal's `script` and `by_intent`, and the
 * same in each lane of a shared crystal (`by_entity`). Checks that read all steps (delegated intents,
 * code languages, scripted waits) read them through here, so a lane is never forgotten.
 */
import type { Case, CaseCrystal, EntityLane, ScriptStep } from './types.ts';

/** The steps of one crystal or lane, its `script` first. */
function stepsOf(k: CaseCrystal | EntityLane): ScriptStep[] {
  return [...(k.script ?? []), ...Object.values(k.by_intent ?? {}).flat()];
}

/** Every step of every crystal of `c`, lanes included. */
export function scriptSteps(c: Pick<Case, 'crystals'>): ScriptStep[] {
  return Object.values(c.crystals ?? {}).flatMap((k) => [...stepsOf(k), ...Object.values(k.by_entity ?? {}).flatMap(stepsOf)]);
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

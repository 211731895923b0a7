/**
 * Small builders the reference's own unit tests share, so no test file grows a private fake.
 * Not used by the implementation itself.
 */
import type { Usage } from '../../schemas/index.ts';
import { createCall } from '../call/call.ts';
import { createCircle } from '../circle/circle.ts';
import { doneGate } from '../circle/done.ts';
import { defineGate, type Gate } from '../circle/gate.ts';
import type { Wards } from '../circle/wards.ts';
import { ScriptedCrystal, type ScriptStep } from '../crystal/scripted.ts';
import type { Crystal } from '../crystal/contract.ts';
import { createCantrip } from '../entity/cantrip.ts';
import type { CantripOptions } from '../entity/cantrip-parts.ts';
import type { Loom } from '../loom/loom.ts';

/** A gate that returns its `text` argument. */
export const echoGate = (): Gate =>
  defineGate(
    { name: 'echo', description: 'Returns the text it is given.', parameters: { type: 'object', properties: { text: { type: 'string' } } } },
    async (args) => args.text,
  );

/** A gate that always throws an error with the given name. */
export const failGate = (name = 'DiskFull'): Gate =>
  defineGate({ name: 'fail', description: 'Always fails.', parameters: { type: 'object' } }, async () => {
    throw Object.assign(new Error('the gate failed on purpose'), { name });
  });

/** A usage record. */
export const usage = (prompt: number, completion = 0, cached = 0): Usage => ({ prompt, completion, cached });

/** A scripted cantrip with done + echo + fail gates unless told otherwise. */
export function scriptedCantrip(
  script: ScriptStep[],
  options: {
    wards?: Wards;
    systemPrompt?: string | null;
    requireDone?: boolean;
    gates?: Gate[];
    loom?: Loom;
    extra?: Partial<CantripOptions>;
    /** Replaces the scripted crystal built from `script` (e.g. a retrying wrapper around one). */
    crystal?: Crystal;
  } = {},
) {
  const crystal = options.crystal ?? new ScriptedCrystal(script);
  const cantrip = createCantrip({
    crystal,
    call: createCall({ systemPrompt: options.systemPrompt === undefined ? 'You are a careful assistant.' : options.systemPrompt, hyperparameters: { temperature: 0.2 } }),
    circle: createCircle({ gates: options.gates ?? [doneGate(), echoGate(), failGate()], wards: options.wards ?? { maxTurns: 10 } }),
    requireDone: options.requireDone ?? false,
    ...(options.loom ? { loom: options.loom } : {}),
    ...options.extra,
  });
  return { crystal: crystal as ScriptedCrystal, cantrip };
}

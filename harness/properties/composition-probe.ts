/**
 * Learns, before any composition scenario is generated, which options of a child request the
 * implementation's `call_entity` takes. The `gates` and `max_turns` options are the kit's (spec 5.1
 * sketches `intent`, `context`, `system_prompt` and `max_depth` only), so an implementation may take
 * neither; a scenario that uses one it lacks could not even be scripted (the harness skips such a
 * case). The probe runs one small case whose parent calls done at once, reads the tool definitions the
 * implementation presented with that request, and asks the harness's own translation of built-in
 * calls (`harness/drive/builtin-arguments.ts`) whether each option has a place there. When nothing can be
 * learned (no tool definitions, the probe failed), every option is drawn and cases that cannot be
 * expressed are discarded one by one.
 */
import type { Description } from '../../schemas/adapter.ts';
import type { LoadedCase } from '../case-file/index.ts';
import { translateBuiltinCall } from '../drive/index.ts';
import { driveCase } from '../drive/index.ts';
import type { AdapterFactory } from '../run/index.ts';
import { GENERATED_FILE } from './build-case.ts';
import { buildCompositionCase } from './composition-case.ts';
import { planComposition } from './composition-model.ts';
import { ALL_CHILD_OPTIONS, type ChildOptions } from './composition-scenario.ts';
import { stretchedForLoad } from '../values/index.ts';

/** What the probe learned, and how. */
export interface CompositionProbe {
  options: ChildOptions;
  /** How the options were settled, for reports and tests. */
  note: string;
}

const PROBE_TIMEOUT_MS = 5_000;

/** The probe's case: the generated composition setup, a parent that calls done at once, no child. */
function probeCase(): LoadedCase {
  const p = planComposition({ batch: false, children: [], counter: true, before: false, max_turns: 3, answer: 'probe' });
  p.parentScript = [{ tool_calls: [{ gate: 'done', args: { answer: 'probe' } }] }];
  const c = buildCompositionCase(p, { id: 'composition-probe', rules: [], description: 'which child-request options call_entity takes' }, [{ path: 'cantrips.main', present: true }]);
  return { ...c, act: [{ cast: { intent: 'probe', as: 'first' } }], position: { file: GENERATED_FILE, line: 0, column: 0 } };
}

async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the probe did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}

/** Which child-request options the implementation's call_entity takes (every one, when that cannot be learned). */
export async function probeComposition(factory: AdapterFactory, description: Description): Promise<CompositionProbe> {
  let adapter: Awaited<ReturnType<AdapterFactory>> | undefined;
  try {
    adapter = await factory();
    const drive = await withTimeout(driveCase(probeCase(), adapter, description), stretchedForLoad(PROBE_TIMEOUT_MS));
    const tools = drive.record.requests.parent?.[0]?.tools;
    if (!tools || !tools.some((t) => t.name === 'call_entity')) return { options: ALL_CHILD_OPTIONS, note: 'no call_entity tool definition was presented: every option is drawn' };
    const takes = (option: Record<string, unknown>): boolean => translateBuiltinCall('call_entity', { intent: 'probe', ...option }, tools, description.builtins).ok;
    const options: ChildOptions = { gates: takes({ gates: ['echo'] }), max_turns: takes({ max_turns: 1 }) };
    const taken = Object.entries(options).filter(([, v]) => v).map(([k]) => k);
    return { options, note: `call_entity takes ${taken.length > 0 ? taken.join(' and ') : 'neither gates nor max_turns'}` };
  } catch (error) {
    return { options: ALL_CHILD_OPTIONS, note: `the probe failed (${error instanceof Error ? error.message : String(error)}): every option is drawn` };
  } finally {
    if (adapter) await withTimeout(adapter.dispose(), 2_000).catch(() => undefined);
  }
}

/**
 * Writes a planned composition scenario in the tests.yaml vocabulary: the parent's circle and script,
 * one `by_intent` list per child in the `child` lane of the parent's crystal (children share it), and one cast. Driven during a property run
 * and printed as the reproducer, like `build-case.ts` does for conversation scenarios. The parent sets
 * `max_depth` itself (a ward that comes with the `composition` feature), so nothing rests on the
 * implementation's default depth.
 */
import type { Case, CaseGate, Expectation, LoadedCase } from '../case-file/index.ts';
import { CRYSTAL, GENERATED_FILE, type CaseHeader } from './build-case.ts';
import { PARENT_INTENT, PARENT_MAX_DEPTH, type CompositionPlan } from './composition-model.ts';

/** The lane of the parent's crystal that every child's requests are placed in (requests.child). */
export const CHILD_CRYSTAL = 'child';

/** The case for a composition plan, with the given header and expectations. */
export function buildCompositionCase(plan: CompositionPlan, header: CaseHeader, expect: Expectation[]): LoadedCase {
  // Children on the parent's crystal (spec 5.1; another crystal is COMP-7's MAY), scripted in a lane of their own.
  const gates: CaseGate[] = ['done', ...plan.parentGates, 'call_entity', 'call_entity_batch'];
  const byIntent = Object.fromEntries(plan.children.filter((c) => c.script.length > 0).map((c) => [c.intent, c.script]));
  const c: Case = {
    id: header.id,
    rules: header.rules,
    level: 'MUST',
    requires: ['composition'],
    description: header.description,
    setup: {
      crystal: CRYSTAL,
      call: {},
      circle: { medium: 'conversation', gates, wards: { max_turns: plan.scenario.max_turns, max_depth: PARENT_MAX_DEPTH } },
      require_done: false,
    },
    crystals: { [CRYSTAL]: { script: plan.parentScript, by_entity: { [CHILD_CRYSTAL]: Object.keys(byIntent).length > 0 ? { by_intent: byIntent } : { script: [] } } } },
    act: [{ cast: { intent: PARENT_INTENT, as: 'first' } }],
    expect,
  };
  return structuredClone({ ...c, position: { file: GENERATED_FILE, line: 0, column: 0 } });
}

/**
 * Writes a planned code scenario in the tests.yaml vocabulary: a code circle with done, echo and fail,
 * one `code: { javascript }` step per crystal turn, and one cast. Driven during a property run and
 * printed as the reproducer, like `build-case.ts` does for conversation scenarios.
 */
import type { Case, Expectation, LoadedCase } from '../case-file/index.ts';
import { CRYSTAL, GENERATED_FILE, type CaseHeader } from './build-case.ts';
import { CODE_INTENT, CODE_LANGUAGE, type CodePlan } from './code-model.ts';

/** The case for a code plan, with the given header and expectations. */
export function buildCodeCase(plan: CodePlan, header: CaseHeader, expect: Expectation[]): LoadedCase {
  const c: Case = {
    id: header.id,
    rules: header.rules,
    level: 'MUST',
    requires: ['code-medium'],
    description: header.description,
    setup: {
      crystal: CRYSTAL,
      call: {},
      circle: { medium: 'code', gates: ['done', 'echo', 'fail'], wards: { max_turns: plan.scenario.max_turns } },
    },
    crystals: { [CRYSTAL]: { script: plan.turns.map((t) => ({ code: { [CODE_LANGUAGE]: t.source } })) } },
    act: [{ cast: { intent: CODE_INTENT, as: 'first' } }],
    expect,
  };
  return structuredClone({ ...c, position: { file: GENERATED_FILE, line: 0, column: 0 } });
}

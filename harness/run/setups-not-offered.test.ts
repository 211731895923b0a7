/**
 * Issue 21, class 2: a setup the implementation does not offer is a case that could not run. What a
 * setup needs is derived from the setup itself when the case file loads (harness/case-file/setup-needs.ts),
 * and a construction refused in a case that is not about construction is reported skipped with the
 * implementation's reason (harness/drive/refused-setup.ts), never as a failure of the case's rules.
 */
import { describe, it, expect } from 'vitest';
import type { CantripSetup, Host, Result } from '../../schemas/adapter.ts';
import { Miniature } from '../../fixtures/miniatures/miniature.ts';
import { loadCaseText } from '../case-file/load.ts';
import { planCases } from '../plan/plan.ts';
import { buildReport } from '../report/report.ts';
import { runSuite } from './run.ts';

const FILE = `format_version: 1
spec_version: 0.1.0-draft
cases:
  - id: child-on-its-own-crystal
    rules: [COMP-7]
    level: MAY
    requires: [composition]
    description: a delegation gate with a crystal of its own
    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done, { name: call_entity, crystal: child }], wards: { max_turns: 3 } } }
    crystals:
      parent: { script: [{ tool_calls: [{ gate: call_entity, args: { intent: sub } }] }, { tool_calls: [{ gate: done, args: { answer: ok } }] }] }
      child: { script: [{ tool_calls: [{ gate: done, args: { answer: c } }] }] }
    act: [{ cast: { intent: go, as: first } }]
    expect: [{ path: outcomes.first.result, equals: ok }]
  - id: echo-then-done
    rules: [CIRCLE-4, LOOP-3]
    level: MUST
    description: a case about gate results, not about construction, with a sampling setting in its call (more than every implementation must build)
    setup: { crystal: parent, call: { hyperparameters: { temperature: 0 } }, circle: { medium: conversation, gates: [done, echo], wards: { max_turns: 3 } } }
    crystals:
      parent: { script: [{ tool_calls: [{ gate: echo, args: { text: a } }] }, { tool_calls: [{ gate: done, args: { answer: z } }] }] }
    act: [{ cast: { intent: go, as: first } }]
    expect:
      - { path: "requests.parent[1].messages[role=tool][0].content", contains: a, rule: CIRCLE-4 }
      - { path: outcomes.first.result, equals: z, rule: LOOP-3 }
  - id: construction-refused-without-done
    rules: [CIRCLE-1]
    level: MUST
    description: a case about construction judges the refusal itself
    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [echo], wards: { max_turns: 3 } } }
    crystals: { parent: { script: [] } }
    act: []
    expect: [{ path: errors.main, present: true }]
`;
const file = loadCaseText(FILE, 'setups.yaml');

/** The conformant variant, but refusing every construction as unsupported (an implementation with a narrower setup). */
class RefusesEverySetup extends Miniature {
  override async construct(_setup: CantripSetup, _host: Host): Promise<Result<{ cantrip: string }>> {
    return { ok: false, error: { code: 'unsupported', message: 'this implementation builds no cantrip of that shape' } };
  }
}

describe('setups the implementation does not offer (issue 21, class 2)', () => {
  it('the loader derives child-crystal from a delegation gate with a crystal of its own; the planner skips the case, naming the feature', async () => {
    const c = file.cases.find((x) => x.id === 'child-on-its-own-crystal')!;
    expect(c.requires).toEqual(['composition', 'child-crystal']);
    const plan = planCases(file.cases, await new Miniature().describe());
    expect(plan.find((p) => p.case.id === c.id)?.skip).toBe('feature not declared: child-crystal');
  });

  it('a construction refused in a case not about construction is skipped with the implementation\'s reason; no failure, no failed rule', async () => {
    const suite = await runSuite(file, () => new RefusesEverySetup(), { filter: ['echo-then-done'] });
    const [result] = suite.cases;
    expect(result).toMatchObject({ id: 'echo-then-done', status: 'skipped', failures: [], failed_rules: [] });
    expect(result!.reason).toContain('not run: the implementation refused to construct');
    expect(result!.reason).toContain('(unsupported)');
    expect(result!.reason).toContain('this implementation builds no cantrip of that shape');
    const report = buildReport(suite);
    expect(report.summary.fail).toBe(0);
    expect(report.summary.skipped).toBe(1);
  });

  it('a case about construction is still judged on the refusal (it can fail and pass)', async () => {
    const refused = await runSuite(file, () => new RefusesEverySetup(), { filter: ['construction-refused-without-done'] });
    expect(refused.cases[0]?.status).toBe('pass');
    // The variant refuses a circle without done too; an implementation that builds it anyway fails the case.
    class BuildsAnything extends Miniature {
      override async construct(): Promise<Result<{ cantrip: string }>> {
        return { ok: true, value: { cantrip: 'c1' } };
      }
    }
    const built = await runSuite(file, () => new BuildsAnything(), { filter: ['construction-refused-without-done'] });
    expect(built.cases[0]).toMatchObject({ status: 'fail', failed_rules: ['CIRCLE-1'] });
  });

  it('going back to failing a refused construction would show: the same case on the variant passes', async () => {
    const suite = await runSuite(file, () => new Miniature(), { filter: ['echo-then-done'] });
    expect(suite.cases[0]?.status).toBe('pass');
  });
});

/**
 * A refused construction the case judges does not stop the drive: the actions that needed the refused
 * cantrip (and those that needed an entity a skipped action would have made) are skipped, with no fault,
 * and the expectations judge what is there (harness/drive/after-refusal.ts). Before, the first cast
 * after such a refusal stopped the drive with a failing problem, so a case that accepts a refusal
 * (`errors.main` present, or what a working cast did) failed every implementation that refused.
 */
import { describe, it, expect } from 'vitest';
import type { CantripSetup, Host, Result } from '../../schemas/adapter.ts';
import { Miniature } from '../../fixtures/miniatures/miniature.ts';
import { loadCaseText } from '../case-file/load.ts';
import { runSuite } from '../run/run.ts';

const FILE = `format_version: 1
spec_version: 0.1.0-draft
cases:
  - id: refused-or-working
    rules: [CIRCLE-2, LOOP-3]
    level: MUST
    description: a setup an implementation may refuse or build; when built, the cast and a send work
    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done], wards: { max_turns: 3 } } }
    crystals:
      parent: { script: [{ tool_calls: [{ gate: done, args: { answer: fine } }] }, { tool_calls: [{ gate: done, args: { answer: again } }] }] }
    act:
      - cast: { intent: go, as: first }
      - send: { entity: first, intent: more, as: second }
    expect:
      - { path: errors.main, any_of: [{ present: true }, { path: outcomes.first.result, equals: fine }], rule: CIRCLE-2 }
      - { path: errors.main, any_of: [{ present: true }, { path: outcomes.second.result, equals: again }], rule: LOOP-3 }
  - id: must-be-built
    rules: [CIRCLE-2]
    level: MUST
    description: a setup that must be built; a refusal fails on the expectations' rule, not as a driving problem
    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done], wards: { max_turns: 3 } } }
    crystals:
      parent: { script: [{ tool_calls: [{ gate: done, args: { answer: fine } }] }] }
    act:
      - cast: { intent: go, as: first }
    expect:
      - { path: errors.main, absent: true, rule: CIRCLE-2 }
      - { path: outcomes.first.result, equals: fine, rule: CIRCLE-2 }
`;
const file = loadCaseText(FILE, 'after-refusal.yaml');

class RefusesEverySetup extends Miniature {
  override async construct(_setup: CantripSetup, _host: Host): Promise<Result<{ cantrip: string }>> {
    return { ok: false, error: { code: 'unsupported', message: 'no cantrip of that shape here' } };
  }
}

describe('actions after a refused construction the case judges (drive/after-refusal.ts)', () => {
  it('a refusal the case accepts passes: the cast and the send on the refused cantrip are skipped, no problem, no query', async () => {
    const suite = await runSuite(file, () => new RefusesEverySetup(), { filter: ['refused-or-working'] });
    expect(suite.cases[0]).toMatchObject({ id: 'refused-or-working', status: 'pass', problems: [], failures: [], expectations: 2 });
  });

  it('the same case on an implementation that builds the setup is judged on the cast and the send', async () => {
    const suite = await runSuite(file, () => new Miniature(), { filter: ['refused-or-working'] });
    expect(suite.cases[0]).toMatchObject({ status: 'pass', problems: [] });
    class AnswersWrongly extends Miniature {
      override async send(entity: string, intent?: string) {
        const result = await super.send(entity, intent);
        return result.ok ? { ok: true as const, value: { ...result.value, result: 'not-again' } } : result;
      }
    }
    const broken = await runSuite(file, () => new AnswersWrongly(), { filter: ['refused-or-working'] });
    expect(broken.cases[0]).toMatchObject({ status: 'fail', failed_rules: ['LOOP-3'] });
  });

  it('a refusal the case does not accept fails on the rules of its expectations, with no driving problem', async () => {
    const suite = await runSuite(file, () => new RefusesEverySetup(), { filter: ['must-be-built'] });
    expect(suite.cases[0]).toMatchObject({ status: 'fail', problems: [], failed_rules: ['CIRCLE-2'] });
    expect(suite.cases[0]!.failures.map((f) => f.path)).toEqual(['errors.main', 'outcomes.first.result']);
  });
});

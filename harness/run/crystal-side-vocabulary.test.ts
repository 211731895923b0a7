/**
 * The case vocabulary added for issue 30 item 3 on the crystal and setup side: a fork asked for by
 * strategy (LOOM-13), a circle given two medium declarations (MEDIUM-1), and a scripted reply carrying a
 * tool the provider ran itself (LLM-7). For each, judged at 0.3.1: the reference passes its case, a
 * purpose-built defect fails it on its rule alone, and an implementation without the optional capability
 * is skipped with the reason, never failed. Runs only these cases, in process.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { problemsOf } from '../testing/case-file-refusals.ts';
import { withReplayRunningGates } from '../../fixtures/lineage/draft-rule-defects.ts';
import { withFirstMediumKept, withProviderResultsAsToolMessages, withToolsKeptByTheIdentity, withTwoMediumsMerged } from '../../fixtures/lineage/crystal-side-defects.ts';
import { adapterFactory, PACKAGE_ROOT } from '../cli/main.ts';
import { loadCaseFile, loadCaseText } from '../case-file/load.ts';
import { runSuite, type AdapterFactory } from './run.ts';
import type { CaseFile } from '../case-file/types.ts';
import type { Adapter, CantripSetup, Host } from '../../schemas/adapter.ts';

/** Only bounds a hang, never a verdict: the code cases start QuickJS workers, slow on a loaded machine. */
const CASE_BOUND_MS = 60_000;
const DRAFT = '0.3.1';

/** An adapter factory whose adapter has some of its methods replaced. */
function overriding(inner: AdapterFactory, override: (adapter: Adapter) => Partial<Adapter>): AdapterFactory {
  return async () => {
    const adapter = await inner();
    return Object.assign(Object.create(adapter) as Adapter, override(adapter));
  };
}

describe('crystal-side case vocabulary (issue 30 item 3)', () => {
  let file: CaseFile;
  let reference: AdapterFactory;
  const run = async (factory: AdapterFactory, id: string) => {
    const suite = await runSuite(file, factory, { filter: [id], draft: DRAFT, timeoutMs: CASE_BOUND_MS });
    const [c] = suite.cases;
    return c!;
  };
  beforeAll(async () => {
    file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
    reference = await adapterFactory('reference', PACKAGE_ROOT);
  });

  describe('LOOM-13: a fork asked for by replay', () => {
    const CASE = 'loom13-asked-replay-fork-injects-recorded-gate-results';

    it('the reference makes the replay fork asked for and passes', async () => {
      const c = await run(reference, CASE);
      expect([c.status, c.failures, c.problems]).toEqual(['pass', [], []]);
    });

    it('replay-fork-runs-gates-again: a replay that runs the recorded gates again fails on LOOM-13 alone', async () => {
      const c = await run(withReplayRunningGates(reference), CASE);
      expect([c.status, c.failed_rules]).toEqual(['fail', ['LOOM-13']]);
    });

    it('an implementation that declares only snapshot forks is skipped, with the reason', async () => {
      const snapshotOnly = overriding(reference, (inner) => ({ describe: async () => ({ ...(await inner.describe()), fork_strategies: ['snapshot'] }) }));
      const c = await run(snapshotOnly, CASE);
      expect([c.status, c.reason]).toEqual(['skipped', 'fork strategy not declared: replay (describe().fork_strategies)']);
    });

    it('a replay fork refused, or made as a snapshot, leaves the case not run, never failed', async () => {
      const refuses = overriding(reference, () => ({ fork: async () => ({ ok: false as const, error: { code: 'unsupported' as const, message: 'no replay here' } }) }));
      const refused = await run(refuses, CASE);
      expect(refused.status).toBe('skipped');
      expect(refused.reason).toMatch(/^not run: the implementation refused a replay fork/);
      // The fork asked for is made, but reported as made another way: what the case is about did not happen.
      const snapshots = overriding(reference, (inner) => ({
        fork: async (turnId, intent, options) => {
          const made = await inner.fork(turnId, intent, options);
          return made.ok ? { ok: true as const, value: { ...made.value, strategy: 'snapshot' as const } } : made;
        },
      }));
      const other = await run(snapshots, CASE);
      expect(other.status).toBe('skipped');
      expect(other.reason).toMatch(/^not run: asked for a replay fork, the implementation made a snapshot fork/);
    });

    it('the reference refuses a replay fork of a conversation circle, which it forks by snapshot; a case reading errors.<as> judges that refusal', async () => {
      const text = `format_version: 1
spec_version: 0.1.0-draft
cases:
  - id: conversation-fork-asked-for-by-replay
    rules: [LOOM-4]
    rules_draft: '0.3.1'
    level: MUST
    requires: [fork]
    description: a conversation fork asked for by replay
    setup:
      crystal: parent
      call: {}
      circle: { medium: conversation, gates: [done, echo], wards: { max_turns: 3 } }
    crystals:
      parent:
        script:
          - tool_calls: [{ gate: echo, args: { text: a } }]
          - tool_calls: [{ gate: done, args: { answer: b } }]
    act:
      - cast: { intent: "Talk, then fork", as: first }
      - fork: { from: { of: first, nth: 1 }, strategy: replay, as: branch }
    expect:
      - { path: errors.branch, present: true }
`;
      const suite = await runSuite(loadCaseText(text, 'inline.yaml'), reference, { draft: DRAFT, timeoutMs: CASE_BOUND_MS });
      expect(suite.cases.map((c) => [c.status, c.failures, c.problems])).toEqual([['pass', [], []]]);
    });
  });

  describe('MEDIUM-1: a circle given two medium declarations', () => {
    const CASE = 'medium1-circle-with-two-mediums-refused-or-one';

    it('the reference refuses the setup at construction', async () => {
      const adapter = await reference();
      const host = {} as Host; // construct calls nothing of it
      const setup: CantripSetup = { draft: DRAFT, crystal: { name: 'parent' }, call: {}, circle: { medium: ['conversation', 'code'], gates: [{ name: 'done' }], wards: { max_turns: 2 } } };
      const built = await adapter.construct(setup, host);
      expect(built.ok ? 'built' : built.error.code).toBe('unsupported');
      const single = await adapter.construct({ ...setup, circle: { ...setup.circle!, medium: 'conversation' } }, host);
      expect(single.ok).toBe(true);
    });

    for (const draft of ['0.2.0', '0.3.1']) {
      it(`the reference passes at ${draft}`, async () => {
        const [c] = (await runSuite(file, reference, { filter: [CASE], draft, timeoutMs: CASE_BOUND_MS })).cases;
        expect([c?.status, c?.failures, c?.problems]).toEqual(['pass', [], []]);
      });
    }

    it('two-mediums-merged: a circle built as both mediums at once fails on MEDIUM-1 alone', async () => {
      const c = await run(withTwoMediumsMerged(reference), CASE);
      expect([c.status, c.failed_rules]).toEqual(['fail', ['MEDIUM-1']]);
    });

    it('a circle built as one of the two declared mediums passes: the other reading', async () => {
      const c = await run(withFirstMediumKept(reference), CASE);
      expect([c.status, c.failures, c.problems]).toEqual(['pass', [], []]);
    });

    it('the loader refuses two mediums in a case that is not about MEDIUM-1 or does not judge the refusal, at the key', () => {
      const bad = readFileSync(join(PACKAGE_ROOT, 'tests.yaml'), 'utf8');
      const start = bad.indexOf(`  - id: ${CASE}\n`);
      const end = bad.indexOf('\n  - id: ', start + 1);
      const one = bad.slice(start, end).replace('rules: [MEDIUM-1]', 'rules: [MEDIUM-2]').replace("- path: errors.main\n        any_of:", '- path: outcomes.first\n        any_of:');
      const problems = problemsOf(`format_version: 1\nspec_version: 0.1.0-draft\ncases:\n${one}\n`);
      const messages = problems.filter((p) => p.pointer === '/cases/0/setup/circle/medium').map((p) => p.message);
      expect(messages).toHaveLength(2);
      expect(problems.find((p) => p.pointer === '/cases/0/setup/circle/medium')?.line).toBeGreaterThan(3);
    });
  });

  describe('LLM-7: a scripted reply carrying a tool the provider ran itself', () => {
    const CASE = 'llm7-provider-run-tool-result-not-sent-unpaired';

    it('the reference, which sends back only its own calls\' results, passes', async () => {
      const c = await run(reference, CASE);
      expect([c.status, c.failures, c.problems]).toEqual(['pass', [], []]);
    });

    it('provider-results-sent-unpaired: the provider\'s results sent back as tool messages with no call before them fail on LLM-7 alone', async () => {
      const c = await run(withProviderResultsAsToolMessages(reference), CASE);
      expect([c.status, c.failed_rules]).toEqual(['fail', ['LLM-7']]);
    });

    it('the loader refuses provider_tools in a case that may run over a wire, at the key', () => {
      const text = readFileSync(join(PACKAGE_ROOT, 'tests.yaml'), 'utf8');
      const start = text.indexOf(`  - id: ${CASE}\n`);
      const one = text.slice(start, text.indexOf('\n  - id: ', start + 1)).replace('    transports: [callback]\n', '');
      const problems = problemsOf(`format_version: 1\nspec_version: 0.1.0-draft\ncases:\n${one}\n`);
      const at = problems.filter((p) => p.pointer === '/cases/0/crystals/parent/script/0/provider_tools');
      expect(at).toHaveLength(1);
      expect(at[0]!.line).toBeGreaterThan(3);
    });
  });

  describe('IDENTITY-3: the same identity in a circle with other gates', () => {
    const CASE = 'identity3-same-identity-in-another-circle-offers-that-circles-gates';

    for (const draft of ['0.2.0', '0.3.1']) {
      it(`the reference presents each circle's own gates and passes at ${draft}`, async () => {
        const [c] = (await runSuite(file, reference, { filter: [CASE], draft, timeoutMs: CASE_BOUND_MS })).cases;
        expect([c?.status, c?.failures, c?.problems]).toEqual(['pass', [], []]);
      });
    }

    it('tools-kept-by-the-identity: gate definitions presented from the identity\'s first copy fail on IDENTITY-3 alone', async () => {
      const c = await run(withToolsKeptByTheIdentity(reference), CASE);
      expect([c.status, c.failed_rules]).toEqual(['fail', ['IDENTITY-3']]);
    });

    it('the loader refuses a construct that keeps a gate the setup lacks, or leaves out done, at the key', () => {
      const text = readFileSync(join(PACKAGE_ROOT, 'tests.yaml'), 'utf8');
      const start = text.indexOf(`  - id: ${CASE}\n`);
      const one = text.slice(start, text.indexOf('\n  - id: ', start + 1)).replace('gates: [done, counter] }', 'gates: [fetch] }');
      const problems = problemsOf(`format_version: 1\nspec_version: 0.1.0-draft\ncases:\n${one}\n`);
      expect(problems.filter((p) => p.pointer === '/cases/0/act/1/construct/gates')).toHaveLength(2);
    });
  });
});

/**
 * Issue 31, item 5: the implementation's evaluation deadline never decides a code case about something
 * else. A code case that sets no deadline gets one stretched for the machine's load when the
 * implementation declares the ward; the cases about the deadline keep theirs; an implementation without
 * the ward still runs the case, as it was.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Adapter, CantripSetup, Description } from '../../schemas/adapter.ts';
import { createReferenceAdapter } from '../../reference/adapter/index.ts';
import { loadCaseFile, loadCaseText } from '../case-file/load.ts';
import type { LoadedCase } from '../case-file/index.ts';
import { planCases } from '../plan/index.ts';
import { PACKAGE_ROOT } from '../cli/main.ts';
import { describeAdapter, runCase } from './run.ts';
import { ROOMY_EVAL_DEADLINE_MS, withRoomyEvalDeadline } from './eval-deadline.ts';

const CASES = `format_version: 1
spec_version: 0.1.0-draft
cases:
  - id: code-state-kept
    rules: [CIRCLE-9]
    level: MUST
    requires: [code-medium]
    description: a variable set on one turn is read on the next
    setup: { crystal: parent, call: {}, circle: { medium: code, gates: [done], wards: { max_turns: 3 } } }
    crystals:
      parent:
        script:
          - code: { javascript: "var kept = 'k';" }
          - code: { javascript: "done(kept);" }
    act: [{ cast: { intent: go, as: first } }]
    expect:
      - { path: outcomes.first.result, equals: k, rule: CIRCLE-9 }
  - id: code-program-of-300-ms
    rules: [CIRCLE-9]
    level: MUST
    requires: [code-medium]
    description: a program that spins 300 ms of wall clock, then a turn that reads what it set
    setup: { crystal: parent, call: {}, circle: { medium: code, gates: [done], wards: { max_turns: 3 } } }
    crystals:
      parent:
        script:
          - code: { javascript: "var t = Date.now(); while (Date.now() - t < 300) {} var kept = 'k';" }
          - code: { javascript: "done(kept);" }
    act: [{ cast: { intent: go, as: first } }]
    expect:
      - { path: outcomes.first.result, equals: k, rule: CIRCLE-9 }
  - id: conversing
    rules: [LOOP-3]
    level: MUST
    description: a conversation circle
    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done], wards: { max_turns: 2 } } }
    crystals:
      parent:
        script:
          - tool_calls: [{ gate: done, args: { answer: over } }]
    act: [{ cast: { intent: go, as: first } }]
    expect:
      - { path: outcomes.first.result, equals: over, rule: LOOP-3 }
`;
const [codeCase, slowCodeCase, conversationCase] = loadCaseText(CASES).cases as [LoadedCase, LoadedCase, LoadedCase];
const declaring = { wards: ['eval_timeout_ms'] } as Description;
const notDeclaring = { wards: ['timeout_ms'] } as Description;

/**
 * The reference, with its description changed by `describe`, every setup it is asked to construct kept in
 * `seen` (as it arrived), and a setup changed by `adjust` before it is built.
 */
function recording(seen: CantripSetup[], describe: (d: Description) => Description = (d) => d, adjust: (s: CantripSetup) => CantripSetup = (s) => s): () => Adapter {
  return () => {
    const inner = createReferenceAdapter();
    return new Proxy(inner, {
      get(target, key, receiver) {
        if (key === 'describe') return async () => describe(await target.describe());
        if (key === 'construct') return (setup: CantripSetup, host: Parameters<Adapter['construct']>[1]) => (seen.push(setup), target.construct(adjust(setup), host));
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
  };
}

describe('the evaluation deadline of a code case not about it (issue 31, item 5)', () => {
  it('a code case without a deadline gets the roomy one, stretched by the load, when the ward is declared', () => {
    expect(withRoomyEvalDeadline(codeCase, declaring, 1).setup.circle?.wards).toEqual({ max_turns: 3, eval_timeout_ms: ROOMY_EVAL_DEADLINE_MS });
    expect(withRoomyEvalDeadline(codeCase, declaring, 9).setup.circle?.wards?.eval_timeout_ms).toBe(ROOMY_EVAL_DEADLINE_MS * 9);
  });

  it('nothing changes without the ward declared, for a conversation case, or for a case that sets its own deadline', () => {
    expect(withRoomyEvalDeadline(codeCase, notDeclaring, 9)).toBe(codeCase);
    expect(withRoomyEvalDeadline(codeCase, { wards: undefined } as unknown as Description, 9)).toBe(codeCase);
    expect(withRoomyEvalDeadline(conversationCase, declaring, 9)).toBe(conversationCase);
    // A conversation parent of code children neither: an implementation may refuse a code ward there.
    const parentOfCodeChildren = { ...conversationCase, requires: ['code-medium' as const] };
    expect(withRoomyEvalDeadline(parentOfCodeChildren, declaring, 9)).toBe(parentOfCodeChildren);
    const kit = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml')).cases;
    const aboutTheDeadline = kit.filter((c) => ['medium4-eval-deadline-stops-a-long-program', 'code-infinite-loop-becomes-an-observation', 'ward2-child-asking-a-looser-eval-deadline-gets-the-parents'].includes(c.id));
    expect(aboutTheDeadline).toHaveLength(3);
    for (const c of aboutTheDeadline) {
      expect(c.setup.circle?.wards?.eval_timeout_ms).toBe(500);
      expect(withRoomyEvalDeadline(c, declaring, 9)).toBe(c);
    }
    // Every other code-circle case of the kit sets none, so each gets the roomy deadline (a conversation
    // parent of code children keeps the implementation's own, as above).
    const others = kit.filter((c) => c.setup.circle?.medium === 'code' && !aboutTheDeadline.includes(c));
    expect(others.length).toBeGreaterThan(10);
    for (const c of others) expect(withRoomyEvalDeadline(c, declaring, 9).setup.circle?.wards?.eval_timeout_ms, c.id).toBe(ROOMY_EVAL_DEADLINE_MS * 9);
  });

  it('the deadline reaches the implementation: the reference is asked to build the code circle with it', async () => {
    const seen: CantripSetup[] = [];
    const factory = recording(seen);
    const result = await runCase(codeCase, factory, await describeAdapter(factory));
    expect(result.status).toBe('pass');
    expect(seen[0]?.circle?.wards.eval_timeout_ms).toBeGreaterThanOrEqual(ROOMY_EVAL_DEADLINE_MS);
  });

  it('an implementation that does not declare the ward still runs the case, with no deadline set by the kit', async () => {
    const seen: CantripSetup[] = [];
    const factory = recording(seen, (d) => ({ ...d, wards: (d.wards ?? []).filter((w) => w !== 'eval_timeout_ms') }));
    const description = await describeAdapter(factory);
    expect(planCases([codeCase], description)[0]?.skip).toBeUndefined();
    const result = await runCase(codeCase, factory, description);
    expect(result.status).toBe('pass');
    expect(seen[0]?.circle?.wards.eval_timeout_ms).toBeUndefined();
  });

  it('an implementation whose own deadline is too short for a program (as a loaded machine makes it) passes once the kit sets one', async () => {
    // A 50 ms default deadline against a 300 ms program stands for the reference's 2 s against a program
    // slowed down by a busy machine: without the kit's deadline the first turn is cut and the case fails.
    const seen: CantripSetup[] = [];
    const tightByDefault = (s: CantripSetup): CantripSetup =>
      s.circle && s.circle.wards.eval_timeout_ms === undefined ? { ...s, circle: { ...s.circle, wards: { ...s.circle.wards, eval_timeout_ms: 50 } } } : s;
    const factory = recording(seen, (d) => d, tightByDefault);
    const result = await runCase(slowCodeCase, factory, await describeAdapter(factory));
    expect(result.status).toBe('pass');
  });
});

/**
 * Issue 21, "attribution is exact": a run that leaves its script is reported under the rule whose
 * sentence was broken, as a driving fault (harness/drive/mock-crystal.ts, harness/drive/course.ts), and
 * what the case's expectations read after it are its consequences. Each test runs a small case whose
 * expectations speak for another rule, on the conformant variant (it passes) and on a miniature with one
 * defect (it fails under the fault's rule only). Going back to blaming the case's own rules fails them.
 */
import { describe, it, expect } from 'vitest';
import { Miniature, type Defect } from '../../fixtures/miniatures/miniature.ts';
import { loadCaseText } from '../case-file/load.ts';
import { ambientChecks } from '../report/ambient-checks.ts';
import { buildReport } from '../report/report.ts';
import { renderMarkdown } from '../report/markdown.ts';
import { MockCrystals, OutcomeWatch } from '../drive/index.ts';
import type { CrystalRequest } from '../../schemas/records.ts';
import { failedRulesOf, runSuite, type CaseResult } from './run.ts';
import { rootCauses } from '../report/root-causes.ts';
import { consequenceOf, pathsRead } from '../judge/index.ts';
import { loadCaseFile } from '../case-file/load.ts';
import { PACKAGE_ROOT } from '../cli/main.ts';
import { join } from 'node:path';
import type { Turn } from '../../schemas/records.ts';
import { loomRewrite } from '../properties/test-adapters.ts';
import type { AdapterFactory } from './index.ts';

/** One case of a file, with the given rules, setup extras, crystal script and expectations. */
function caseFile(id: string, rules: string[], body: string): string {
  return `format_version: 1
spec_version: 0.1.0-draft
cases:
  - id: ${id}
    rules: [${rules.join(', ')}]
    level: MUST
    requires: []
    description: a case whose expectations speak for ${rules.join(', ')}
${body}`;
}

async function runOn(text: string, defect?: Defect): Promise<{ result: CaseResult; ambientRules: string[] }> {
  const suite = await runSuite(loadCaseText(text, 'departures.yaml'), () => new Miniature(defect));
  const result = suite.cases[0]!;
  const ambientRules = ambientChecks(suite.cases).flatMap((check) => check.findings.flatMap((f) => f.rules));
  return { result, ambientRules };
}

/** Passes on the variant, fails on the defect under exactly `rules`, though every expectation names the case's own rule. */
async function expectAttributed(text: string, defect: Defect, rules: string[]): Promise<void> {
  expect((await runOn(text)).result).toMatchObject({ status: 'pass', failed_rules: [] });
  const { result } = await runOn(text, defect);
  expect(result.status).toBe('fail');
  expect(result.failed_rules).toEqual(rules);
  // The expectations did fail (they read the run after it left its script): their own rules are not blamed.
  expect(result.failures.length).toBeGreaterThan(0);
}

const TWO_CASTS = (rules: string[]) =>
  caseFile(
    'second-cast-reads-the-first-casts-steps',
    rules,
    `    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done, echo], wards: { max_turns: 3 } } }
    crystals:
      parent:
        script:
          - tool_calls: [{ gate: done, args: { answer: one } }]
          - tool_calls: [{ gate: echo, args: { text: two } }]
          - tool_calls: [{ gate: done, args: { answer: two } }]
    act:
      - cast: { intent: "first job", as: a }
      - cast: { intent: "second job", as: b }
    expect:
      - { path: outcomes.b.result, equals: two }
      - { path: "requests.parent[1].messages[role=user][*].content", not_contains: "first job" }
`,
  );

describe('a run that leaves its script is a finding under the rule it broke (issue 21)', () => {
  it('LOOP-3 (and CIRCLE-8): a query after a reply whose done call must be accepted, even while the script still has steps for a later cast', async () => {
    await expectAttributed(TWO_CASTS(['CANTRIP-2']), 'ignores-done', ['LOOP-3', 'CIRCLE-8']);
  });

  it('LOOP-4 and CIRCLE-6: a cast that comes back terminated after max_turns replies that each made a turn without ending it', async () => {
    const text = caseFile(
      'a-later-cast-after-the-cap',
      ['ENTITY-2'],
      `    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done, echo], wards: { max_turns: 1 } } }
    crystals:
      parent:
        script:
          - tool_calls: [{ gate: echo, args: { text: one } }]
          - tool_calls: [{ gate: done, args: { answer: two } }]
    act:
      - cast: { intent: "first job", as: a }
      - cast: { intent: "second job", as: b }
    expect:
      - { path: outcomes.a.status, equals: truncated }
      - { path: outcomes.b.result, equals: two }
`,
    );
    await expectAttributed(text, 'off-by-one-max-turns', ['LOOP-4', 'CIRCLE-6']);
  });

  it('LOOP-6: a cast under require_done that comes back terminated on a text-only reply', async () => {
    const text = caseFile(
      'text-then-done-under-require-done',
      ['LOOP-1'],
      `    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done], wards: { max_turns: 3 } }, require_done: true }
    crystals:
      parent:
        script:
          - content: "Thinking aloud."
          - tool_calls: [{ gate: done, args: { answer: ok } }]
    act: [{ cast: { intent: "think", as: first } }]
    expect:
      - { path: "requests.parent[1].messages[-1].role", not_equals: assistant }
      - { path: outcomes.first.result, equals: ok }
`,
    );
    await expectAttributed(text, 'text-ends-loop-despite-require-done', ['LOOP-6']);
  });

  it('CRYSTAL-5: a cast under tool_choice required on a crystal that cannot force it, ended by a text-only reply', async () => {
    const text = caseFile(
      'forced-then-a-second-cast',
      ['CRYSTAL-1'],
      `    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done], wards: { max_turns: 3 } }, tool_choice: required }
    crystals:
      parent:
        forces_tool_use: false
        script:
          - content: "Just talking."
          - tool_calls: [{ gate: done, args: { answer: forced } }]
          - tool_calls: [{ gate: done, args: { answer: second } }]
    act:
      - cast: { intent: "first job", as: a }
      - cast: { intent: "second job", as: b }
    expect:
      - { path: outcomes.b.result, equals: second }
`,
    );
    expect((await runOn(text)).result).toMatchObject({ status: 'pass', failed_rules: [] });
    // The script moves on past the first cast's unserved step (issue 29): the second cast is answered from its own, and judged.
    const { result } = await runOn(text, 'forcing-not-simulated');
    expect(result).toMatchObject({ status: 'fail', failed_rules: ['CRYSTAL-5'], failures: [], judged_rules: ['CRYSTAL-1'] });
  });

  it('ENTITY-1: turns of an entity no action produced and no delegation could have spawned; the checks that group turns by entity are not judged', async () => {
    const text = caseFile(
      'two-turns-of-one-cast',
      ['LOOM-10'],
      `    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done, echo], wards: { max_turns: 3 } } }
    crystals:
      parent:
        script:
          - tool_calls: [{ gate: echo, args: { text: one } }]
          - tool_calls: [{ gate: done, args: { answer: two } }]
    act: [{ cast: { intent: "job", as: first } }]
    expect:
      - { path: "loom.cast(first)", length: 2 }
`,
    );
    await expectAttributed(text, 'turns-under-a-stray-entity', ['ENTITY-1']);
    const { result, ambientRules } = await runOn(text, 'turns-under-a-stray-entity');
    expect(result.invariants.filter((i) => i.id === 'alternation' || i.id === 'terminal-state').map((i) => i.status)).toEqual(['skipped', 'skipped']);
    expect(ambientRules).not.toContain('LOOM-7');
  });

  it('CANTRIP-2 and ENTITY-2: a cast that comes back with the entity an earlier cast produced', async () => {
    const text = caseFile(
      'usage-of-a-second-cast',
      ['PROD-3'],
      `    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done], wards: { max_turns: 3 } } }
    crystals:
      parent:
        script:
          - tool_calls: [{ gate: done, args: { answer: one } }]
          - tool_calls: [{ gate: done, args: { answer: two } }]
    act:
      - cast: { intent: "first job", as: a }
      - cast: { intent: "second job", as: b }
    expect:
      - { path: outcomes.b.usage, equals: { prompt: 10, completion: 5, cached: 0 } }
`,
    );
    await expectAttributed(text, 'shared-state-between-casts', ['CANTRIP-2', 'ENTITY-2']);
  });

  it('INTENT-2: a request that carries no intent of the case, where the script keyed by intent has nothing for it', async () => {
    const text = caseFile(
      'keyed-by-intent',
      ['CANTRIP-2'],
      `    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done, echo], wards: { max_turns: 3 } } }
    crystals:
      parent:
        by_intent:
          "first job":
            - tool_calls: [{ gate: echo, args: { text: one } }]
            - tool_calls: [{ gate: done, args: { answer: one } }]
    act: [{ cast: { intent: "first job", as: a } }]
    expect:
      - { path: outcomes.a.result, equals: one }
`,
    );
    await expectAttributed(text, 'later-requests-drop-the-send-intent', ['INTENT-2']);
  });

  it('a request handed something before its intent is still answered from its intent\'s script: the case passes, INTENT-2 is the ambient finding', async () => {
    const text = caseFile(
      'keyed-by-intent-with-a-preamble',
      ['CANTRIP-2'],
      `    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done], wards: { max_turns: 3 } } }
    crystals:
      parent:
        by_intent:
          "first job": [{ tool_calls: [{ gate: done, args: { answer: one } }] }]
    act: [{ cast: { intent: "first job", as: a } }]
    expect:
      - { path: outcomes.a.result, equals: one }
`,
    );
    const { result, ambientRules } = await runOn(text, 'intent-not-first');
    expect(result).toMatchObject({ status: 'pass', failed_rules: [] });
    expect(ambientRules).toEqual(['INTENT-2']);
  });

  it('in the report, the case\'s own rule is neither failed nor passed by a run that left its script; the rule the fault names fails', async () => {
    const suite = await runSuite(loadCaseText(TWO_CASTS(['CANTRIP-2']), 'departures.yaml'), () => new Miniature('ignores-done'));
    const status = new Map(buildReport(suite).rules.map((r) => [r.id, r.status]));
    expect([status.get('LOOP-3'), status.get('CIRCLE-8')]).toEqual(['fail', 'fail']);
    // Its only case read a run that was no longer its own: no evidence for CANTRIP-2 either way.
    expect(status.get('CANTRIP-2')).toBe('skipped');
    // report.md lists the driving problem first, then the expectations as read after it.
    const [result] = suite.cases;
    const md = renderMarkdown(buildReport(suite));
    const section = md.slice(md.indexOf(`### ${result!.id}`));
    const problemAt = section.indexOf(result!.problems[0]!);
    const expectationAt = section.indexOf(`\`${result!.failures[0]!.path}\``);
    expect(problemAt).toBeGreaterThan(0);
    expect(expectationAt).toBeGreaterThan(problemAt);
  });

  it('LOOM-7: a turn stored that did not happen (an empty one after the turn cap) is the fault; the turn counts and flags the case reads of the loom are its consequences', async () => {
    const text = caseFile(
      'capped-cast-read-from-the-loom',
      ['CIRCLE-6', 'LOOP-4'],
      `    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done, echo], wards: { max_turns: 2 } } }
    crystals:
      parent:
        script:
          - tool_calls: [{ gate: echo, args: { text: one } }]
          - tool_calls: [{ gate: echo, args: { text: two } }]
    act: [{ cast: { intent: "loop on", as: first } }]
    expect:
      - { path: outcomes.first.status, equals: truncated, rule: LOOP-4 }
      - { path: "loom.cast(first)", length: 2, rule: CIRCLE-6 }
      - { path: "loom.cast(first)[-1].truncated", equals: true, rule: LOOP-4 }
`,
    );
    await expectAttributed(text, 'empty-turn-after-the-cap', ['LOOM-7']);
    // The loom's chain and terminal flags are not judged on that loom either: no ambient finding under LOOP-1 or LOOM-7's check.
    expect((await runOn(text, 'empty-turn-after-the-cap')).ambientRules).toEqual([]);
  });

  it('LOOM-1: a served reply whose turn was never written is the fault, not LOOP-6 whose flags the case reads of the loom', async () => {
    const text = caseFile(
      'text-turn-under-require-done',
      ['LOOP-6'],
      `    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done], wards: { max_turns: 3 } }, require_done: true }
    crystals:
      parent:
        script:
          - { content: "thinking aloud" }
          - tool_calls: [{ gate: done, args: { answer: fine } }]
    act: [{ cast: { intent: "finish properly", as: first } }]
    expect:
      - { path: outcomes.first.result, equals: fine }
      - { path: "loom.cast(first)[*].terminated", equals: [false, true] }
`,
    );
    await expectAttributed(text, 'text-turns-not-recorded', ['LOOM-1']);
  });

  it('a departure of the loom leaves what the case reads elsewhere judged: a failed outcome still blames its own rule', () => {
    const loomFault = { rules: ['LOOM-7'], departs: ['loom' as const] };
    const failures = [
      { path: 'loom.cast(first)', matcher: 'length', ok: false, expected: { length: 2 }, rule: 'CIRCLE-6' },
      { path: 'outcomes.first.status', matcher: 'equals', ok: false, expected: { equals: 'truncated' }, rule: 'LOOP-4' },
    ];
    expect(failedRulesOf({ rules: ['CIRCLE-6', 'LOOP-4'] }, failures, [loomFault])).toEqual(['LOOM-7', 'LOOP-4']);
    // A departure of the whole run (the script's replies went astray) leaves nothing judged.
    expect(failedRulesOf({ rules: ['CIRCLE-6', 'LOOP-4'] }, failures, [{ rules: ['LOOP-3'] }])).toEqual(['LOOP-3']);
    // Every path an expectation reads counts: the one a same_as compares with, one inside any_of.
    expect(consequenceOf(pathsRead({ path: 'requests.parent[0]', same_as: 'threads.x[0]' }), [loomFault])).toEqual([loomFault]);
    expect(consequenceOf(pathsRead({ path: 'errors.a', any_of: [{ present: true }, { path: 'loom.turns', length: 1 }] }), [loomFault])).toEqual([loomFault]);
    expect(consequenceOf(pathsRead({ path: 'requests.parent[0]', same_as: 'outcomes.a.result' }), [loomFault])).toEqual([]);
  });

  it('a cast that ended before its script did: the script moves on to the next action, whose outcome and requests counted from the end are still judged', () => {
    const departed = { rules: ['CRYSTAL-5'], departs: [{ action: 'first', lane: 'parent', through: 0 }] };
    const counts = { requestsIn: () => 2 };
    const judged = (e: unknown): boolean => consequenceOf(pathsRead(e), [departed], counts).length === 0;
    expect(judged({ path: 'outcomes.second.result', equals: 'second' })).toBe(true);
    expect(judged({ path: 'requests.parent[-1]', same_as: 'requests.parent[0]' })).toBe(true);
    // What the departed action came back with, the loom, a request counted from the start past the departure, and every request together are not.
    expect(judged({ path: 'outcomes.first.result', equals: 'forced' })).toBe(false);
    expect(judged({ path: 'loom.cast(second)', length: 1 })).toBe(false);
    expect(judged({ path: 'requests.parent[1]', same_as: 'requests.parent[0]' })).toBe(false);
    expect(judged({ path: 'requests.parent', length: 3 })).toBe(false);
    expect(judged({ path: 'requests.parent[-2]', same_as: 'requests.parent[0]' })).toBe(false);
  });

  it('CRYSTAL-1 is judged in crystal1-simulated-forcing-leaves-no-trace-on-the-next-cast though the forcing was not brought about (CRYSTAL-5)', async () => {
    const file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
    const only = { ...file, cases: file.cases.filter((c) => c.id === 'crystal1-simulated-forcing-leaves-no-trace-on-the-next-cast') };
    // Forcing not simulated: the first cast ends on text; the second is still answered from its own step, and its first request judged against the first's.
    const suite = await runSuite(only, () => new Miniature('forcing-not-simulated'));
    const [result] = suite.cases;
    expect(result).toMatchObject({ status: 'fail', failed_rules: ['CRYSTAL-5'], judged_rules: ['CRYSTAL-1'] });
    expect(new Map(buildReport(suite).rules.map((r) => [r.id, r.status])).get('CRYSTAL-1')).toBe('pass');
    // A reminder kept into the next cast is still CRYSTAL-1 broken, whether or not the forcing departed.
    const leaking = (await runSuite(only, () => new Miniature('forcing-reminder-outlives-the-query'))).cases[0]!;
    expect(leaking.failed_rules).toEqual(['CRYSTAL-1']);
  });

  it('CALL-4: a loom with no call turn is the fault; what reads the call turn (CALL-3\'s record, LOOM-2\'s link) is its consequence, the rest still judged', async () => {
    const text = caseFile(
      'call-record-and-root',
      ['CALL-3', 'LOOM-2'],
      `    setup: { crystal: parent, call: { system_prompt: "Rooted." }, circle: { medium: conversation, gates: [done, echo], wards: { max_turns: 3 } } }
    crystals:
      parent:
        script:
          - tool_calls: [{ gate: echo, args: { text: a } }]
          - tool_calls: [{ gate: done, args: { answer: b } }]
    act: [{ cast: { intent: "Grow from the root", as: first } }]
    expect:
      - { path: "loom.turns[role=call][0].call.system_prompt", equals: "Rooted.", rule: CALL-3 }
      - { path: "loom.cast(first)[0].parent_id", same_as: "loom.turns[role=call][0].id", rule: LOOM-2 }
      - { path: "loom.cast(first)[1].parent_id", same_as: "loom.cast(first)[0].id", rule: LOOM-2 }
`,
    );
    expect((await runOn(text)).result).toMatchObject({ status: 'pass', failed_rules: [] });
    const { result } = await runOn(text, 'no-call-turn');
    expect(result).toMatchObject({ status: 'fail', failed_rules: ['CALL-4'], judged_rules: [] });
    expect(result.failures.map((f) => [f.rule, f.consequence])).toEqual([
      ['CALL-3', true],
      ['LOOM-2', true],
    ]);
  });

  it('INTENT-2: a send whose intent reaches the crystal only composed with an earlier one is the fault; what the case reads of those requests is its consequence, the outcomes still judged', async () => {
    const text = caseFile(
      'two-sends-to-one-entity',
      ['ENTITY-5', 'LOOP-5'],
      `    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done], wards: { max_turns: 2 } } }
    crystals:
      parent:
        script:
          - tool_calls: [{ gate: done, args: { answer: one } }]
          - tool_calls: [{ gate: done, args: { answer: two } }]
    act:
      - invoke: { as: chat }
      - send: { entity: chat, intent: "first goal", as: one }
      - send: { entity: chat, intent: "second goal", as: two }
    expect:
      - { path: "requests.parent[1].messages", contains: { role: user, content: "second goal" }, rule: LOOP-5 }
      - { path: "requests.parent[1].messages", contains: { role: user, content: "first goal" }, rule: ENTITY-5 }
      - { path: outcomes.two.result, equals: two, rule: ENTITY-5 }
`,
    );
    await expectAttributed(text, 'sends-composed-into-one-intent', ['INTENT-2']);
  });

  it('INTENT-1: a send given no intent that queries anyway is judged by the case\'s own expectations, not blamed on INTENT-2', async () => {
    const text = caseFile(
      'send-with-no-intent',
      ['INTENT-1'],
      `    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done], wards: { max_turns: 2 } } }
    crystals:
      parent: { script: [] }
    act:
      - invoke: { as: chat }
      - send: { entity: chat, as: empty }
    expect:
      - { path: errors.empty, present: true }
      - { path: requests.parent, absent: true }
`,
    );
    expect((await runOn(text)).result).toMatchObject({ status: 'pass', failed_rules: [] });
    const { result } = await runOn(text, 'send-without-intent-accepted');
    expect(result.status).toBe('fail');
    expect(result.failed_rules).toEqual(['INTENT-1']);
  });

  it('root causes: a failure a departure did not touch is a cause of its own; its consequences are not', async () => {
    const text = caseFile(
      'capped-cast-with-a-judged-outcome',
      ['CIRCLE-6', 'LOOP-4'],
      `    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done, echo], wards: { max_turns: 1 } } }
    crystals:
      parent:
        script:
          - tool_calls: [{ gate: echo, args: { text: one } }]
    act: [{ cast: { intent: "loop on", as: first } }]
    expect:
      - { path: "loom.cast(first)", length: 1, rule: CIRCLE-6 }
      - { path: outcomes.first.status, equals: terminated, rule: LOOP-4 }
`,
    );
    const { result } = await runOn(text, 'empty-turn-after-the-cap');
    expect(result.failed_rules).toEqual(['LOOM-7', 'LOOP-4']);
    expect(result.failures.map((f) => [f.path, f.consequence])).toEqual([
      ['loom.cast(first)', true],
      ['outcomes.first.status', false],
    ]);
    expect(rootCauses([result]).map((c) => [c.kind, c.rules])).toEqual([
      ['expectation', ['LOOP-4']],
      ['problem', ['LOOM-7']],
    ]);
  });

  it('LOOP-4 and CIRCLE-6: a second query after a ward decided the outcome (one is a summary)', async () => {
    const request = (intent: string): CrystalRequest => ({ messages: [{ role: 'user', content: intent }] });
    const watch = new OutcomeWatch({ crystal: 'p', wards: { max_turns: 1 }, childCrystals: new Set(), childTurnCaps: new Map() }, () => 0);
    const crystals = new MockCrystals({ p: { script: [{ content: 'turn' }] } }, {}, async () => undefined, watch);
    crystals.beginAction(0);
    for (let i = 0; i < 3; i++) await crystals.query('p', request('one'));
    expect(crystals.faults.map((f) => f.rules)).toEqual([['LOOP-4', 'CIRCLE-6']]);
  });

  describe('LOOM-7 or not: a turn with no utterance and no gate call record, standing for a reply that had content', () => {
    // One gate call, then done: the echo turn is the one rewritten; the expectations read the outcome only.
    const text = caseFile(
      'thin-turn-for-a-gate-call',
      ['CIRCLE-3'],
      `    setup: { crystal: parent, call: {}, circle: { medium: conversation, gates: [done, echo], wards: { max_turns: 3 } } }
    crystals:
      parent:
        script:
          - tool_calls: [{ gate: echo, args: { text: kept } }]
          - tool_calls: [{ gate: done, args: { answer: fine } }]
    act: [{ cast: { intent: "echo then finish", as: first } }]
    expect:
      - { path: outcomes.first.result, equals: fine }
      - { path: gates.echo.calls, length: 1 }
`,
    );
    /** The echo turn stored with no utterance and no gate call records; `observation` decides what it keeps instead. */
    const echoTurnThinned = (observation: (t: Turn) => string) =>
      loomRewrite((turns) => turns.map((t) => (t.gate_calls?.some((r) => r.gate === 'echo') ? { ...t, utterance: '', gate_calls: [], observation: observation(t) } : t)))(async () => new Miniature());
    const run = async (factory: AdapterFactory) => (await runSuite(loadCaseText(text, 'thin-turn.yaml'), factory)).cases[0]!;

    it('a turn keeping only its observation (the gate results) happened: no LOOM-7 finding (§6.1 requires no utterance or gate_calls of a turn, LOOM-1 only that it is kept)', async () => {
      const result = await run(echoTurnThinned((t) => t.observation));
      expect({ status: result.status, failed_rules: result.failed_rules }).toEqual({ status: 'pass', failed_rules: [] });
    });

    it('a turn keeping nothing at all, though its reply made a gate call, is still a turn that did not happen (LOOM-7)', async () => {
      const result = await run(echoTurnThinned(() => ''));
      expect({ status: result.status, failed_rules: result.failed_rules }).toEqual({ status: 'fail', failed_rules: ['LOOM-7'] });
    });
  });
});

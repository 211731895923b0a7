/**
 * Departures in code circles (issue 29, item 4). The drive finds where a run left its script
 * (harness/drive/course.ts) in code circles as in conversation ones: an extra turn stored after the cap
 * (LOOM-7), a program turn never written (LOOM-1), a cap that let one more turn through (LOOP-4,
 * CIRCLE-6). Each test runs a small code case whose expectations speak for other rules on the reference
 * (it passes) and on the reference with one departure (fixtures/lineage/code-departures.ts): the case
 * fails under the departure's rule only. Going back to judging conversation circles alone blames the
 * case's own rules. A loom with no call turn (CALL-4) and a send's intent composed with earlier ones
 * (INTENT-2) were already found whatever the medium (from the loom's roles and from the requests); their
 * tests here show it.
 */
import { describe, it, expect } from 'vitest';
import type { Adapter } from '../../schemas/adapter.ts';
import { createReferenceAdapter } from '../../reference/adapter/index.ts';
import { withCodeDeparture, type CodeDeparture } from '../../fixtures/lineage/code-departures.ts';
import { loadCaseText } from '../case-file/load.ts';
import { runSuite, type CaseResult } from './run.ts';
import type { AdapterFactory } from './index.ts';
import { hangBound } from '../testing/hang-bound.ts';

// A sandbox starts per case; on a loaded machine that can take seconds.
const TIMEOUT_MS = 60_000;

function caseFile(id: string, rules: string[], body: string): string {
  return `format_version: 1
spec_version: 0.1.0-draft
cases:
  - id: ${id}
    rules: [${rules.join(', ')}]
    level: MUST
    requires: [code-medium]
    description: a code case whose expectations speak for ${rules.join(', ')}
${body}`;
}

const reference: AdapterFactory = async () => createReferenceAdapter() as Adapter;

/** Judged at 0.1.0, the draft the cases' rule ids are written in (the reference declares every draft). */
async function runOn(text: string, factory: AdapterFactory): Promise<CaseResult> {
  const suite = await runSuite(loadCaseText(text, 'code-departures.yaml'), factory, { timeoutMs: TIMEOUT_MS, draft: '0.1.0' });
  return suite.cases[0]!;
}

/** Passes on the reference; fails with the departure under exactly `rules`, though its expectations name the case's own rules and did fail. */
async function expectAttributed(text: string, defect: CodeDeparture, rules: string[]): Promise<void> {
  expect(await runOn(text, reference)).toMatchObject({ status: 'pass', failed_rules: [] });
  const result = await runOn(text, withCodeDeparture(defect));
  expect({ status: result.status, failed_rules: result.failed_rules }).toEqual({ status: 'fail', failed_rules: rules });
  expect(result.failures.length).toBeGreaterThan(0);
}

describe('departures in code circles are found under the rule they break', () => {
  it('LOOM-7: an empty turn stored after the cap; the turn count and flags the case reads of the loom are its consequences', async () => {
    const text = caseFile(
      'capped-code-cast-read-from-the-loom',
      ['CIRCLE-6', 'LOOP-4'],
      `    setup: { crystal: parent, call: {}, circle: { medium: code, gates: [done, echo], wards: { max_turns: 2 } } }
    crystals:
      parent:
        script:
          - code: { javascript: "echo('one');" }
          - code: { javascript: "echo('two');" }
    act: [{ cast: { intent: "loop on in code", as: first } }]
    expect:
      - { path: outcomes.first.status, equals: truncated, rule: LOOP-4 }
      - { path: "loom.cast(first)", length: 2, rule: CIRCLE-6 }
      - { path: "loom.cast(first)[-1].truncated", equals: true, rule: LOOP-4 }
`,
    );
    await expectAttributed(text, 'code-empty-turn-after-the-cap', ['LOOM-7']);
  }, hangBound(3 * TIMEOUT_MS));

  it('LOOM-1: a program turn never written; the flags the case reads of the loom are its consequences', async () => {
    const text = caseFile(
      'code-turns-read-from-the-loom',
      ['LOOP-3'],
      `    setup: { crystal: parent, call: {}, circle: { medium: code, gates: [done, echo], wards: { max_turns: 3 } } }
    crystals:
      parent:
        script:
          - code: { javascript: "echo('one');" }
          - code: { javascript: "done('fine');" }
    act: [{ cast: { intent: "echo then finish in code", as: first } }]
    expect:
      - { path: outcomes.first.result, equals: fine }
      - { path: "loom.cast(first)[*].terminated", equals: [false, true] }
`,
    );
    await expectAttributed(text, 'code-turn-not-recorded', ['LOOM-1']);
  }, hangBound(3 * TIMEOUT_MS));

  it('LOOP-4 and CIRCLE-6: a code cast that comes back terminated after max_turns programs that never call done', async () => {
    const text = caseFile(
      'a-later-code-cast-after-the-cap',
      ['ENTITY-2'],
      `    setup: { crystal: parent, call: {}, circle: { medium: code, gates: [done, echo], wards: { max_turns: 1 } } }
    crystals:
      parent:
        script:
          - code: { javascript: "echo('one');" }
          - code: { javascript: "done('two');" }
    act:
      - cast: { intent: "first job", as: a }
      - cast: { intent: "second job", as: b }
    expect:
      - { path: outcomes.a.status, equals: truncated }
      - { path: outcomes.b.result, equals: two }
`,
    );
    await expectAttributed(text, 'code-cap-one-turn-late', ['LOOP-4', 'CIRCLE-6']);
  }, hangBound(3 * TIMEOUT_MS));

  it('CALL-4: a code loom with no call turn; what reads the call turn is its consequence', async () => {
    const text = caseFile(
      'code-call-record-and-root',
      ['CALL-3', 'LOOM-2'],
      `    setup: { crystal: parent, call: { system_prompt: "Rooted." }, circle: { medium: code, gates: [done, echo], wards: { max_turns: 3 } } }
    crystals:
      parent:
        script:
          - code: { javascript: "echo('a');" }
          - code: { javascript: "done('b');" }
    act: [{ cast: { intent: "Grow from the root in code", as: first } }]
    expect:
      - { path: "loom.turns[role=call][0].call.system_prompt", equals: "Rooted.", rule: CALL-3 }
      - { path: "loom.cast(first)[0].parent_id", same_as: "loom.turns[role=call][0].id", rule: LOOM-2 }
      - { path: "loom.cast(first)[1].parent_id", same_as: "loom.cast(first)[0].id", rule: LOOM-2 }
`,
    );
    await expectAttributed(text, 'code-no-call-turn', ['CALL-4']);
  }, hangBound(3 * TIMEOUT_MS));

  it('INTENT-2: a send to a code entity whose intent reaches the crystal composed with the earlier one; what the case reads of those requests is its consequence', async () => {
    const text = caseFile(
      'two-sends-to-one-code-entity',
      ['ENTITY-5', 'LOOP-5'],
      `    setup: { crystal: parent, call: {}, circle: { medium: code, gates: [done], wards: { max_turns: 2 } } }
    crystals:
      parent:
        script:
          - code: { javascript: "done('one');" }
          - code: { javascript: "done('two');" }
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
    await expectAttributed(text, 'code-sends-composed-into-one-intent', ['INTENT-2']);
  }, hangBound(3 * TIMEOUT_MS));
});

/**
 * The kit as an ACP client (feature `acp`, PROD-6, PROD-7), end to end: the cases of tests.yaml run
 * against the reference's ACP agent (issue 24's Must show: initialize, two prompts in one session, the
 * second seeing the first), and against the small purpose-built agents of fixtures/acp/, each broken in
 * one way and failing on its own rule only.
 *
 * Every agent is a real process started from describe().acp, on a crystal served over HTTP. Each case
 * bounds itself (its timeout_ms, and the client's start-up and request bounds); a bound reached errors
 * the case, which these tests then report as not passing, never as a verdict on speed.
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withSmallAcpAgent, type AcpDefect } from '../../fixtures/acp/defects.ts';
import { createReferenceAdapter } from '../../reference/adapter/index.ts';
import type { Adapter } from '../../schemas/adapter.ts';
import { loadCaseFile, type LoadedCase } from '../case-file/index.ts';
import { caseForDraft } from '../plan/index.ts';
import { hangBound } from '../testing/hang-bound.ts';
import { runCase, type CaseResult } from '../run/index.ts';
import { driveCase } from './index.ts';
import { buildReport } from '../report/index.ts';

const SUITE = loadCaseFile(resolve(import.meta.dirname, '../../tests.yaml'));
/** PROD-6 and PROD-7 are rules of the drafts from 0.2.0 on: each case as the newest draft judges it. */
const JUDGED = '0.3.1';
const byId = (id: string): LoadedCase => {
  const found = SUITE.cases.find((c) => c.id === id);
  const planned = found && caseForDraft(found, JUDGED);
  if (!planned) throw new Error(`tests.yaml has no case ${id} applying to draft ${JUDGED}`);
  return planned;
};
const FLOW = byId('acp-core-session-flow');
const CONTINUITY = byId('acp-session-keeps-its-conversation');
const FORMS = byId('acp-prompt-in-the-usual-client-forms');

/** Room for the two or three agent starts a test makes (each case bounds itself), stretched with the machine's load. */
const TEST_MS = hangBound(150_000);

async function run(c: LoadedCase, adapter: () => Adapter): Promise<CaseResult> {
  const probe = adapter();
  const description = await probe.describe();
  await probe.dispose();
  return runCase(c, adapter, description);
}

describe('the kit drives an implementation as an ACP client (PROD-6, PROD-7)', () => {
  it('Must show: against the reference, initialize, two prompts in one session, and the second prompt reaches the crystal with the first in its context', { timeout: TEST_MS }, async () => {
    const adapter = createReferenceAdapter();
    try {
      const description = await adapter.describe();
      expect(description.features).toContain('acp');
      const drive = await driveCase(CONTINUITY, adapter, description);
      const { acp, acp_sessions, acp_prompts } = drive.record;
      expect(drive.faults).toEqual([]);
      expect(acp.initialize?.protocolVersion).toBe(1);
      const sessionId = acp_sessions.session?.session_id;
      expect(sessionId).toMatch(/\S/);
      expect(acp_prompts.first?.session_id).toBe(sessionId);
      expect(acp_prompts.second?.session_id).toBe(sessionId);
      expect(acp_prompts.other?.session_id).not.toBe(sessionId);
      for (const name of ['first', 'second']) {
        expect(acp_prompts[name]?.stop_reason).toBe('end_turn');
        expect(acp_prompts[name]?.kinds).toContain('agent_message_chunk');
      }
      expect(acp_prompts.second?.texts).toContain('The code word was heliotrope.');
      // The follow-up's request carries the first exchange: its prompt and the answer given to it.
      const followUp = JSON.stringify(acp_prompts.second?.requests[0]?.messages);
      expect(followUp).toContain('Remember the code word heliotrope.');
      expect(followUp).toContain('Noted: the code word is heliotrope.');
      expect(acp_prompts.second?.requests[0]?.messages.at(-1)).toMatchObject({ role: 'user', content: 'What was the code word I gave you?' });
      // The other session starts afresh.
      expect(JSON.stringify(acp_prompts.other?.requests[0]?.messages)).not.toContain('heliotrope');
      expect(acp.update_problems).toEqual([]);
      expect(acp.client_requests).toEqual([]);
    } finally {
      await adapter.dispose();
    }
  });

  it('the reference passes the three ACP cases as the run judges them', { timeout: TEST_MS }, async () => {
    for (const c of [FLOW, CONTINUITY, FORMS]) {
      const result = await run(c, () => createReferenceAdapter());
      expect({ id: c.id, status: result.status, reason: result.reason, problems: result.problems }).toEqual({ id: c.id, status: 'pass', reason: undefined, problems: [] });
    }
  });

  it(`the small agent, which reads its prompt only from ACP's own text blocks, fails ${FORMS.id} (PROD-6's SHOULD) on both other forms`, { timeout: TEST_MS }, async () => {
    const result = await run(FORMS, () => withSmallAcpAgent(createReferenceAdapter(), 'correct'));
    expect([result.status, result.failed_rules, result.level]).toEqual(['fail', FORMS.rules, 'SHOULD']);
    expect(result.failures.map((f) => f.path)).toEqual([
      'acp_prompts.under_content.stop_reason',
      'acp_prompts.under_content.requests[0].messages[*].content',
      'acp_prompts.bare_string.stop_reason',
      'acp_prompts.bare_string.requests[0].messages[*].content',
    ]);
  });

  const verdicts: [AcpDefect, string, string][] = [
    // A correct small agent passes both: what fails below is the defect, not the small agent.
    ['correct', 'pass', 'pass'],
    ['forgetful', 'pass', 'fail'],
    ['silent', 'fail', 'pass'],
  ];
  for (const [defect, flow, continuity] of verdicts) {
    it(`the ${defect} small agent: ${FLOW.id} ${flow}, ${CONTINUITY.id} ${continuity}`, { timeout: TEST_MS }, async () => {
      const adapter = () => withSmallAcpAgent(createReferenceAdapter(), defect);
      const results = [await run(FLOW, adapter), await run(CONTINUITY, adapter)];
      expect(results.map((r) => [r.id, r.status])).toEqual([
        [FLOW.id, flow],
        [CONTINUITY.id, continuity],
      ]);
      // A failure is the case's own rule only.
      for (const r of results) expect(r.failed_rules).toEqual(r.status === 'fail' ? r.rules : []);
      // None of them says the key it was handed (PROD-8's ambient check looks through all it sent).
      for (const r of results) expect([r.id, r.invariants.find((i) => i.id === 'secret-kept-out')?.status]).toEqual([r.id, 'pass']);
    });
  }

  it('the small agent that streams the key it was handed in a session update passes both cases on their own rules and fails PROD-8 alone', { timeout: TEST_MS }, async () => {
    const adapter = () => withSmallAcpAgent(createReferenceAdapter(), 'leaks-key');
    const results = [await run(FLOW, adapter), await run(CONTINUITY, adapter)];
    expect(results.map((r) => [r.id, r.status, r.failed_rules])).toEqual([
      [FLOW.id, 'pass', []],
      [CONTINUITY.id, 'pass', []],
    ]);
    for (const r of results) {
      const failing = r.invariants.filter((i) => i.status === 'fail');
      expect(failing.map((i) => [i.id, i.rules])).toEqual([['secret-kept-out', ['PROD-8']]]);
      // Found where it was streamed: the prompt's updates and the agent's messages as sent.
      expect(failing[0]!.detail).toContain('acp_prompts.first.updates');
      expect(failing[0]!.detail).toContain('acp.inbound');
    }
    const description = await adapter().describe();
    const report = buildReport({ description, file: 'tests.yaml', spec_version: JUDGED, draft: JUDGED, format_version: 1, started_at: new Date().toISOString(), duration_ms: 1, cases: results });
    expect(report.ambient_checks.filter((a) => a.status === 'fail').flatMap((a) => a.findings.map((f) => f.rules))).toEqual([['PROD-8']]);
  });
});

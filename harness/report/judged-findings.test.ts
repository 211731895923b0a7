/**
 * No finding of a report is dropped (issue 29, item 4). A schema problem is attributed to its rule when
 * the report reads an invariant's cause (schema-rules.ts, in the kit's 0.1.0 ids: `/call/**` is CALL-4, a
 * response with neither text nor gate calls CRYSTAL-3, a malformed tool call CRYSTAL-4). In a report
 * judged at 0.3.1 those ids are no rule of the draft, so before the fix such a finding counted in no
 * level and named no rule of the report: it was silently gone. Each must show under the judged draft's
 * id (spec/README.md: CALL-4 is IDENTITY-4, CRYSTAL-3 is LLM-3, CRYSTAL-4 is LLM-4), in the ambient
 * checks, the rules and the MUST verdict, also when an older report.json has its ambient checks rebuilt.
 */
import { describe, expect, it } from 'vitest';
import type { CaseResult, SuiteResult } from '../run/run.ts';
import { schemaCause } from '../judge/schema-rules.ts';
import { mapRuleId } from '../../spec/drafts.ts';
import { assertReportValid, buildReport } from './report.ts';
import { readReport } from './format.ts';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const turnCause = schemaCause('turn', [{ pointer: '/call/system_prompt', keyword: 'type' }]);
const requestCause = schemaCause('crystal-request', [{ pointer: '/messages/2/tool_calls/0/id', keyword: 'type' }]);
const responseCause = schemaCause('crystal-response', [{ pointer: '/tool_calls', keyword: 'minItems' }]);

/** A case that passed its own expectations and fails one ambient invariant with `cause`. */
const showing = (id: string, invariant: string, cause: string, status: CaseResult['status'] = 'pass'): CaseResult => ({
  id,
  rules: ['LOOP-3'],
  level: 'MUST',
  requires: [],
  description: id,
  status,
  duration_ms: 1,
  failures: [],
  expectations: 1,
  invariants: [{ id: invariant, rules: ['LOOM-2'], status: 'fail', detail: `${invariant} broke: ${cause}`, cause }],
  problems: [],
  failed_rules: status === 'fail' ? ['LOOP-3'] : [],
  position: { file: 'tests.yaml', line: 1, column: 1 },
});

const suiteAt = (draft: string, cases: CaseResult[]): SuiteResult => ({
  description: { name: 'impl', version: '1', spec_version: draft, protocol_version: 1, features: [], drafts: [draft] },
  file: 'tests.yaml',
  spec_version: draft,
  draft,
  format_version: 1,
  started_at: '2026-01-01T00:00:00.000Z',
  duration_ms: 10,
  cases,
});

const cases = [showing('a', 'turn-schema', turnCause), showing('b', 'request-schema', requestCause), showing('c', 'wire-format', responseCause)];

describe('a 0.3.1 report keeps every finding, under the 0.3.1 id of the rule it breaks', () => {
  it('the map says which ids these are', () => {
    expect(['CALL-4', 'CRYSTAL-3', 'CRYSTAL-4'].map((id) => mapRuleId(id, '0.1.0', '0.3.1'))).toEqual(['IDENTITY-4', 'LLM-3', 'LLM-4']);
  });

  it('ambient findings name IDENTITY-4, LLM-4 and LLM-3, fail MUST and show in the rules', () => {
    const report = buildReport(suiteAt('0.3.1', cases));
    assertReportValid(report);
    const findings = report.ambient_checks.flatMap((c) => c.findings.map((f) => [c.id, f.rules]));
    expect(findings).toEqual([
      ['turn-schema', ['IDENTITY-4']],
      ['request-schema', ['LLM-4']],
      ['wire-format', ['LLM-3']],
    ]);
    expect(report.verdict.MUST.ambient_findings).toBe(3);
    expect(report.verdict.MUST.status).toBe('fail');
    const failedByAmbient = (id: string) => report.rules.find((r) => r.id === id)?.failed_by_ambient;
    expect([failedByAmbient('IDENTITY-4'), failedByAmbient('LLM-4'), failedByAmbient('LLM-3')]).toEqual([['turn-schema'], ['request-schema'], ['wire-format']]);
    // No finding is left naming only ids the judged draft does not have.
    const known = new Set(report.rules.map((r) => r.id));
    expect(report.ambient_checks.flatMap((c) => c.findings).filter((f) => !f.rules.some((r) => known.has(r)))).toEqual([]);
  });

  it('a report.json written before ambient checks were recorded gets them rebuilt in its own draft', () => {
    const report = buildReport(suiteAt('0.3.1', cases)) as unknown as Record<string, unknown>;
    delete report['ambient_checks'];
    const file = join(mkdtempSync(join(tmpdir(), 'judged-findings-')), 'report.json');
    writeFileSync(file, JSON.stringify(report));
    expect(readReport(file).ambient_checks.flatMap((c) => c.findings.flatMap((f) => f.rules))).toEqual(['IDENTITY-4', 'LLM-4', 'LLM-3']);
  });

  it('at 0.1.0 the same findings keep their own ids', () => {
    const report = buildReport(suiteAt('0.1.0', cases));
    expect(report.ambient_checks.flatMap((c) => c.findings.flatMap((f) => f.rules))).toEqual(['CALL-4', 'CRYSTAL-4', 'CRYSTAL-3']);
  });
});

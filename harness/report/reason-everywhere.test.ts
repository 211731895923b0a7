/**
 * A schema failure's reason in every format (issue 31.2): the console, report.md's failure lines,
 * summary.md and junit.xml carry which field failed and why (`/sequence: is required`), not just "does
 * not match schema:"; an enum failure names the allowed values; a case's listed causes in junit and in
 * `diff` show the case's own values, not the grouping key's placeholders.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { Miniature } from '../../fixtures/miniatures/miniature.ts';
import type { Adapter } from '../../schemas/adapter.ts';
import { validate, formatProblems } from '../../schemas/loader.ts';
import { loadCaseFile, PACKAGE_ROOT } from '../case-file/index.ts';
import { runSuite } from '../run/index.ts';
import { buildReport, type Report } from './report.ts';
import { caseSummaryLines, renderMarkdown } from './markdown.ts';
import { renderJobSummary } from './summary.ts';
import { renderJUnit } from './junit.ts';
import { diffReports, renderDiffText } from './diff.ts';
import { readFileSync } from 'node:fs';
import { ProtocolError, RemoteError } from '../../schemas/protocol/connection.ts';
import { thrownReason } from '../run/run.ts';
import { keywordOfMessage } from '../judge/schema-rules.ts';

const CASE = 'thread-is-the-root-to-leaf-path';

/** The conformant miniature whose thread() leaves out each turn's sequence: a schema failure of the turn record. */
function withoutSequence(): Adapter {
  const m = new Miniature();
  const thread = m.thread.bind(m);
  m.thread = async (leaf) => {
    const r = await thread(leaf);
    if (!r.ok) return r;
    return { ok: true, value: { turns: r.value.turns.map((t) => Object.fromEntries(Object.entries(t).filter(([k]) => k !== 'sequence')) as typeof t) } };
  };
  return m;
}

let failing: Report;
let passing: Report;
beforeAll(async () => {
  const loaded = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
  // The suite's own cases no longer check whole records against a schema where no rule asks for every
  // field (issue 29), but a case file may: this copy of the thread case checks each turn of the path
  // against the turn schema, the schema failure whose reason every format must carry.
  const thread = loaded.cases.find((c) => c.id === CASE)!;
  const file = { ...loaded, cases: [{ ...thread, expect: [...thread.expect, { path: 'threads.path[*]', every: { schema: 'turn' }, rule: 'LOOM-2' }] }] };
  failing = buildReport(await runSuite(file, withoutSequence, { filter: [CASE] }));
  passing = buildReport(await runSuite(file, () => new Miniature(), { filter: [CASE] }));
});

describe('the reason of a schema failure', () => {
  it('is on the console, in report.md, summary.md and junit.xml', () => {
    expect(failing.cases[0]!.status).toBe('fail');
    const reason = /does not match schema: \/sequence: is required/;
    expect(caseSummaryLines(failing).join('\n')).toMatch(reason);
    // The grouped headline too: the values are clipped, never the reason.
    expect(caseSummaryLines(failing).filter((l) => / × \[LOOM-2\]/.test(l))).toEqual([expect.stringMatching(reason)]);
    expect(renderMarkdown(failing)).toMatch(reason);
    expect(renderJobSummary(failing)).toMatch(reason);
    const junit = renderJUnit(failing);
    expect(junit).toMatch(/\/sequence: is required/);
    // The case's listed problems in junit carry its own values, not the group's placeholders.
    const problems = junit.split('\n').filter((l) => /^\s+problem \d+:/.test(l));
    expect(problems.length).toBeGreaterThan(0);
    for (const line of problems) expect(line).not.toMatch(/\[#\]|'…'|"…"/);
  });

  it('names the allowed values of an enum', () => {
    const checked = validate('turn', { id: 't', parent_id: null, cantrip_id: 'c', entity_id: 'e', role: 'assistant', sequence: 1, utterance: '', observation: '', gate_calls: [], metadata: { tokens_prompt: 0, tokens_completion: 0, tokens_cached: 0, duration_ms: 0, timestamp: '2026-01-01T00:00:00Z' }, reward: null, terminated: false, truncated: false });
    expect(checked.ok).toBe(false);
    const text = checked.ok ? '' : formatProblems(checked.problems);
    expect(text).toContain('"crystal"');
    expect(text).toContain('"call"');
    // Root causes read the keyword back from the wording: the new wording still reads as enum.
    if (!checked.ok) for (const p of checked.problems.filter((x) => x.keyword === 'enum' || x.keyword === 'const')) expect(keywordOfMessage(p.message)).toBe(p.keyword);
    expect(keywordOfMessage('must be equal to "x"')).toBe('const');
    expect(keywordOfMessage('must be null')).toBe('type');
  });

  it("diff lists a new failure's causes in the case's own values", () => {
    const text = renderDiffText(diffReports(passing, failing));
    expect(text).toMatch(/\/sequence: is required/);
    expect(text).not.toMatch(/element \[#\]/);
  });
});

describe('jargon said plainly or explained', () => {
  it("an errored case's reason says what a protocol error means and points to where it is explained", () => {
    expect(thrownReason(new ProtocolError('bad line'))).toContain('(ProtocolError)');
    expect(thrownReason(new ProtocolError('bad line'))).toContain('docs/adapter-protocol.md');
    expect(thrownReason(new RemoteError('fork', -32601, 'nope'))).toContain('(RemoteError)');
    expect(thrownReason(new ProtocolError('bad line'))).not.toMatch(/^adapter threw/);
    const words = readFileSync(join(PACKAGE_ROOT, 'docs/reports.md'), 'utf8').split('## Words in reports')[1]?.split('\n## ')[0] ?? '';
    for (const term of ['left its script', 'ProtocolError', 'RemoteError', 'errored', 'ambient check', 'stale', 'xfail', 'outside the draft']) expect(words, term).toContain(term);
  });
});


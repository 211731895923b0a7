/**
 * The last two things the kit kept without a bound (issue 32, item 3): an ACP agent's requests to the
 * client and its messages, and the crystal server's copies of request bodies. Each is bounded per case;
 * past the bound the case is still judged on what was kept, and its result names the bound reached
 * (`limits_reached`), which the report prints as "truncated after N".
 */
import { request } from 'node:http';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withSmallAcpAgent } from '../../fixtures/acp/defects.ts';
import { createReferenceAdapter } from '../../reference/adapter/index.ts';
import { AcpClient, fillLaunch, MAX_CLIENT_REQUESTS_KEPT } from '../adapters/index.ts';
import { loadCaseFile } from '../case-file/index.ts';
import { startCrystalServer, type CrystalServer } from '../crystal-server/index.ts';
import { caseForDraft } from '../plan/index.ts';
import { buildReport } from '../report/index.ts';
import { renderMarkdown } from '../report/markdown.ts';
import { runCase, type CaseResult, type SuiteResult } from '../run/index.ts';
import { hangBound } from '../testing/hang-bound.ts';
import { incompleteCase } from '../vitest/conformance.ts';
import type { KitLimitReached } from './kit-limits.ts';
import { MAX_REQUEST_CHARS_KEPT, MockCrystals } from './mock-crystal.ts';
import { OutcomeWatch } from './outcome-watch.ts';
import { noteServerLimits } from './wire.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const SMALL_AGENT = resolve(ROOT, 'fixtures/acp/small-agent.ts');
const FINE = { ok: true as const, response: { content: 'All done.', usage: { prompt: 1, completion: 1, cached: 0 } } };

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function post(server: CrystalServer, text: string): Promise<number> {
  const body = JSON.stringify({ model: 'main', messages: [{ role: 'user', content: text }] });
  const response = await fetch(`${server.baseUrl('openai')}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${server.apiKey}` }, body });
  await response.text();
  return response.status;
}

describe("the crystal server's copies of request bodies", () => {
  it('are kept up to a count: later requests are still answered, their bodies not kept, and the case notes the bound (still judged)', async () => {
    const server = await startCrystalServer({ answer: async () => FINE, crystals: ['main'], maxBodiesKept: 2 });
    cleanups.push(() => server.close());
    for (const text of ['one', 'two', 'three']) expect(await post(server, text)).toBe(200);
    expect(server.exchanges.map((e) => e.body.includes('"content"'))).toEqual([true, true, false]);
    expect(server.exchanges[2]?.body_not_kept).toBeGreaterThan(0);
    expect(server.exchanges[2]?.request).toBeUndefined();
    const state = { limits: [] as KitLimitReached[], faults: [] };
    noteServerLimits(state, server);
    expect(state).toEqual({ limits: [{ kind: 'request_bodies', bound: 2, seen: 3, judged: true }], faults: [] });
  });

  it('are kept up to a total size: a body that would go past it is not kept', async () => {
    const server = await startCrystalServer({ answer: async () => FINE, crystals: ['main'], maxBodyBytesKept: 5_000 });
    cleanups.push(() => server.close());
    expect(await post(server, 'x'.repeat(3_000))).toBe(200);
    expect(await post(server, 'y'.repeat(3_000))).toBe(200);
    expect(await post(server, 'z')).toBe(200);
    expect(server.exchanges.map((e) => e.body_not_kept === undefined)).toEqual([true, false, true]);
    expect(server.bodiesKept).toMatchObject({ kept: 2, notKept: 1 });
  });
});

describe("the mock crystals' copies of the requests (what a case's expectations read)", () => {
  it('keep at most their bound in characters: every request is answered, and past the bound the case is errored, once', async () => {
    const watch = new OutcomeWatch({ crystal: 'main', wards: {}, childCrystals: new Set(), childTurnCaps: new Map() }, () => 0);
    const mocks = new MockCrystals({ main: { script: [{ content: 'one' }, { content: 'two' }, { content: 'three' }] } }, {}, async () => undefined, watch);
    mocks.beginAction(0);
    const big = { messages: [{ role: 'user' as const, content: 'x'.repeat(MAX_REQUEST_CHARS_KEPT / 2) }] };
    const answers = [];
    for (let n = 0; n < 3; n++) answers.push(await mocks.query('main', big));
    expect(answers.map((a) => (a.ok ? a.response.content : a.error.message))).toEqual(['one', 'two', 'three']);
    expect(mocks.queries.map((q) => q.request.messages.length)).toEqual([1, 0, 0]);
    expect(mocks.faults.filter((f) => f.kind === 'error')).toHaveLength(1);
    expect(mocks.limits).toEqual([{ kind: 'crystal_requests', bound: MAX_REQUEST_CHARS_KEPT, seen: expect.any(Number) as number, judged: false }]);
    expect(mocks.limits[0]!.seen).toBeGreaterThan(MAX_REQUEST_CHARS_KEPT * 1.5);
  });
});

describe('a request its client gave up on', () => {
  it('is not the kit refusing it for its size: no 413 noted, the case not stopped', async () => {
    const server = await startCrystalServer({ answer: async () => FINE, crystals: ['main'] });
    cleanups.push(() => server.close());
    await new Promise<void>((done) => {
      const req = request(`${server.baseUrl('openai')}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '100000', authorization: `Bearer ${server.apiKey}` } });
      req.on('error', () => done());
      req.write('{"model":"main","messages":[');
      // Half a body, then the client goes away.
      setTimeout(() => req.destroy(), 100);
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(server.exchanges).toHaveLength(1);
    expect(server.exchanges[0]?.refused_by_kit).toBeUndefined();
    const state = { limits: [] as KitLimitReached[], faults: [] as unknown[] };
    noteServerLimits(state as Parameters<typeof noteServerLimits>[0], server);
    expect(state).toEqual({ limits: [], faults: [] });
  });
});

describe('the vitest helper and a bound that stopped the judging', () => {
  it('skips the case as incomplete only when the bound left it unjudged', () => {
    const errored = { id: 'x', rules: ['PROD-1'], level: 'MUST', requires: [], description: '', status: 'errored', duration_ms: 1, reason: 'r', failures: [], expectations: 0, invariants: [], problems: [], failed_rules: [], position: { file: 'f', line: 1, column: 1 } } satisfies CaseResult;
    expect(incompleteCase({ ...errored, limits_reached: [{ kind: 'request_size', bound: 1, seen: 1, judged: false, seqs: [0] }] }, false)).toMatch(/^incomplete:/);
    expect(incompleteCase({ ...errored, limits_reached: [{ kind: 'request_bodies', bound: 1, seen: 2, judged: true }] }, false)).toBeUndefined();
    expect(incompleteCase(errored, false)).toBeUndefined();
  });
});

describe("what the ACP client keeps of an agent's requests and messages", () => {
  it('keeps the first requests and messages, counts the rest, and still keeps a late message that carries the key it handed over', { timeout: hangBound(60_000) }, async () => {
    const server = await startCrystalServer({ answer: async () => FINE, crystals: ['small'] });
    cleanups.push(() => server.close());
    const launch = fillLaunch(
      { command: [process.execPath, '--import', 'tsx', SMALL_AGENT, '--base-url', '{base_url}', '--model', '{model}', '--leaks-key', '--asks-many', '5'], env: { SMALL_AGENT_KEY: '{api_key}' }, cwd: ROOT, crystal: 'openai' },
      { base_url: server.baseUrl('openai'), model: 'small', api_key: server.apiKey },
    );
    const client = new AcpClient(launch, { startupMs: 30_000, requestMs: 20_000, stopMs: 2_000 }, [server.apiKey], { clientRequests: 3, inbound: 2 });
    cleanups.push(() => client.close());
    expect((await client.initialize()).ok).toBe(true);
    const session = await client.newSession(ROOT);
    if (!session.ok) throw new Error(`session/new refused: ${session.error.message}`);
    const { answer, updates } = await client.prompt(session.value.sessionId, 'Hello');
    expect(answer).toEqual({ ok: true, value: { stopReason: 'end_turn' } });
    // Every request was answered (refused) whether kept or not.
    expect(updates.map((u) => (u.params as { update: { content: { text: string } } }).update.content.text)).toContain('permissions refused: 5 of 5');
    expect(client.clientRequests).toHaveLength(3);
    expect(client.clientRequestsNotKept).toBe(2);
    // initialize's and session/new's answers, then only the update that leaked the key.
    expect(client.inbound).toHaveLength(3);
    expect(JSON.stringify(client.inbound[2])).toContain(server.apiKey);
    expect(client.inboundNotKept).toBeGreaterThanOrEqual(5);
  });

  it('an ACP agent whose crystal request is larger than the kit reads: the case is incomplete and names the bound (request_size), not failed', { timeout: hangBound(150_000) }, async () => {
    const file = loadCaseFile(resolve(ROOT, 'tests.yaml'));
    const flow = caseForDraft(file.cases.find((c) => c.id === 'acp-core-session-flow')!, '0.3.1')!;
    const factory = () => withSmallAcpAgent(createReferenceAdapter(), 'oversized');
    const probe = factory();
    const description = await probe.describe();
    await probe.dispose();
    const result = await runCase(flow, factory, description);
    expect(result.status).toBe('errored');
    expect(result.failed_rules).toEqual([]);
    expect(result.limits_reached).toEqual([{ kind: 'request_size', bound: 32 * 1024 * 1024, seen: 1, judged: false, seqs: [0] }]);
  });

  it('through a run: an agent asking for more permissions than the kit keeps is still judged, and the report says where it was cut', { timeout: hangBound(150_000) }, async () => {
    const file = loadCaseFile(resolve(ROOT, 'tests.yaml'));
    const flow = caseForDraft(file.cases.find((c) => c.id === 'acp-core-session-flow')!, '0.3.1')!;
    const factory = () => withSmallAcpAgent(createReferenceAdapter(), 'asking-many');
    const probe = factory();
    const description = await probe.describe();
    await probe.dispose();
    const result = await runCase(flow, factory, description);
    expect(result.status).toBe('pass');
    expect(result.limits_reached).toEqual([{ kind: 'acp_client_requests', bound: MAX_CLIENT_REQUESTS_KEPT, seen: 1001, judged: true }]);
    const suite: SuiteResult = { file: 'tests.yaml', spec_version: file.spec_version, format_version: file.format_version, description, cases: [result], draft: '0.3.1', started_at: new Date().toISOString(), duration_ms: 1 };
    expect(renderMarkdown(buildReport(suite))).toContain(`truncated after ${MAX_CLIENT_REQUESTS_KEPT}`);
  });
});

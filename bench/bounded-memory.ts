/**
 * What the kit keeps of a hostile implementation (issue 32, item 3): its peak memory (RSS of the kit's
 * own process, sampled every 50 ms) and the size of the report it writes, for
 *
 * - `loom`: an in-process implementation whose loom() answers 100,000 turns beyond the real ones, in two
 *   cases (fixtures/adapters/huge-loom.ts: the miniature, every turn it ever made repeated under fresh ids);
 * - `loom-stdio`: the same implementation over the adapter protocol on stdio, so the peak is the kit's
 *   alone (the implementation's loom lives in its own process);
 * - `flood`: an ACP agent (fixtures/acp/small-agent.ts `--flood`) that sends message chunks as fast as
 *   the pipe takes them for 60 s at the start of its prompt;
 * - `asks`: an ACP agent (small-agent.ts `--asks-many`) that asks the kit for a permission 100,000 times
 *   before its prompt's first query;
 * - `bodies`: an implementation over stdio (fixtures/adapters/broken-peer.mjs `large-requests`) that sends
 *   its crystal 40 requests of 8 MiB each over the OpenAI wire transport.
 *
 *   npx tsx bench/bounded-memory.ts loom|loom-stdio|flood|asks|bodies [--turns 100000] [--flood-ms 60000] [--asks 100000]
 *
 * Prints one JSON line with the machine's load average (asserts nothing); the figures before and after
 * the bounds are in docs/adapter-protocol.md ("Limits and promises").
 */
import { writeFileSync, mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { withSmallAcpAgent } from '../fixtures/acp/defects.ts';
import { HugeLoom } from '../fixtures/adapters/huge-loom.ts';
import { createReferenceAdapter } from '../reference/adapter/index.ts';
import type { Adapter, CrystalTransport, Description } from '../schemas/adapter.ts';
import { startCommandAdapter } from '../harness/adapters/index.ts';
import { peerCase } from '../harness/adapters/peer-cases.ts';
import { loadCaseFile, type LoadedCase } from '../harness/case-file/index.ts';
import { caseForDraft } from '../harness/plan/index.ts';
import { buildReport } from '../harness/report/index.ts';
import { runCase, type CaseResult, type SuiteResult } from '../harness/run/index.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SCENARIOS = ['loom', 'loom-stdio', 'flood', 'asks', 'bodies'] as const;
type Scenario = (typeof SCENARIOS)[number];
const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { turns: { type: 'string', default: '100000' }, 'flood-ms': { type: 'string', default: '60000' }, asks: { type: 'string', default: '100000' } },
});
const scenario = positionals[0] as Scenario;
if (!SCENARIOS.includes(scenario)) {
  process.stderr.write(`usage: npx tsx bench/bounded-memory.ts ${SCENARIOS.join('|')} [--turns N] [--flood-ms MS] [--asks N]\n`);
  process.exit(2);
}

let peak = process.memoryUsage().rss;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
const load = loadavg()[0]!;

const file = loadCaseFile(join(ROOT, 'tests.yaml'));
const started = performance.now();
/** A long limit: the bench measures what is kept, so no case is cut by its own time limit. */
const LIMIT_MS = 1_800_000;

/** Each case of `ids` run on `factory`, as a run judging `draft` would. */
async function runCases(ids: string[], factory: () => Adapter | Promise<Adapter>, draft: string, transport: CrystalTransport = 'callback', cases: readonly LoadedCase[] = file.cases): Promise<{ results: CaseResult[]; description: Description }> {
  const probe = await factory();
  const description = await probe.describe();
  await probe.dispose();
  const results: CaseResult[] = [];
  for (const c of cases.filter((x) => ids.includes(x.id))) results.push(await runCase({ ...(caseForDraft(c, draft) as LoadedCase), timeout_ms: LIMIT_MS }, factory, description, LIMIT_MS, undefined, transport));
  return { results, description };
}

/** The reference with its ACP agent replaced by the small agent given `args`. */
function smallAgent(args: string[]): () => Adapter {
  return () => {
    const base = withSmallAcpAgent(createReferenceAdapter(), 'correct');
    return {
      ...base,
      async describe() {
        const d = await base.describe();
        return { ...d, acp: { ...d.acp!, command: [...d.acp!.command, ...args] } };
      },
    };
  };
}

const LOOM_CASES = ['done-ends-cast-with-answer', 'max-turns-truncates-the-cast'];
const ACP_FLOW = ['acp-core-session-flow'];
let run: { results: CaseResult[]; description: Description };
let draft = '0.1.0';
if (scenario === 'loom') run = await runCases(LOOM_CASES, () => new HugeLoom(Number(values.turns)), draft);
else if (scenario === 'loom-stdio') {
  const factory = await startCommandAdapter(`cmd:${process.execPath} --import tsx ${join(ROOT, 'fixtures/adapters/huge-loom.ts')} --turns ${Number(values.turns)}`, { cwd: ROOT });
  run = await runCases(LOOM_CASES, factory, draft);
} else if (scenario === 'flood') {
  draft = '0.3.1';
  run = await runCases(ACP_FLOW, smallAgent(['--flood', String(Number(values['flood-ms']))]), draft);
} else if (scenario === 'asks') {
  draft = '0.3.1';
  run = await runCases(ACP_FLOW, smallAgent(['--asks-many', String(Number(values.asks))]), draft);
} else {
  const dir = mkdtempSync(join(tmpdir(), 'cantrip-bench-bodies-'));
  writeFileSync(join(dir, 'tests.yaml'), `format_version: 1\nspec_version: 0.1.0-draft\ncases:\n${peerCase('large-requests', 0)}`);
  const peerFile = loadCaseFile(join(dir, 'tests.yaml'));
  const factory = await startCommandAdapter(`cmd:${process.execPath} ${join(ROOT, 'fixtures/adapters/broken-peer.mjs')} --crystal-transports openai`, { cwd: ROOT });
  run = await runCases(['large-requests-0'], factory, draft, 'openai', peerFile.cases);
}
const { results, description } = run;
const suite: SuiteResult = { file: 'tests.yaml', spec_version: file.spec_version, format_version: file.format_version, description, cases: results, draft, started_at: new Date().toISOString(), duration_ms: performance.now() - started };
const report = buildReport(suite);
const reportBytes = Buffer.byteLength(`${JSON.stringify(report, null, 2)}\n`);
clearInterval(sampler);
peak = Math.max(peak, process.memoryUsage().rss);
process.stdout.write(
  `${JSON.stringify({
    scenario,
    load_average: { at_start: Number(load.toFixed(1)), at_end: Number(loadavg()[0]!.toFixed(1)) },
    peak_rss_mb: Math.round(peak / 1048576),
    report_json_bytes: reportBytes,
    seconds: Math.round((performance.now() - started) / 1000),
    cases: results.map((r) => ({ id: r.id, status: r.status, reason: r.reason?.slice(0, 200), limits_reached: (r as { limits_reached?: unknown }).limits_reached })),
  })}\n`,
);
process.exit(0);

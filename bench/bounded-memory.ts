/**
 * What the kit keeps of a hostile implementation (issue 32, item 3): its peak memory (RSS, sampled every
 * 50 ms) and the size of the report it writes, for
 *
 * - `loom`: an in-process implementation whose loom() answers 100,000 turns beyond the real ones, in two
 *   cases (the miniature, with every turn it ever made repeated under fresh ids);
 * - `flood`: an ACP agent (fixtures/acp/small-agent.ts `--flood`) that sends message chunks as fast as
 *   the pipe takes them for 60 s at the start of its prompt.
 *
 *   npx tsx bench/bounded-memory.ts loom|flood [--turns 100000] [--flood-ms 60000]
 *
 * Prints one JSON line (asserts nothing); the figures before and after the bounds are in docs/ci.md.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { withSmallAcpAgent } from '../fixtures/acp/defects.ts';
import { Miniature } from '../fixtures/miniatures/miniature.ts';
import { createReferenceAdapter } from '../reference/adapter/index.ts';
import type { Adapter, Description, Result } from '../schemas/adapter.ts';
import type { Turn } from '../schemas/records.ts';
import { loadCaseFile, type LoadedCase } from '../harness/case-file/index.ts';
import { caseForDraft } from '../harness/plan/index.ts';
import { buildReport } from '../harness/report/index.ts';
import { runCase, type CaseResult, type SuiteResult } from '../harness/run/index.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { positionals, values } = parseArgs({ allowPositionals: true, options: { turns: { type: 'string', default: '100000' }, 'flood-ms': { type: 'string', default: '60000' } } });
const scenario = positionals[0];
if (scenario !== 'loom' && scenario !== 'flood') {
  process.stderr.write('usage: npx tsx bench/bounded-memory.ts loom|flood [--turns N] [--flood-ms MS]\n');
  process.exit(2);
}

let peak = process.memoryUsage().rss;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);

/** The miniature, its loom padded with `extra` turns: each real turn again under a fresh id, chained after the last. */
class HugeLoom extends Miniature {
  constructor(private readonly extra: number) {
    super();
  }
  override async loom(): Promise<Result<{ turns: Turn[] }>> {
    const real = await super.loom();
    if (!real.ok || real.value.turns.length === 0) return real;
    const turns = [...real.value.turns];
    for (let i = 0; i < this.extra; i++) {
      const model = real.value.turns[i % real.value.turns.length]!;
      turns.push({ ...structuredClone(model), id: `pad-${i}`, parent_id: i === 0 ? turns.at(-1)!.id : `pad-${i - 1}`, sequence: model.sequence + i + 1 });
    }
    return { ok: true, value: { turns } };
  }
}

const file = loadCaseFile(join(ROOT, 'tests.yaml'));
const started = performance.now();
let results: CaseResult[];
let description: Description;
if (scenario === 'loom') {
  const factory = (): Adapter => new HugeLoom(Number(values.turns));
  description = await factory().describe();
  const ids = ['done-ends-cast-with-answer', 'max-turns-truncates-the-cast'];
  results = [];
  for (const c of file.cases.filter((x) => ids.includes(x.id))) results.push(await runCase({ ...c, timeout_ms: 1_800_000 }, factory, description));
} else {
  const factory = (): Adapter => {
    const base = withSmallAcpAgent(createReferenceAdapter(), 'correct');
    return {
      ...base,
      async describe() {
        const d = await base.describe();
        return { ...d, acp: { ...d.acp!, command: [...d.acp!.command.filter((w) => w !== '--flood'), '--flood', String(values['flood-ms'])] } };
      },
    };
  };
  description = await factory().describe();
  const flow = caseForDraft(file.cases.find((c) => c.id === 'acp-core-session-flow')!, '0.3.1') as LoadedCase;
  results = [await runCase({ ...flow, timeout_ms: 1_800_000 }, factory, description)];
}
const suite: SuiteResult = { file: 'tests.yaml', spec_version: file.spec_version, format_version: file.format_version, description, cases: results, draft: scenario === 'flood' ? '0.3.1' : '0.1.0', started_at: new Date().toISOString(), duration_ms: performance.now() - started };
const report = buildReport(suite);
const reportBytes = Buffer.byteLength(`${JSON.stringify(report, null, 2)}\n`);
clearInterval(sampler);
peak = Math.max(peak, process.memoryUsage().rss);
process.stdout.write(
  `${JSON.stringify({ scenario, peak_rss_mb: Math.round(peak / 1048576), report_json_bytes: reportBytes, seconds: Math.round((performance.now() - started) / 1000), cases: results.map((r) => ({ id: r.id, status: r.status, reason: r.reason?.slice(0, 200) })) })}\n`,
);
process.exit(0);

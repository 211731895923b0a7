/**
 * Per-turn overhead of the reference loop (issue 3): a zero-latency crystal that answers every query
 * with one echo call (and `done` on the last turn), an echo gate, and the in-memory loom. Runs casts
 * of 100, 1,000 and 10,000 turns in one process and prints the median per-turn cost and the ratio
 * of the 10,000-turn run to the 1,000-turn run (linear growth means about 10x).
 *
 *   npx tsx bench/loop.bench.ts [rounds]
 */
import type { CrystalResponse } from '../schemas/index.ts';
import { createCall } from '../reference/call/call.ts';
import { createCircle } from '../reference/circle/circle.ts';
import { doneGate } from '../reference/circle/done.ts';
import { defineGate } from '../reference/circle/gate.ts';
import { CRYSTAL_CONTRACT_VERSION, type Crystal } from '../reference/crystal/contract.ts';
import { createCantrip } from '../reference/entity/cantrip.ts';

const rounds = Number(process.argv[2] ?? 7);
const sizes = [100, 1_000, 10_000];

function zeroLatencyCrystal(turns: number): Crystal {
  let calls = 0;
  return {
    contractVersion: CRYSTAL_CONTRACT_VERSION,
    name: 'zero-latency',
    async query(): Promise<CrystalResponse> {
      calls += 1;
      const gate = calls >= turns ? 'done' : 'echo';
      const args = gate === 'done' ? { answer: calls } : { text: `turn ${calls}` };
      return { content: null, tool_calls: [{ id: `c${calls}`, gate, arguments: JSON.stringify(args) }], usage: { prompt: 10, completion: 2, cached: 0 } };
    },
  };
}

const echo = defineGate({ name: 'echo', description: 'echo', parameters: { type: 'object' } }, async (args) => args.text);

async function timeCast(turns: number): Promise<number> {
  const cantrip = createCantrip({
    crystal: zeroLatencyCrystal(turns),
    call: createCall({ systemPrompt: 'bench' }),
    circle: createCircle({ gates: [doneGate(), echo], wards: { maxTurns: turns + 1 } }),
  });
  const started = process.hrtime.bigint();
  const result = await cantrip.cast('run');
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.turns.length !== turns) throw new Error(`expected ${turns} turns, got ${result.turns.length}`);
  return elapsed;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

await timeCast(1_000); // warm-up: JIT and module loading
const results = new Map<number, number[]>();
for (let round = 0; round < rounds; round++) {
  for (const size of sizes) results.set(size, [...(results.get(size) ?? []), await timeCast(size)]);
}
console.log(`loop overhead, ${rounds} rounds, node ${process.version}`);
for (const size of sizes) {
  const runs = results.get(size)!;
  const med = median(runs);
  console.log(
    `${String(size).padStart(6)} turns: median ${med.toFixed(1)} ms total, ${((med * 1000) / size).toFixed(1)} µs/turn (min ${Math.min(...runs).toFixed(1)}, max ${Math.max(...runs).toFixed(1)} ms)`,
  );
}
const ratios = results.get(10_000)!.map((value, index) => value / results.get(1_000)![index]!);
console.log(`10,000 / 1,000 turns: median ratio ${median(ratios).toFixed(2)}x (per-round min ${Math.min(...ratios).toFixed(2)}, max ${Math.max(...ratios).toFixed(2)})`);

/**
 * Per-turn cost of the reference loop (issues 3 and 15). Prints figures; asserts nothing.
 *
 * Each measurement is one cast in a fresh Node process (`bench/loop-round.ts`), so every figure
 * includes what a real first cast pays (cold code, a young heap), and no round inherits another's
 * garbage. A warm-up round (one process per size, discarded) comes first, then `rounds` rounds; in each
 * round the sizes 100, 1,000 and 10,000 turns run one after another. Only the cast is timed.
 *
 * Printed: per-turn µs of wall time (median, min, max) at each size, with the median CPU time of the
 * process per turn beside it (on a busy machine wall time also counts waiting for a core; CPU time
 * does not, though it counts GC helper threads), the 10,000 / 1,000 ratio of per-turn medians
 * (1.00 means linear) with the per-round ratios' range, and the heap growth during the 10,000-turn
 * cast: `heapUsed` after the cast minus before it (a GC is forced just before); the same after one
 * forced scavenge, which drops the young generation's garbage (the first figure swings by up to the
 * young generation's size, 16 MB, with where the collector happens to be when the cast ends); and what
 * is still held after a forced full GC at the end (the loom, the context, the result).
 *
 *   npx tsx bench/loop.bench.ts [rounds=9] [--against <dir>]...
 *
 * `--against <dir>` (repeatable) also measures another checkout of the kit (for example the previous
 * commit, `git worktree add /tmp/before HEAD~1`, with this `bench/loop-round.ts` copied in),
 * interleaved round by round with this one, so every set of figures sees the same machine noise.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SIZES = [100, 1_000, 10_000] as const;
const HERE = fileURLToPath(new URL('..', import.meta.url));

const args = process.argv.slice(2);
const against: string[] = [];
for (let at = args.indexOf('--against'); at >= 0; at = args.indexOf('--against')) against.push(args.splice(at, 2)[1]!);
const rounds = Number(args[0] ?? 9);
const trees = [{ label: 'this tree', root: HERE }, ...against.map((root) => ({ label: root, root }))];

interface Round {
  turns: number;
  castMs: number;
  /** CPU time of the whole process during the cast (all threads: GC helpers included). */
  cpuMs: number;
  heapGrowth: number;
  /** The heap after the cast and one scavenge (young-generation garbage dropped), minus before it. */
  heapAfterScavenge: number;
  heapRetained: number;
  gc: boolean;
}

/** One cast of `turns` turns in a fresh process over the kit at `root`. */
function round(root: string, turns: number): Round {
  const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', join(root, 'bench', 'loop-round.ts'), String(turns)], {
    cwd: root,
    encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').at(-1)!) as Round;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const range = (values: number[], digits: number, unit = ''): string =>
  `${median(values).toFixed(digits)}${unit} (min ${Math.min(...values).toFixed(digits)}, max ${Math.max(...values).toFixed(digits)})`;
const mb = (bytes: number): number => bytes / 1024 / 1024;

for (const tree of trees) for (const turns of SIZES) round(tree.root, turns); // warm-up round, discarded

const results = new Map<string, Round[]>();
const key = (root: string, turns: number) => `${root}\0${turns}`;
for (let index = 0; index < rounds; index++) {
  for (const tree of trees) {
    for (const turns of SIZES) {
      const measured = round(tree.root, turns);
      results.set(key(tree.root, turns), [...(results.get(key(tree.root, turns)) ?? []), measured]);
    }
  }
}

console.log(`loop benchmark: ${rounds} rounds after a warm-up, one fresh process per cast, node ${process.version}`);
for (const tree of trees) {
  if (trees.length > 1) console.log(`\n${tree.label}`);
  const perTurn = new Map<number, number[]>();
  for (const turns of SIZES) {
    const runs = results.get(key(tree.root, turns))!;
    const micros = runs.map((run) => (run.castMs * 1000) / turns);
    perTurn.set(turns, micros);
    const cpu = median(runs.map((run) => (run.cpuMs * 1000) / turns));
    console.log(`${String(turns).padStart(6)} turns: ${range(micros, 1, ' µs/turn')}, cast ${median(runs.map((run) => run.castMs)).toFixed(1)} ms; cpu ${cpu.toFixed(1)} µs/turn`);
  }
  const small = perTurn.get(1_000)!;
  const large = perTurn.get(10_000)!;
  const ratios = large.map((value, index) => value / small[index]!);
  console.log(`10,000 / 1,000 per-turn ratio: ${(median(large) / median(small)).toFixed(2)} (per round ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}; 1.00 is linear)`);
  const big = results.get(key(tree.root, 10_000))!;
  console.log(`heap growth during the 10,000-turn cast: ${range(big.map((run) => mb(run.heapGrowth)), 1, ' MB')}`);
  console.log(`  the same after one scavenge:         ${range(big.map((run) => mb(run.heapAfterScavenge)), 1, ' MB')}`);
  console.log(`heap still held after it (forced GC):  ${range(big.map((run) => mb(run.heapRetained)), 1, ' MB')}${big[0]!.gc ? '' : ' [no --expose-gc: not forced]'}`);
}

/**
 * Code medium timings (run: `npx tsx bench/code-medium.bench.ts`). Prints figures; asserts nothing.
 * Targets from the task: a trivial evaluation <= 1 ms median, sandbox creation <= 30 ms median.
 * Each sandbox runs in its own worker thread; creation is shown cold (a thread boots), from the warm
 * spare, and from a worker recycled from a just-disposed sandbox (see code/worker-pool.ts).
 */
import { createSandbox } from '../reference/circle/medium/code/index.ts';
import { dropIdleWorkers } from '../reference/circle/medium/code/worker-pool.ts';

function summary(label: string, samples: number[], target: number): void {
  const sorted = [...samples].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? NaN;
  const fmt = (n: number | undefined) => (n ?? NaN).toFixed(3);
  console.log(
    `${label.padEnd(28)} n=${String(samples.length).padStart(3)}  median ${fmt(median)} ms  min ${fmt(sorted[0])}  max ${fmt(sorted.at(-1))}  ` +
      `(target <= ${target} ms: ${median <= target ? 'met' : 'MISSED'}, ratio ${(median / target).toFixed(2)})`,
  );
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

type AnySandbox = Awaited<ReturnType<typeof createSandbox>>;
const settle = () => new Promise((resolve) => setTimeout(resolve, 400));

// Cold: no idle worker, so the thread boots (tsx, QuickJS) before the sandbox is ready.
const cold: number[] = [];
for (let i = 0; i < 5; i++) {
  dropIdleWorkers();
  let sandbox: AnySandbox | undefined;
  cold.push(await time(async () => (sandbox = await createSandbox({ gates: [] }))));
  sandbox?.dispose();
  await settle();
}
// Warm spare: the background spare has booted (the process had a moment since the last sandbox).
const spare: number[] = [];
const held: AnySandbox[] = [];
for (let i = 0; i < 10; i++) {
  await settle();
  spare.push(await time(async () => void held.push(await createSandbox({ gates: [] }))));
}
for (const s of held.splice(0)) s.dispose();
// Recycled: created right after another sandbox was disposed, reusing its worker.
const creation: number[] = [];
for (let i = 0; i < 3; i++) (await createSandbox({ gates: [] })).dispose(); // warm-up
for (let i = 0; i < 20; i++) {
  let sandbox: AnySandbox | undefined;
  creation.push(await time(async () => (sandbox = await createSandbox({ gates: [] }))));
  sandbox?.dispose();
}

const sandbox = await createSandbox({ gates: [{ name: 'echo', call: async (args) => args[0] }] });
const run = (code: string) => sandbox.evaluate(code, { idPrefix: 'b' });
for (let i = 0; i < 50; i++) {
  await run('1 + 1');
  await run('done(1)');
  await run('echo(1)');
}
const samples: Record<string, number[]> = { '1 + 1': [], 'done(1)': [], 'echo(1) (async gate)': [] };
for (let i = 0; i < 200; i++) {
  samples['1 + 1']!.push(await time(() => run('1 + 1')));
  samples['done(1)']!.push(await time(() => run('done(1)')));
  samples['echo(1) (async gate)']!.push(await time(() => run('echo(1)')));
}
sandbox.dispose();

console.log(`code medium bench, node ${process.version}`);
summary('sandbox creation, cold', cold, 30);
summary('creation, warm spare', spare, 30);
summary('creation, recycled worker', creation, 30);
for (const [label, s] of Object.entries(samples)) summary(`evaluate ${label}`, s, 1);

/**
 * Issue 5 figures for the code circle, through the whole loop (not the bare sandbox):
 * - per-turn overhead of a trivial program (`x += 1`) with a zero-latency crystal, median over casts;
 * - a batch of 8 children whose crystals each take 50 ms, against one such child: concurrency is real
 *   when the batch takes little more than one child.
 *
 *   npx tsx bench/code-circle.bench.ts [rounds]
 */
import type { CrystalResponse } from '../schemas/index.ts';
import { createCall } from '../reference/call/call.ts';
import { createCircle } from '../reference/circle/circle.ts';
import { doneGate } from '../reference/circle/done.ts';
import { codeMedium } from '../reference/circle/medium/code-medium.ts';
import { callEntityBatchGate } from '../reference/composition/call-entity-batch.ts';
import { CRYSTAL_CONTRACT_VERSION, type Crystal } from '../reference/crystal/contract.ts';
import { createCantrip } from '../reference/entity/cantrip.ts';

const rounds = Number(process.argv[2] ?? 7);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const usage = { prompt: 1, completion: 1, cached: 0 };
const program = (code: string, id: string): CrystalResponse => ({ content: null, tool_calls: [{ id, gate: 'js', arguments: JSON.stringify({ code }) }], usage });

/** Answers with `x += 1` until the last turn, then done(x). */
function counter(turns: number): Crystal {
  let calls = 0;
  return {
    contractVersion: CRYSTAL_CONTRACT_VERSION,
    name: 'counter',
    async query() {
      calls += 1;
      return program(calls === 1 ? 'var x = 0' : calls >= turns ? 'done(x)' : 'x += 1', `c${calls}`);
    },
  };
}

/** A child crystal that takes `ms` and then finishes. */
function slowChild(ms: number): Crystal {
  return {
    contractVersion: CRYSTAL_CONTRACT_VERSION,
    name: 'slow-child',
    async query() {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return { content: null, tool_calls: [{ id: `k${Math.random()}`, gate: 'done', arguments: '{"answer":"ok"}' }], usage };
    },
  };
}

async function codeTurns(turns: number): Promise<number> {
  const cantrip = createCantrip({
    crystal: counter(turns),
    call: createCall({ systemPrompt: 'bench' }),
    circle: createCircle({ gates: [doneGate()], wards: { maxTurns: turns + 1 }, medium: codeMedium() }),
  });
  const entity = cantrip.invoke();
  await entity.session(); // sandbox creation is measured separately (bench/code-medium.bench.ts)
  const started = performance.now();
  const result = await entity.cast('count');
  const elapsed = performance.now() - started;
  entity.dispose();
  if (result.result !== turns - 2) throw new Error(`unexpected result ${String(result.result)}`);
  return elapsed / turns;
}

async function batch(children: number, ms: number): Promise<number> {
  const intents = Array.from({ length: children }, (_, index) => ({ intent: `part ${index}` }));
  const parent: Crystal = {
    contractVersion: CRYSTAL_CONTRACT_VERSION,
    name: 'parent',
    async query() {
      return { content: null, tool_calls: [{ id: 'b1', gate: 'call_entity_batch', arguments: JSON.stringify({ intents }) }, { id: 'b2', gate: 'done', arguments: '{"answer":1}' }], usage };
    },
  };
  const cantrip = createCantrip({
    crystal: parent,
    call: createCall({ systemPrompt: 'bench' }),
    circle: createCircle({ gates: [doneGate(), callEntityBatchGate({ crystal: slowChild(ms) })], wards: { maxTurns: 3 } }),
  });
  const started = performance.now();
  await cantrip.cast('fan out');
  return performance.now() - started;
}

await codeTurns(50);
await batch(1, 50);
const perTurn: number[] = [];
const one: number[] = [];
const eight: number[] = [];
const ratios: number[] = [];
for (let round = 0; round < rounds; round++) {
  perTurn.push(await codeTurns(200));
  const single = await batch(1, 50);
  const many = await batch(8, 50);
  one.push(single);
  eight.push(many);
  ratios.push(many / single);
}
const range = (values: number[]) => `min ${Math.min(...values).toFixed(2)}, max ${Math.max(...values).toFixed(2)}`;
console.log(`code circle, ${rounds} rounds, node ${process.version}`);
console.log(`trivial code turn through the loop: median ${(median(perTurn) * 1000).toFixed(0)} µs/turn (${range(perTurn.map((v) => v * 1000))} µs)`);
console.log(`batch of 1 child (50 ms crystal): median ${median(one).toFixed(1)} ms (${range(one)})`);
console.log(`batch of 8 children (50 ms each): median ${median(eight).toFixed(1)} ms (${range(eight)})`);
console.log(`8 children / 1 child: median ratio ${median(ratios).toFixed(2)}x (${range(ratios)})`);

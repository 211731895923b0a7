/**
 * Loom JSONL throughput (LOOM-1, LOOM-3): appends 10,000 realistic turns to a JSONL file in a temp dir,
 * then reloads it into a fresh Loom; 7 rounds in one process. Prints median and min/max in ms.
 * A smaller fsync-per-turn run shows the price of surviving a power cut.
 *
 * Run: npx tsx bench/loom-jsonl.bench.ts
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Turn } from '../schemas/records.ts';
import { JsonlStorage, Loom, emptyMetadata } from '../reference/loom/index.ts';

const TURNS = 10_000;
const ROUNDS = 7;
const TURNS_PER_CAST = 25;

const code = `const rows = files.read("data/orders.csv").split("\\n").slice(1);\n`.repeat(6);
const observation = `order_id,amount,status\n${'10293,19.99,shipped\n'.repeat(50)}`;

/** A call turn, then casts of TURNS_PER_CAST chained crystal turns each hanging from it (CALL-4). */
function buildTurns(count: number): Turn[] {
  const now = new Date('2025-01-01T00:00:00.000Z');
  const turns: Turn[] = [
    {
      id: 'call', parent_id: null, cantrip_id: 'c1', entity_id: null, role: 'call', sequence: 0,
      utterance: '', observation: '', gate_calls: [], metadata: emptyMetadata(now), reward: null,
      terminated: false, truncated: false,
      call: { system_prompt: 'You are a data analyst. Work in code.', hyperparameters: { temperature: 0.2 } },
    },
  ];
  for (let i = 1; i < count; i += 1) {
    const sequence = ((i - 1) % TURNS_PER_CAST) + 1;
    const last = sequence === TURNS_PER_CAST;
    turns.push({
      id: `turn_${i.toString().padStart(8, '0')}`,
      parent_id: sequence === 1 ? 'call' : turns[i - 1]!.id,
      cantrip_id: 'c1',
      entity_id: `entity_${Math.ceil(i / TURNS_PER_CAST)}`,
      role: 'crystal',
      sequence,
      utterance: code,
      observation,
      gate_calls: [
        { tool_call_id: `tc_${i}_a`, gate: 'read', arguments: { path: 'data/orders.csv' }, ok: true, result: observation.slice(0, 400) },
        { tool_call_id: `tc_${i}_b`, gate: 'echo', arguments: { text: 'progress' }, ok: true, result: 'progress' },
      ],
      metadata: { tokens_prompt: 1200 + i, tokens_completion: 180, tokens_cached: 1024, duration_ms: 850, timestamp: now.toISOString() },
      reward: null,
      terminated: last,
      truncated: false,
      ...(sequence === 1 ? { intent: 'Sum the shipped orders' } : {}),
      ...(last ? { result: 'total: 1999.00' } : {}),
    });
  }
  return turns;
}

function stats(values: number[]): { median: number; min: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)]!, min: sorted[0]!, max: sorted.at(-1)! };
}

function round(turns: Turn[], dir: string, name: string, fsync: boolean): { append: number; reload: number; bytes: number } {
  const file = join(dir, name);
  const storage = new JsonlStorage(file, { fsync });
  const loom = new Loom(storage);
  const start = performance.now();
  for (const turn of turns) loom.append(turn);
  const append = performance.now() - start;
  storage.close();

  const reloadStart = performance.now();
  const reader = new JsonlStorage(file);
  const reloaded = new Loom(reader);
  const reload = performance.now() - reloadStart;
  reader.close();
  if (reloaded.size !== turns.length) throw new Error(`reload found ${reloaded.size} turns, expected ${turns.length}`);
  return { append, reload, bytes: statSync(file).size };
}

function report(label: string, count: number, rounds: Array<{ append: number; reload: number; bytes: number }>): void {
  const append = stats(rounds.map((r) => r.append));
  const reload = stats(rounds.map((r) => r.reload));
  const f = (n: number): string => n.toFixed(1);
  const per = (n: number): string => ((n / count) * 1000).toFixed(1);
  console.log(`${label}: ${count} turns, ${rounds.length} rounds, file ${(rounds[0]!.bytes / 1e6).toFixed(1)} MB`);
  console.log(`  append total  median ${f(append.median)} ms  (min ${f(append.min)}, max ${f(append.max)})`);
  console.log(`  append / turn median ${per(append.median)} µs  (min ${per(append.min)}, max ${per(append.max)})`);
  console.log(`  reload        median ${f(reload.median)} ms  (min ${f(reload.min)}, max ${f(reload.max)})`);
}

const dir = mkdtempSync(join(tmpdir(), 'loom-bench-'));
try {
  const turns = buildTurns(TURNS);
  report('jsonl, no fsync', TURNS, Array.from({ length: ROUNDS }, (_, i) => round(turns, dir, `plain-${i}.jsonl`, false)));
  const few = turns.slice(0, 1_000);
  report('jsonl, fsync per turn', few.length, Array.from({ length: 3 }, (_, i) => round(few, dir, `fsync-${i}.jsonl`, true)));
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Bounded event stream (issue 14, feature `bounded-events`): does memory stay flat when the consumer of
 * streaming events is 100 times slower than the entity producing them? Prints figures; asserts nothing.
 *
 * The consumer is a bridge of the kind a protocol adapter puts between the loop and a client (the ACP
 * bridge of seed 000): it serializes each event as it takes it, and sends one every `d` ms, where `d` is
 * 100 times the loop's own time per event (measured first, with a consumer that never waits). Two ways
 * of connecting it:
 * - bounded: the reference's `boundedEvents` sink (bound 8): the loop waits for room before each event;
 * - unbounded: a plain listener that hands each event to the bridge and returns at once, as a
 *   fire-and-forget stream does: the bridge's outbox takes whatever the loop produces.
 *
 * Each cast has N turns (default 200), each streaming five events (text of 8 KiB, gate call, gate
 * result, usage, turn end). At each quarter of the cast the heap is measured after a forced GC, and
 * the events waiting in the consumer (handed over, not yet sent) are counted with their bytes. The
 * loom and the context grow in both modes alike, so the heap is also shown less that of a cast whose
 * consumer keeps up (the calibration casts): what remains is the stream's buffer. Figures are
 * medians over `runs` casts per mode (default 3), interleaved so both see the same machine noise.
 *
 *   npx tsx bench/event-stream.bench.ts [turns=200] [runs=3]
 */
import { execFileSync } from 'node:child_process';
import type { CrystalResponse, StreamEvent } from '../schemas/index.ts';
import { createCall } from '../reference/call/call.ts';
import { createCircle } from '../reference/circle/circle.ts';
import { doneGate } from '../reference/circle/done.ts';
import { defineGate } from '../reference/circle/gate.ts';
import { CRYSTAL_CONTRACT_VERSION, type Crystal } from '../reference/crystal/contract.ts';
import { createCantrip } from '../reference/entity/cantrip.ts';
import { boundedEvents } from '../reference/production/event-stream.ts';
import type { EventSink } from '../reference/production/events.ts';

// A forced GC is needed for retained-heap figures: re-run under --expose-gc if it is missing.
if (typeof globalThis.gc !== 'function') {
  execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', new URL(import.meta.url).pathname, ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(0);
}
const gc = globalThis.gc as () => void;

const TURNS = Number(process.argv[2] ?? 200);
const RUNS = Number(process.argv[3] ?? 3);
const BOUND = 8;
const SLOWER = 100;
const TEXT = 'x'.repeat(8 * 1024);
const EVENTS_PER_TURN = 5;

/** Answers from a script made up front; records nothing, so only the loop and the stream hold memory. */
function crystal(turns: number): Crystal {
  const script: CrystalResponse[] = Array.from({ length: turns }, (_, i) => ({
    content: `${TEXT}${i}`,
    tool_calls: [i === turns - 1 ? { id: `c${i}`, gate: 'done', arguments: '{"answer":"end"}' } : { id: `c${i}`, gate: 'echo', arguments: `{"text":"t${i}"}` }],
    usage: { prompt: 10, completion: 2, cached: 0 },
  }));
  let at = 0;
  return { contractVersion: CRYSTAL_CONTRACT_VERSION, name: 'bench', query: async () => script[at++]! };
}

const echo = defineGate({ name: 'echo', description: 'echo', parameters: { type: 'object', properties: { text: { type: 'string' } } } }, async ({ text }) => text);

/** The slow consumer: serializes what it takes, sends one event every `delayMs` (0: sends at once). */
class Bridge {
  readonly outbox: { line: string; sent: () => void }[] = [];
  peak = 0;
  private sending = false;
  constructor(private readonly delayMs: number) {}
  take = (event: StreamEvent): Promise<void> =>
    new Promise<void>((sent) => {
      this.outbox.push({ line: JSON.stringify(event), sent });
      this.peak = Math.max(this.peak, this.outbox.length);
      void this.pump();
    });
  /** Ends the run: whatever still waits is dropped, and no one is left waiting on it. */
  close(): void {
    for (const m of this.outbox.splice(0)) m.sent();
  }
  get bytes(): number {
    return this.outbox.reduce((sum, m) => sum + m.line.length, 0);
  }
  private async pump(): Promise<void> {
    if (this.sending) return;
    this.sending = true;
    while (this.outbox.length > 0) {
      if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
      this.outbox.shift()?.sent();
    }
    this.sending = false;
  }
}

interface Sample {
  heapMb: number;
  waiting: number;
  waitingKb: number;
}
interface Run {
  castMs: number;
  samples: Sample[];
  peakWaiting: number;
}

/** One cast of TURNS turns streaming into a bridge sending every `delayMs`; `bounded` picks the sink. */
async function cast(delayMs: number, bounded: boolean): Promise<Run> {
  const bridge = new Bridge(delayMs);
  const sink: EventSink = bounded ? boundedEvents(bridge.take, { bound: BOUND }) : (event) => void bridge.take(event);
  const quarters = new Set([1, 2, 3, 4].map((q) => Math.round((TURNS * q) / 4)));
  const samples: Sample[] = [];
  let turns = 0;
  const cantrip = createCantrip({
    crystal: crystal(TURNS),
    call: createCall({ systemPrompt: 'bench', hyperparameters: {} }),
    circle: createCircle({ gates: [doneGate(), echo], wards: { maxTurns: TURNS + 1 } }),
    onEvent: (event, delivery) => {
      if (event.type === 'turn_end' && quarters.has(++turns)) {
        gc();
        samples.push({ heapMb: process.memoryUsage().heapUsed / 2 ** 20, waiting: bridge.outbox.length, waitingKb: bridge.bytes / 1024 });
      }
      return sink(event, delivery);
    },
  });
  gc();
  const before = process.memoryUsage().heapUsed / 2 ** 20;
  const started = performance.now();
  const result = await cantrip.cast('stream it');
  const castMs = performance.now() - started;
  if (result.status !== 'terminated') throw new Error(`the cast ended ${result.status}`);
  // No run inherits another's outbox: what still waits is dropped.
  bridge.close();
  return { castMs, samples: samples.map((s) => ({ ...s, heapMb: s.heapMb - before })), peakWaiting: bridge.peak };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

// The producer's own pace: a consumer that never makes it wait.
await cast(0, true); // warm-up
const keepingUp: Run[] = [];
for (let r = 0; r < 3; r++) keepingUp.push(await cast(0, true));
const fast = median(keepingUp.map((run) => run.castMs));
/** The heap a cast grows by when its consumer keeps up (the loom and the context): the baseline at each quarter. */
const baseline = [0, 1, 2, 3].map((q) => median(keepingUp.map((run) => run.samples[q]?.heapMb ?? Number.NaN)));
const perEventMs = fast / (TURNS * EVENTS_PER_TURN);
const delayMs = Math.max(1, Math.ceil(SLOWER * perEventMs));
console.log(`event-stream bench: ${TURNS} turns x ${EVENTS_PER_TURN} events (text 8 KiB), bound ${BOUND}, ${RUNS} runs per mode`);
console.log(`producer: ${(perEventMs * 1000).toFixed(1)} µs per event with a consumer that never waits (median cast ${fast.toFixed(0)} ms)`);
console.log(`consumer: one event every ${delayMs} ms (${(delayMs / perEventMs).toFixed(0)} times slower than the producer)`);

const runs: Record<'bounded' | 'unbounded', Run[]> = { bounded: [], unbounded: [] };
for (let r = 0; r < RUNS; r++) {
  runs.unbounded.push(await cast(delayMs, false));
  runs.bounded.push(await cast(delayMs, true));
}

for (const mode of ['unbounded', 'bounded'] as const) {
  const list = runs[mode];
  const at = (q: number, key: keyof Sample): string => median(list.map((run) => run.samples[q]?.[key] ?? Number.NaN)).toFixed(key === 'waiting' ? 0 : 1);
  console.log(`\n${mode}: cast ${median(list.map((run) => run.castMs)).toFixed(0)} ms, most events waiting in the consumer ${median(list.map((run) => run.peakWaiting))}`);
  console.log('  at 25% / 50% / 75% / 100% of the turns (median):');
  console.log(`    events waiting     ${[0, 1, 2, 3].map((q) => at(q, 'waiting').padStart(8)).join(' ')}`);
  console.log(`    their KiB          ${[0, 1, 2, 3].map((q) => at(q, 'waitingKb').padStart(8)).join(' ')}`);
  console.log(`    heap growth MiB    ${[0, 1, 2, 3].map((q) => at(q, 'heapMb').padStart(8)).join(' ')}   (after a forced GC; loom and context included)`);
  const beyond = [0, 1, 2, 3].map((q) => (median(list.map((run) => run.samples[q]?.heapMb ?? Number.NaN)) - baseline[q]!).toFixed(1));
  console.log(`    beyond keeping up  ${beyond.map((v) => v.padStart(8)).join(' ')}   (the same, less a cast whose consumer keeps up)`);
}

/**
 * One round of the loop benchmark (issue 15), run by `bench/loop.bench.ts` in a fresh Node process:
 * builds a cantrip for N turns, casts it once, and prints one JSON line with the cast's wall time and
 * the heap before and after. Only the cast is timed; building the cantrip and its script is not.
 *
 *   node --expose-gc --import tsx bench/loop-round.ts <turns> [profile.cpuprofile]
 *
 * With a second argument, a CPU profile of the cast alone (not start-up or construction) is written
 * there, sampled every 50 µs (every PROFILE_INTERVAL µs when that is set in the environment); open it
 * in Chrome's DevTools or summarize it with `bench/profile-top.ts`.
 *
 * The workload: a crystal answering instantly from a precomputed script, each turn one call to an
 * `echo` gate with `{"text": "turn i"}` and the last turn `done`; usage 10/2/0 tokens per turn; a
 * turn cap of N + 1; a short system prompt and intent; the default in-memory loom; no folding, no
 * timeout, no event listener.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import type { CrystalResponse } from '../schemas/index.ts';
import { createCall } from '../reference/call/call.ts';
import { createCircle } from '../reference/circle/circle.ts';
import { doneGate } from '../reference/circle/done.ts';
import { defineGate } from '../reference/circle/gate.ts';
import { CRYSTAL_CONTRACT_VERSION, type Crystal } from '../reference/crystal/contract.ts';
import { createCantrip } from '../reference/entity/cantrip.ts';

const turns = Number(process.argv[2]);
const profileTo = process.argv[3];
if (!Number.isInteger(turns) || turns < 1) throw new Error('usage: loop-round.ts <turns>');

/** Every response of the cast, made before the clock starts. */
function script(count: number): CrystalResponse[] {
  return Array.from({ length: count }, (_, index) => {
    const turn = index + 1;
    const last = turn === count;
    const call = last
      ? { id: `call_${turn}`, gate: 'done', arguments: JSON.stringify({ answer: 'finished' }) }
      : { id: `call_${turn}`, gate: 'echo', arguments: JSON.stringify({ text: `turn ${turn}` }) };
    return { content: null, tool_calls: [call], usage: { prompt: 10, completion: 2, cached: 0 } };
  });
}

function scriptedCrystal(responses: CrystalResponse[]): Crystal {
  let next = 0;
  return {
    contractVersion: CRYSTAL_CONTRACT_VERSION,
    name: 'precomputed',
    async query() {
      return responses[next++]!;
    },
  };
}

const echo = defineGate({ name: 'echo', description: 'Echo the text.', parameters: { type: 'object' } }, async (args) => args.text);
const cantrip = createCantrip({
  crystal: scriptedCrystal(script(turns)),
  call: createCall({ systemPrompt: 'Be brief.' }),
  circle: createCircle({ gates: [doneGate(), echo], wards: { maxTurns: turns + 1 } }),
});

const gc = (globalThis as { gc?: (options?: { type: 'minor' | 'major' }) => void }).gc;
const profiler = profileTo === undefined ? undefined : new Session();
if (profiler) {
  profiler.connect();
  await profiler.post('Profiler.enable');
  await profiler.post('Profiler.setSamplingInterval', { interval: Number(process.env.PROFILE_INTERVAL ?? 50) });
  await profiler.post('Profiler.start');
}
gc?.();
const heapBefore = process.memoryUsage().heapUsed;
const cpuBefore = process.cpuUsage();
const started = process.hrtime.bigint();
const result = await cantrip.cast('Echo.');
const castNs = Number(process.hrtime.bigint() - started);
const cpu = process.cpuUsage(cpuBefore);
const heapAfter = process.memoryUsage().heapUsed;
if (profiler) writeFileSync(profileTo!, JSON.stringify((await profiler.post('Profiler.stop')).profile));
// What `heapAfter` counts beyond the live data is mostly the young generation's garbage since its last
// scavenge, which swings between nothing and the young generation's size (16 MB in a long cast) with
// the collector's phase. One scavenge drops that garbage and keeps whatever is still referenced.
gc?.({ type: 'minor' });
const heapAfterScavenge = process.memoryUsage().heapUsed;
gc?.();
const heapRetained = process.memoryUsage().heapUsed;
if (result.status !== 'terminated' || result.turns.length !== turns) {
  throw new Error(`expected ${turns} turns ending in done, got ${result.turns.length} (${result.status})`);
}
console.log(JSON.stringify({ turns, castMs: castNs / 1e6, cpuMs: (cpu.user + cpu.system) / 1000, heapGrowth: heapAfter - heapBefore, heapAfterScavenge: heapAfterScavenge - heapBefore, heapRetained: heapRetained - heapBefore, gc: gc !== undefined }));

/**
 * A complete cantrip on a scripted crystal: no API key, no network. Run it with
 *
 *   npx tsx reference/examples/cast.ts
 *
 * It builds the three parts (crystal, call, circle), casts once, and prints the outcome and the
 * thread the loom recorded, turn by turn.
 */
import { createCall } from '../call/call.ts';
import { createCircle } from '../circle/circle.ts';
import { doneGate } from '../circle/done.ts';
import { defineGate } from '../circle/gate.ts';
import { gateCall, ScriptedCrystal } from '../crystal/scripted.ts';
import { createCantrip } from '../entity/cantrip.ts';
import { readRecords } from '../drafts/gate-call-records.ts';

// A gate with a dependency bound at construction (CIRCLE-10): the word list it counts in.
const documents: Record<string, string> = { 'a.txt': 'the cat sat', 'b.txt': 'on the mat today' };
const countWords = defineGate(
  {
    name: 'count_words',
    description: 'Counts the words of one document.',
    parameters: { type: 'object', properties: { file: { type: 'string' } }, required: ['file'] },
  },
  async ({ file }) => {
    const text = documents[String(file)];
    if (text === undefined) throw Object.assign(new Error(`no document '${String(file)}'`), { name: 'NotFound' });
    return text.split(/\s+/).length;
  },
);

// The crystal's side of the conversation, scripted: count two files (one misspelled), then finish.
const crystal = new ScriptedCrystal([
  { content: 'Counting both documents.', tool_calls: [gateCall('count_words', { file: 'a.txt' }), gateCall('count_words', { file: 'b.text' })], usage: { prompt: 120, completion: 30, cached: 0 } },
  { content: 'The second name was wrong; retrying.', tool_calls: [gateCall('count_words', { file: 'b.txt' })], usage: { prompt: 180, completion: 20, cached: 100 } },
  { tool_calls: [gateCall('done', { answer: 7 })], usage: { prompt: 220, completion: 10, cached: 150 } },
]);

const cantrip = createCantrip({
  crystal,
  call: createCall({ systemPrompt: 'You count words carefully.', hyperparameters: { temperature: 0 } }),
  circle: createCircle({ gates: [doneGate(), countWords], wards: { maxTurns: 10 } }),
});

const outcome = await cantrip.cast('How many words are in a.txt and b.txt together?');
console.log(`status: ${outcome.status}, result: ${JSON.stringify(outcome.result)}, usage: ${JSON.stringify(outcome.usage)}`);
for (const turn of cantrip.loom.thread(outcome.turns.at(-1)!.id)) {
  if (turn.role === 'call') {
    console.log(`[call] ${turn.call?.system_prompt}`);
    continue;
  }
  const calls = readRecords(turn.gate_calls).map((call) => `${call.gate}(${JSON.stringify(call.arguments)}) -> ${call.ok ? JSON.stringify(call.result) : `error ${call.error?.name}`}`);
  console.log(`[turn ${turn.sequence}] ${turn.utterance || '(gate calls only)'}\n    ${calls.join('\n    ')}`);
}

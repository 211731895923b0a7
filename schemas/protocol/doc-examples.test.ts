/**
 * The JSON examples of docs/adapter-protocol.md are what implementers copy, so each ```json block must be a
 * message the harness would accept: a JSON-RPC envelope whose params (a request) or result (the `loom`
 * answer) match the method's schema. The `loom` answer is checked deeper than the transport does: every
 * turn against the turn schema (LOOM-2, LOOM-9), and it must show what the text says it shows (a call turn,
 * CALL-4; a reply of tool calls only; a failed gate call, CIRCLE-5; a done that terminates, LOOP-3).
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { SCHEMA_BASE, validate } from '../loader.ts';
import type { Turn } from '../records.ts';

const DOC = new URL('../../docs/adapter-protocol.md', import.meta.url);

/** Each ```json block of the document, with the line it starts on (for the failure message). */
function jsonBlocks(text: string): { line: number; value: unknown }[] {
  const blocks: { line: number; value: unknown }[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== '```json') continue;
    const end = lines.findIndex((line, j) => j > i && line.trim() === '```');
    if (end === -1) throw new Error(`docs/adapter-protocol.md:${i + 1}: a json block is never closed`);
    const source = lines.slice(i + 1, end).join('\n');
    try {
      blocks.push({ line: i + 1, value: JSON.parse(source) });
    } catch (error) {
      throw new Error(`docs/adapter-protocol.md:${i + 1}: the json block does not parse: ${(error as Error).message}`);
    }
    i = end;
  }
  return blocks;
}

const sub = (method: string, part: 'params' | 'result'): string => `${SCHEMA_BASE}protocol/${method}.schema.json#/$defs/${part}`;
const blocks = jsonBlocks(readFileSync(DOC, 'utf8'));

interface Message {
  method?: string;
  params?: unknown;
  result?: { ok: boolean; value?: { turns?: Turn[] } };
}

describe('the JSON examples of docs/adapter-protocol.md', () => {
  it('are there: a request and the loom answer at least', () => {
    expect(blocks.filter((b) => (b.value as Message).method !== undefined).length).toBeGreaterThan(0);
    expect(blocks.filter((b) => (b.value as Message).result?.value?.turns !== undefined).length).toBe(1);
  });

  it.each(blocks.map((b) => [b.line, b.value] as const))('block at line %i is a JSON-RPC message whose params or result match its method', (line, value) => {
    expect(validate('protocol/envelope', value), `line ${line}`).toEqual({ ok: true });
    const message = value as Message;
    if (message.method !== undefined) expect(validate(sub(message.method, 'params'), message.params ?? {}), `line ${line}`).toEqual({ ok: true });
    // A response names no method; the only response block is the loom answer.
    else expect(validate(sub('loom', 'result'), message.result), `line ${line}`).toEqual({ ok: true });
  });

  it('LOOM-2, LOOM-9, CALL-4, CIRCLE-5, LOOP-3: the loom answer holds schema-valid turns showing a call turn, a reply of tool calls only with a failed gate call, and a done', () => {
    const turns = blocks.map((b) => (b.value as Message).result?.value?.turns).find((t) => t !== undefined)!;
    for (const turn of turns) expect(validate('turn', turn), `turn ${turn.id}`).toEqual({ ok: true });
    const [call, first, last] = turns;
    expect(call).toMatchObject({ role: 'call', parent_id: null });
    expect(first).toMatchObject({ role: 'crystal', parent_id: call!.id, utterance: '', terminated: false });
    expect(first!.gate_calls.map((record) => record.ok)).toEqual([true, false]);
    // The observation shows each result as the entity saw it: the value of the success, the failure's message.
    expect(first!.observation).toContain(JSON.stringify(first!.gate_calls[0]!.result));
    expect(first!.observation).toContain(first!.gate_calls[1]!.error!.message);
    expect(last).toMatchObject({ role: 'crystal', parent_id: first!.id, terminated: true });
    expect(last!.gate_calls.map((record) => record.gate)).toEqual(['done']);
  });
});

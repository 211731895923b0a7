import { afterEach, beforeEach, describe, it, expect } from 'vitest';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoomLine } from '../../schemas/records.ts';
import { readJsonl } from './jsonl-reader.ts';
import { JsonlStorage } from './jsonl-storage.ts';
import { LoomLoadError } from './load-error.ts';
import { Loom } from './loom.ts';
import { sampleCallTurn, sampleCrystalTurn } from './sample-turns.ts';

let dir: string;
let file: string;
const open: JsonlStorage[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loom-jsonl-'));
  file = join(dir, 'loom.jsonl');
});

afterEach(() => {
  for (const storage of open.splice(0)) storage.close();
  rmSync(dir, { recursive: true, force: true });
});

function storageAt(path: string, options?: { fsync?: boolean }): JsonlStorage {
  const storage = new JsonlStorage(path, options);
  open.push(storage);
  return storage;
}

/** A loom file with a call turn and `count` chained crystal turns; closed afterwards. */
function writeChain(count: number): Loom {
  const storage = storageAt(file);
  const loom = new Loom(storage);
  loom.append(sampleCallTurn('call'));
  for (let i = 1; i <= count; i += 1) loom.append(sampleCrystalTurn(`t${i}`, i === 1 ? 'call' : `t${i - 1}`, { sequence: i }));
  storage.close();
  return loom;
}

function lineText(line: LoomLine): string {
  return `${JSON.stringify(line)}\n`;
}

describe('JsonlStorage (LOOM-1, LOOM-3)', () => {
  it('LOOM-1: each append is one complete JSON line on disk when append returns', () => {
    const storage = storageAt(file);
    const loom = new Loom(storage);
    loom.append(sampleCallTurn('call'));
    loom.append(sampleCrystalTurn('t1', 'call'));
    loom.annotateReward('t1', 0.5);
    const text = readFileSync(file, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const kinds = text.trimEnd().split('\n').map((line) => (JSON.parse(line) as LoomLine).kind);
    expect(kinds).toEqual(['turn', 'turn', 'reward']);
  });

  it('LOOM-3: reopening gives back the same turns and rewards', () => {
    const storage = storageAt(file);
    const first = new Loom(storage);
    first.append(sampleCallTurn('call'));
    first.append(sampleCrystalTurn('t1', 'call', { terminated: true, result: { answer: 42 } }));
    first.append(sampleCrystalTurn('t2', 'call', { truncated: true, truncation_cause: 'timeout' }));
    first.annotateReward('t1', 1);
    first.annotateReward('t2', 0);
    first.annotateReward('t2', 0.1);
    storage.close();

    const second = new Loom(storageAt(file));
    expect(second.turns()).toEqual(first.turns());
    expect(second.get('t2').reward).toBe(0.1);
    expect(second.threads().map((thread) => thread.map((turn) => turn.id))).toEqual([
      ['call', 't1'],
      ['call', 't2'],
    ]);
    expect(second.loadReport).toEqual({ lines: 6 });
  });

  it('LOOM-1: a file that does not exist yet is created and loads as an empty loom', () => {
    const loom = new Loom(storageAt(join(dir, 'fresh.jsonl')));
    expect(loom.size).toBe(0);
    expect(existsSync(join(dir, 'fresh.jsonl'))).toBe(true);
  });

  it('LOOM-1: with fsync on, turns are written and reload the same', () => {
    const storage = storageAt(file, { fsync: true });
    const loom = new Loom(storage);
    loom.append(sampleCallTurn('call'));
    loom.append(sampleCrystalTurn('t1', 'call'));
    expect(new Loom(storageAt(file)).turns()).toEqual(loom.turns());
  });

  it('LOOM-1: appending after close throws and leaves the file as it was', () => {
    const storage = storageAt(file);
    const loom = new Loom(storage);
    loom.append(sampleCallTurn('call'));
    storage.close();
    const before = readFileSync(file, 'utf8');
    expect(() => loom.append(sampleCrystalTurn('t1', 'call'))).toThrow(Error);
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(loom.has('t1')).toBe(false);
  });
});

describe('JsonlStorage: torn tails and corruption (LOOM-1)', () => {
  it('LOOM-1: a file cut mid-line loads every complete turn and reports the torn tail', () => {
    writeChain(3);
    const goodBytes = statSync(file).size;
    const half = lineText({ kind: 'turn', turn: sampleCrystalTurn('t4', 't3') });
    appendFileSync(file, half.slice(0, Math.floor(half.length / 2)));

    const loom = new Loom(storageAt(file));
    expect(loom.turns().map((turn) => turn.id)).toEqual(['call', 't1', 't2', 't3']);
    expect(loom.loadReport.torn).toMatchObject({ line: 5, offset: goodBytes });
    expect(loom.loadReport.torn?.reason.length).toBeGreaterThan(0);
    expect(loom.loadReport.lines).toBe(4);
  });

  it('LOOM-1: a cut at every byte of the last two records loses only the record being written', () => {
    const lines: LoomLine[] = [
      { kind: 'turn', turn: sampleCallTurn('call') },
      { kind: 'turn', turn: sampleCrystalTurn('t1', 'call') },
      { kind: 'reward', turn_id: 't1', reward: 0.5 },
    ];
    const full = Buffer.from(lines.map(lineText).join(''));
    const ends = lines.map((_, i) => Buffer.byteLength(lines.slice(0, i + 1).map(lineText).join('')));
    const firstEnd = ends[0]!;
    for (let cut = firstEnd; cut <= full.length; cut += 1) {
      const load = readJsonl(full.subarray(0, cut), 'cut');
      const complete = ends.filter((end) => end <= cut).length;
      // Cut exactly before a newline: the record is whole, only its terminator is missing.
      const onlyNewlineMissing = ends.includes(cut + 1);
      expect(load.lines).toHaveLength(complete + (onlyNewlineMissing ? 1 : 0));
      const tornExpected = !ends.includes(cut) && !onlyNewlineMissing;
      expect(load.torn !== undefined).toBe(tornExpected);
      if (load.torn) expect(load.torn.offset).toBe(Math.max(...ends.filter((end) => end <= cut)));
    }
  });

  it('LOOM-1: appending after reopening a torn file starts a fresh line and keeps every record', () => {
    writeChain(2);
    const half = lineText({ kind: 'turn', turn: sampleCrystalTurn('t3', 't2') }).slice(0, 40);
    appendFileSync(file, half);

    const storage = storageAt(file);
    const loom = new Loom(storage);
    expect(loom.loadReport.torn?.line).toBe(4);
    loom.append(sampleCrystalTurn('t3', 't2', { utterance: 'retried' }));
    loom.annotateReward('t3', 1);
    storage.close();

    const reopened = new Loom(storageAt(file));
    expect(reopened.loadReport.torn).toBeUndefined();
    expect(reopened.turns().map((turn) => turn.id)).toEqual(['call', 't1', 't2', 't3']);
    expect(reopened.get('t3').utterance).toBe('retried');
    expect(reopened.get('t3').reward).toBe(1);
    // The torn bytes are kept aside, not silently dropped.
    expect(readFileSync(`${file}.torn`, 'utf8')).toBe(`${half}\n`);
  });

  it('LOOM-1: a last record missing only its newline is kept, and the next append goes on its own line', () => {
    writeChain(2);
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.slice(0, -1));

    const storage = storageAt(file);
    const loom = new Loom(storage);
    expect(loom.loadReport.torn).toBeUndefined();
    expect(loom.size).toBe(3);
    loom.append(sampleCrystalTurn('t3', 't2'));
    storage.close();
    expect(new Loom(storageAt(file)).turns().map((turn) => turn.id)).toEqual(['call', 't1', 't2', 't3']);
    expect(existsSync(`${file}.torn`)).toBe(false);
  });

  it('LOOM-1: a corrupt line in the middle is a LoomLoadError naming the file and line', () => {
    writeChain(1);
    const [first, second] = readFileSync(file, 'utf8').trimEnd().split('\n');
    writeFileSync(file, `${first}\n{"kind":"turn","turn":{"id":\n${second}\n`);
    expect(() => new Loom(storageAt(file))).toThrow(LoomLoadError);
    expect(() => storageAt(file).load()).toThrow(expect.objectContaining({ location: file, line: 2 }));
  });

  it('LOOM-1: a blank middle line, a bad line shape, or a corrupt terminated last line are errors, not torn tails', () => {
    const call = lineText({ kind: 'turn', turn: sampleCallTurn('call') });
    const cases: Array<[string, number]> = [
      [`${call}\n${call}`, 2],
      [`${call}{"kind":"note","turn_id":"call"}\n`, 2],
      [`${call}{"kind":"reward","turn_id":"call","reward":"high"}\n`, 2],
      [`${call}{"kind":"turn","tu\n`, 2],
    ];
    for (const [text, line] of cases) {
      expect(() => readJsonl(Buffer.from(text), 'case.jsonl')).toThrow(expect.objectContaining({ location: 'case.jsonl', line }));
    }
  });

  it('LOOM-2: a file that repeats a turn id is a LoomLoadError at the repeated line', () => {
    writeChain(1);
    appendFileSync(file, lineText({ kind: 'turn', turn: sampleCrystalTurn('t1', 'call') }));
    expect(() => new Loom(storageAt(file))).toThrow(expect.objectContaining({ name: 'LoomLoadError', location: file, line: 3 }));
  });
});

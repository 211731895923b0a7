/**
 * A hung implementation fails fast: the handshake gets its own start-up bound, a case that runs out of
 * time names the request still waiting, and after 3 cases in a row left unanswered for one cause the
 * rest are errored with that cause without waiting. The peer answers late by far more than the bounds
 * used here, so what these tests see does not depend on the machine's speed; only how long they take does.
 */
import { describe, expect, it, vi } from 'vitest';
import * as os from 'node:os';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../cli/main.ts';
import { loadCaseFile } from '../case-file/load.ts';
import { runSuite, type SuiteResult } from '../run/run.ts';
import { buildReport, caseSummaryLines } from '../report/index.ts';
import { commandAdapterFactory, type JsonRpcAdapterOptions } from './jsonrpc-adapter.ts';
import { peerCaseFile } from './peer-cases.ts';
import { GIVE_UP_AFTER, unanswered, UnansweredStreak } from './unanswered.ts';
import { hangBound } from '../testing/hang-bound.ts';

// The case limit stretches with the machine's load (harness/values/machine-load.ts); the test that needs the
// limit to end before the peer's late answer reads an idle load average, so its premise holds at any load.
vi.mock('node:os', async (original) => {
  const real = await original<typeof import('node:os')>();
  return { ...real, loadavg: vi.fn(real.loadavg) };
});

const BROKEN = join(PACKAGE_ROOT, 'fixtures', 'adapters', 'broken-peer.mjs');
/** How late the peer sends every answer; each bound below is a fraction of it. */
const LATE_MS = 1_500;

function runLatePeer(intents: string[], options: JsonRpcAdapterOptions, timeoutMs?: number): Promise<SuiteResult> {
  const factory = commandAdapterFactory({ command: process.execPath, args: [BROKEN, '--answer-after', String(LATE_MS)] }, options);
  return runSuite(loadCaseFile(peerCaseFile(intents)), factory, timeoutMs === undefined ? {} : { timeoutMs });
}

const NOT_RUN = `not run: the adapter left ${GIVE_UP_AFTER} cases in a row unanswered (ok-0, ok-1, ok-2), so the run stopped waiting on it`;

describe('an implementation that answers every request late', () => {
  it('PROD-1: the handshake waits out its start-up bound; each case errors on the silence naming the request; after 3 the rest are not waited for', async () => {
    // The premise, a 300 ms silence bound ending before the 1,500 ms late answer, needs the bound unstretched:
    // the waits stretch with the load (issue 32), so this test reads an idle load average.
    vi.mocked(os.loadavg).mockReturnValue([0, 0, 0]);
    let suite: SuiteResult;
    try {
      suite = await runLatePeer(['ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok'], { silenceMs: 300 });
    } finally {
      vi.mocked(os.loadavg).mockRestore();
    }
    const [first, second, third, ...rest] = suite.cases;
    for (const c of [first, second, third]) {
      expect(c?.status).toBe('errored');
      // 'construct', not 'describe': the handshake, answered as late, was not held to the silence bound.
      expect(c?.reason).toContain("the implementation sent nothing for 300 ms while 'construct'");
    }
    expect(rest.map((c) => c.status)).toEqual(['errored', 'errored', 'errored', 'errored']);
    for (const c of rest) expect(c.reason).toContain(NOT_RUN);
    expect(suite.stopped).toContain('stopped waiting on it');
    // The summary shows the cause the rest share once, then one line counting the other cases.
    const lines = caseSummaryLines(buildReport(suite));
    // Once among the failing cases' reasons (the root causes above them name it once more).
    expect(lines.filter((l) => l.startsWith('      ') && l.includes(NOT_RUN))).toHaveLength(1);
    expect(lines.filter((l) => rest.slice(1).some((c) => l.includes(c.id)))).toEqual([]);
    expect(lines.filter((l) => l.trim().startsWith('ERRORED '))).toHaveLength(4);
  }, hangBound(120_000));

  it('PROD-1: a case that runs out of its time limit names the request still waiting for an answer', async () => {
    // 300 ms, unstretched, against answers 1500 ms late: the limit ends while 'construct' is pending.
    vi.mocked(os.loadavg).mockReturnValue([0, 0, 0]);
    let suite: SuiteResult;
    try {
      suite = await runLatePeer(['ok', 'ok', 'ok', 'ok'], { silenceMs: 60_000 }, 300);
    } finally {
      vi.mocked(os.loadavg).mockRestore();
    }
    const [first, , , last] = suite.cases;
    expect(first?.timed_out).toBe(true);
    expect(first?.reason).toMatch(/^case ok-0 did not finish within 300 ms; still waiting for the implementation's answer to 'construct' \(sent \d+ ms earlier\)$/);
    expect(last?.reason).toContain(NOT_RUN);
  }, hangBound(120_000));
});

describe('an implementation that answers, even badly, is never given up on', () => {
  it('PROD-1: cases that crash the peer one after another each keep their own verdict', async () => {
    const suite = await runSuite(loadCaseFile(peerCaseFile(['exit', 'exit', 'exit', 'exit', 'ok'])), commandAdapterFactory({ command: process.execPath, args: [BROKEN] }));
    expect(suite.cases.map((c) => c.status)).toEqual(['errored', 'errored', 'errored', 'errored', 'pass']);
    for (const c of suite.cases.slice(0, 4)) expect(c.reason).toContain('exited with code 3');
    expect(suite.stopped).toBeUndefined();
  }, hangBound(120_000));
});

describe('the unanswered streak', () => {
  const silent = (id: string, method = 'cast') => ({ id, status: 'errored', reason: `the implementation sent nothing for 8000 ms while '${method}' (id 3) waited for its answer` });
  const timedOut = (id: string) => ({ id, status: 'errored', timed_out: true, reason: `case ${id} did not finish within 10000 ms` });

  it('counts timeouts and silences, not answers that are errors', () => {
    expect(unanswered(silent('a'))).toBe(true);
    expect(unanswered(timedOut('a'))).toBe(true);
    expect(unanswered({ id: 'a', status: 'errored', reason: "adapter threw: RemoteError: the implementation answered 'fork' with JSON-RPC error -32601" })).toBe(false);
    expect(unanswered({ id: 'a', status: 'fail' })).toBe(false);
  });

  it('gives up after 3 in a row for the same cause, whatever the ids, methods and numbers in it', () => {
    const streak = new UnansweredStreak();
    expect(streak.record(silent('a', 'construct'))).toBeUndefined();
    expect(streak.record(silent('b', 'cast'))).toBeUndefined();
    expect(streak.record(silent('c', 'fork'))).toContain('left 3 cases in a row unanswered (a, b, c)');
  });

  it('starts over after a case that was answered, or on another cause', () => {
    const streak = new UnansweredStreak();
    streak.record(silent('a'));
    streak.record(silent('b'));
    expect(streak.record({ id: 'c', status: 'pass' })).toBeUndefined();
    streak.record(silent('d'));
    streak.record(silent('e'));
    expect(streak.record(timedOut('f'))).toBeUndefined();
    expect(streak.record(timedOut('g'))).toBeUndefined();
    expect(streak.record(timedOut('h'))).toContain('(f, g, h)');
  });

  it('never gives up with a limit of 0', () => {
    const streak = new UnansweredStreak(0);
    for (const id of ['a', 'b', 'c', 'd']) expect(streak.record(silent(id))).toBeUndefined();
  });
});

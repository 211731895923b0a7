/**
 * The adapter protocol end to end: the reference served over stdio gives the same verdicts as in-process
 * (PROD-1), and a broken implementation gives errored cases with a reason naming what broke, never a hang,
 * while the run goes on to the next case.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { join } from 'node:path';
import { PROTOCOL_VERSION } from '../../schemas/adapter.ts';
import { adapterFactory, main, PACKAGE_ROOT } from '../cli/main.ts';
import { loadCaseFile } from '../case-file/load.ts';
import { runSuite, type CaseResult, type SuiteResult } from '../run/run.ts';
import { commandAdapterFactory, type JsonRpcAdapterOptions } from './jsonrpc-adapter.ts';
import { peerCaseFile } from './peer-cases.ts';
import { hangBound } from '../testing/hang-bound.ts';

/** An errored case that ran into a time bound (its own limit, or a timing premise never met): incomplete, with no verdict. */
function cutOffByTime(c: CaseResult): boolean {
  return c.status === 'errored' && (c.timed_out === true || c.premise_missed === true);
}

const SERVER = join(PACKAGE_ROOT, 'reference', 'adapter', 'stdio-server.ts');
const BROKEN = join(PACKAGE_ROOT, 'fixtures', 'adapters', 'broken-peer.mjs');
const reference = { command: process.execPath, args: ['--import', 'tsx', SERVER] };

describe('PROD-1: the reference over stdio gives the same verdicts as in-process', () => {
  let inProcess: SuiteResult;
  let overStdio: SuiteResult;
  beforeAll(async () => {
    const file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
    inProcess = await runSuite(file, await adapterFactory('reference', PACKAGE_ROOT));
    overStdio = await runSuite(file, commandAdapterFactory(reference, { cwd: PACKAGE_ROOT }));
  }, hangBound(300_000));

  it('PROD-1: every case of tests.yaml complete both ways has the same status both ways', async ({ annotate }) => {
    // A case cut off by a time bound in either run (on a loaded machine, issue 31 item 5) has no verdict
    // to compare: it is left out, and named, rather than counted as a difference.
    const cutOff = new Set([...inProcess.cases, ...overStdio.cases].filter(cutOffByTime).map((c) => c.id));
    if (cutOff.size > 0) await annotate(`left out, cut off by a time bound in a run: ${[...cutOff].join(', ')}`);
    const statuses = (suite: SuiteResult) => Object.fromEntries(suite.cases.filter((c) => !cutOff.has(c.id)).map((c) => [c.id, c.status]));
    expect(Object.keys(statuses(overStdio)).length).toBeGreaterThanOrEqual(30);
    expect(statuses(overStdio)).toEqual(statuses(inProcess));
  });

  it('PROD-1: nothing errored or failed over stdio (with the reasons, if anything did)', (context) => {
    const bad = overStdio.cases.filter((c) => c.status === 'fail' || (c.status === 'errored' && !cutOffByTime(c))).map((c) => ({ id: c.id, status: c.status, reason: c.reason, failures: c.failures }));
    expect(bad).toEqual([]);
    // A case cut off by a time bound is incomplete, not a failure: the test says so instead of passing.
    const cutOff = overStdio.cases.filter(cutOffByTime).map((c) => `${c.id}: ${c.reason ?? ''}`);
    context.skip(cutOff.length > 0, `incomplete: cut off by a time bound over stdio: ${cutOff.join('; ')}`);
  });

  it('PROD-1: the description crossed the wire unchanged', () => {
    expect(overStdio.description).toEqual(inProcess.description);
    expect(overStdio.description.protocol_version).toBe(PROTOCOL_VERSION);
  });
});

/**
 * A silence bound short enough for the 'silent' case to end soon, yet far above the few milliseconds a
 * well-behaved peer takes to answer, even on a loaded machine. The handshake keeps its default bound.
 */
const BOUNDS: JsonRpcAdapterOptions = { silenceMs: 2_000 };

/** Results by intent; a repeated intent keeps its cases in order. */
async function runPeer(intents: string[], args: string[] = [], options = BOUNDS): Promise<Record<string, CaseResult[]>> {
  const suite = await runSuite(loadCaseFile(peerCaseFile(intents)), commandAdapterFactory({ command: process.execPath, args: [BROKEN, ...args] }, options));
  const byIntent: Record<string, CaseResult[]> = {};
  for (const c of suite.cases) (byIntent[c.id.replace(/-\d+$/, '')] ??= []).push(c);
  return byIntent;
}

describe('a broken implementation gives errored cases with a clear reason, and the run goes on', () => {
  const results: Record<string, CaseResult> = {};
  let controls: CaseResult[] = [];
  beforeAll(async () => {
    // The control case runs between and after the faults: each fault must stay within its own case.
    const byIntent = await runPeer(['garbage', 'ok', 'unknown-id', 'bad-result', 'bad-callback', 'exit', 'silent', 'ok']);
    for (const [intent, list] of Object.entries(byIntent)) results[intent] = list[0]!;
    controls = byIntent.ok ?? [];
  }, hangBound(120_000));

  it('a line that is not JSON: errored, quoting the line', () => {
    expect(results.garbage?.status).toBe('errored');
    expect(results.garbage?.reason).toContain('is not valid JSON');
    expect(results.garbage?.reason).toContain('this is not json');
  });

  it('a response with an unknown id: errored, naming the id', () => {
    expect(results['unknown-id']?.status).toBe('errored');
    expect(results['unknown-id']?.reason).toContain('id 999');
  });

  it('a result off its schema: errored, naming the method and the field', () => {
    expect(results['bad-result']?.status).toBe('errored');
    expect(results['bad-result']?.reason).toContain("for 'cast'");
    expect(results['bad-result']?.reason).toContain('/value/usage');
  });

  it('a host callback with invalid params: errored, naming the callback and the field', () => {
    expect(results['bad-callback']?.status).toBe('errored');
    expect(results['bad-callback']?.reason).toContain("'host.queryCrystal'");
    expect(results['bad-callback']?.reason).toContain('/crystal');
  });

  it('a peer that exits mid-case: errored, with its exit code and the tail of its stderr', () => {
    expect(results.exit?.status).toBe('errored');
    expect(results.exit?.reason).toContain('exited with code 3');
    expect(results.exit?.reason).toContain('broken-peer: simulated crash in cast');
  });

  it('a peer that never answers: errored once its silence passes the bound, naming the waiting method', () => {
    expect(results.silent?.status).toBe('errored');
    // The bound is stretched with the machine's load (issue 32, item 6): at least the idle bound, not a case time limit.
    expect(results.silent?.timed_out).toBeUndefined();
    expect(Number(/sent nothing for (\d+) ms/.exec(results.silent?.reason ?? '')?.[1])).toBeGreaterThanOrEqual(BOUNDS.silenceMs!);
    expect(results.silent?.reason).toContain("'cast'");
  });

  it('the well-behaved cases after the faults are judged normally (not errored)', () => {
    expect(controls).toHaveLength(2);
    for (const control of controls) {
      expect(control.status).not.toBe('errored');
      expect(control.reason).toBeUndefined();
      expect(control.expectations).toBe(1);
    }
  });
});

describe('handshake', () => {
  it('a peer speaking another protocol version is stopped at the handshake, naming both versions; the CLI exits 2 before any case', async () => {
    const other = PROTOCOL_VERSION + 4;
    await expect(runPeer(['ok', 'ok'], ['--protocol', String(other)])).rejects.toThrow(new RegExp(`\\b${other}\\b[^]*\\b${PROTOCOL_VERSION}\\b`));
    const out: string[] = [];
    const err: string[] = [];
    const spec = `cmd:${process.execPath} '${BROKEN}' --protocol ${other}`;
    const code = await main(['run', '--adapter', spec, '--no-out'], { out: (l) => out.push(l), err: (l) => err.push(l), cwd: PACKAGE_ROOT });
    expect(code).toBe(2);
    expect(out).toEqual([]);
    expect(err.join('\n')).toMatch(new RegExp(`\\b${other}\\b[^]*\\b${PROTOCOL_VERSION}\\b`));
  }, hangBound(120_000));

  it('the CLI refuses to start (exit 2) when the command does not exist, saying so', async () => {
    const err: string[] = [];
    const code = await main(['run', '--adapter', 'cmd:./no-such-implementation --flag'], { out: () => undefined, err: (l) => err.push(l), cwd: PACKAGE_ROOT });
    expect(code).toBe(2);
    expect(err.join('\n')).toContain('could not be started');
  }, hangBound(120_000));

  it('the CLI runs a filtered suite against the reference over stdio (exit 0)', async () => {
    const out: string[] = [];
    const spec = `cmd:${process.execPath} --import tsx '${SERVER}'`;
    const code = await main(['run', '--adapter', spec, '--filter', 'LOOP-3'], { out: (l) => out.push(l), err: () => undefined, cwd: PACKAGE_ROOT });
    expect(out.join('\n')).toContain('MUST   PASS');
    expect(code).toBe(0);
  }, hangBound(120_000));
});

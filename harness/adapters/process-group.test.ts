/**
 * Process hygiene: the implementation runs in a process group of its own, and stopping it ends the whole
 * group, so neither a child it leaves behind nor a process that ignores SIGTERM outlives the run.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../cli/main.ts';
import { loadCaseFile } from '../case-file/load.ts';
import { runSuite } from '../run/run.ts';
import { stopAllImplementations } from './child-process.ts';
import { commandAdapterFactory } from './jsonrpc-adapter.ts';
import { peerCaseFile } from './peer-cases.ts';
import { peerLog, processGone, tempLog } from './peer-log.ts';
import { hangBound } from '../testing/hang-bound.ts';

const BROKEN = join(PACKAGE_ROOT, 'fixtures', 'adapters', 'broken-peer.mjs');

async function runAndStop(flags: string[], intents: string[]): Promise<{ peers: number[]; children: number[] }> {
  const log = tempLog();
  const factory = commandAdapterFactory({ command: process.execPath, args: [BROKEN, '--log', log, ...flags] }, { silenceMs: 2_000 });
  const suite = await runSuite(loadCaseFile(peerCaseFile(intents)), factory);
  expect(suite.cases.map((c) => c.status)).toEqual(intents.map(() => 'pass'));
  // The end of a run, as the command does it: every process still up (the parked one) is stopped.
  await stopAllImplementations(600);
  return peerLog(log);
}

describe('implementation processes end with the run', () => {
  it('PROD-1: a child the implementation started and left behind does not outlive the run', async () => {
    const { peers, children } = await runAndStop(['--orphan'], ['ok', 'ok']);
    expect(children.length).toBeGreaterThan(0);
    for (const pid of [...peers, ...children]) expect(await processGone(pid), `process ${pid}`).toBe(true);
  }, hangBound(120_000));

  it('PROD-1: an implementation that ignores SIGTERM and closed stdin is killed', async () => {
    const { peers } = await runAndStop(['--ignore-sigterm'], ['ok']);
    expect(peers.length).toBeGreaterThan(0);
    for (const pid of peers) expect(await processGone(pid), `process ${pid}`).toBe(true);
  }, hangBound(120_000));
});

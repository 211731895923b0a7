/**
 * A process serves the next session even when the last one ended while the harness was still answering
 * one of its callbacks (a cast cut off by a ward leaves its slow crystal query running here): that
 * answer is ended with the session, so no process start is spent per such case.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../cli/main.ts';
import { loadCaseFile } from '../case-file/load.ts';
import { runSuite } from '../run/run.ts';
import { stopAllImplementations } from './child-process.ts';
import { commandAdapterFactory } from './jsonrpc-adapter.ts';
import { peerCaseFile } from './peer-cases.ts';
import { peerLog, tempLog } from './peer-log.ts';
import { hangBound } from '../testing/hang-bound.ts';

const BROKEN = join(PACKAGE_ROOT, 'fixtures', 'adapters', 'broken-peer.mjs');

describe('process reuse across sessions', () => {
  it('PROD-1: a session that ends with a callback still being answered leaves its process for the next session', async () => {
    const log = tempLog();
    const factory = commandAdapterFactory({ command: process.execPath, args: [BROKEN, '--log', log] });
    // The crystal takes 2 s to answer, long after the peer has ended the cast without waiting for it.
    const suite = await runSuite(loadCaseFile(peerCaseFile(['abandon-query', 'ok'], { crystalDelayMs: 2_000 })), factory);
    await stopAllImplementations(600);
    expect(suite.cases.map((c) => [c.id, c.status, c.reason])).toEqual([
      ['abandon-query-0', 'pass', undefined],
      ['ok-1', 'pass', undefined],
    ]);
    expect(peerLog(log).peers).toHaveLength(1);
  }, hangBound(120_000));
});

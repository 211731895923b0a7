/**
 * Every wait on an implementation is stretched with the machine's load like the case limits (issue 32,
 * item 6): the silence bound and the handshake bound hold on an idle machine, and on a loaded one an
 * answer that comes late but within the stretched bound is an answer, not silence.
 */
import { describe, it, expect, vi } from 'vitest';
import { join } from 'node:path';

// A machine six times busier than idle, whatever this one's load is now.
vi.mock('../values/machine-load.ts', () => ({
  loadFactor: () => 6,
  stretchedForLoad: (idleMs: number, factor = 6) => Math.ceil(idleMs * factor),
}));

const { loadCaseFile } = await import('../case-file/load.ts');
const { PACKAGE_ROOT } = await import('../cli/main.ts');
const { runSuite } = await import('../run/run.ts');
const { commandAdapterFactory } = await import('./jsonrpc-adapter.ts');
const { peerCaseFile } = await import('./peer-cases.ts');
const { hangBound } = await import('../testing/hang-bound.ts');

const BROKEN = join(PACKAGE_ROOT, 'fixtures', 'adapters', 'broken-peer.mjs');

describe('bounds on the implementation at load', () => {
  it('answers 1500 ms late against 500 ms idle bounds (3000 ms stretched): the handshake and the case go through', async () => {
    const factory = commandAdapterFactory({ command: process.execPath, args: [BROKEN, '--answer-after', '1500'] }, { silenceMs: 500, handshakeMs: 500 });
    const suite = await runSuite(loadCaseFile(peerCaseFile(['ok'])), factory);
    expect(suite.cases.map((c) => [c.status, c.timed_out])).toEqual([['pass', undefined]]);
  }, hangBound(60_000));
});

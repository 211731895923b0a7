/**
 * The Python skeleton (fixtures/adapters/python/) speaks the protocol well enough to pass the core cases
 * it claims, through the callback and, in its HTTP mode, through the crystal server's OpenAI format.
 * Skipped, saying why, when python3 is not installed.
 */
import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../cli/main.ts';
import { loadCaseFile } from '../case-file/load.ts';
import { runSuite } from '../run/run.ts';
import { commandAdapterFactory } from './jsonrpc-adapter.ts';

const SKELETON = join(PACKAGE_ROOT, 'fixtures', 'adapters', 'python', 'cantrip_adapter_skeleton.py');
const python = spawnSync('python3', ['--version']).status === 0;

/** The cases the skeleton's docstring promises, with the rules they exercise. */
const CLAIMED = [
  'done-ends-cast-with-answer', // LOOP-3, CIRCLE-8
  'construct-without-done-gate-refused', // CANTRIP-3, CIRCLE-1
  'construct-without-truncation-ward-refused', // CANTRIP-3, CIRCLE-2
  'cast-without-intent-refused', // INTENT-1
  'max-turns-truncates-the-cast', // LOOP-4, CIRCLE-2
  'gate-failure-returns-as-observation', // CIRCLE-5
  'system-prompt-leads-every-request', // CALL-2, INTENT-2
  'text-reply-ends-cast-when-done-not-required', // LOOP-6
  'usage-tracked-per-turn-and-per-entity', // PROD-3, LOOM-9
  'loop1-text-turn-followed-by-circle-message', // LOOP-1, LOOP-6
  'invoked-entity-keeps-state-across-sends', // ENTITY-5
  'entity2-caller-chosen-id-is-used', // ENTITY-2 (caller-entity-id)
  'loom7-crystal-failure-recorded-as-truncation', // LOOM-7, PROD-2
  'prod2-server-errors-back-off-1-2-4', // PROD-2
  'thread-is-the-root-to-leaf-path', // LOOM-10
  'stored-turn-cannot-be-edited', // LOOM-3
];

/** Cases about a provider's behaviour on the wire (run only through a wire transport). */
const WIRE_CASES = [
  'crystal2-overflow-on-the-wire-is-a-structured-failure', // CRYSTAL-2
  'crystal4-ids-made-up-when-the-provider-sends-none', // CRYSTAL-4
  'prod2-rate-limit-on-the-wire-retried-as-one-turn', // PROD-2
  'prod2-bad-request-on-the-wire-not-retried', // PROD-2
  'loom9-cached-tokens-carried-from-the-wire', // LOOM-9
];

describe('the Python skeleton over the adapter protocol', () => {
  it.runIf(!python)('is skipped: python3 is not installed on this machine', () => {
    expect(python).toBe(false);
  });

  it.runIf(python)('LOOP-1, LOOP-3, LOOP-4, LOOP-6, CANTRIP-3, INTENT-1, CIRCLE-5, CALL-2, PROD-2, PROD-3, ENTITY-2, ENTITY-5, LOOM-3, LOOM-7, LOOM-10: passes the core cases it claims', async () => {
    const suite = await runSuite(loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml')), commandAdapterFactory({ command: 'python3', args: [SKELETON] }, { cwd: PACKAGE_ROOT }), { filter: CLAIMED });
    expect(suite.description.name).toBe('python-skeleton');
    expect(suite.cases.map((c) => c.id).sort()).toEqual([...CLAIMED].sort());
    const notPassing = suite.cases.filter((c) => c.status !== 'pass').map((c) => ({ id: c.id, status: c.status, reason: c.reason, failures: c.failures, invariants: c.invariants.filter((i) => i.status === 'fail') }));
    expect(notPassing).toEqual([]);
  }, 120_000);

  it.runIf(!python)('HTTP mode is skipped: python3 is not installed on this machine', () => {
    expect(python).toBe(false);
  });

  it.runIf(python)('HTTP mode (urllib against the crystal server, openai transport): the claimed cases and the wire cases of its provider pass', async () => {
    const factory = commandAdapterFactory({ command: 'python3', args: [SKELETON] }, { cwd: PACKAGE_ROOT });
    const suite = await runSuite(loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml')), factory, { filter: [...CLAIMED, ...WIRE_CASES], crystalTransport: 'openai' });
    expect(suite.description.crystal_transports).toContain('openai');
    expect(suite.cases.map((c) => c.id).sort()).toEqual([...CLAIMED, ...WIRE_CASES].sort());
    const notPassing = suite.cases.filter((c) => c.status !== 'pass').map((c) => ({ id: c.id, status: c.status, reason: c.reason, failures: c.failures, invariants: c.invariants.filter((i) => i.status === 'fail') }));
    expect(notPassing).toEqual([]);
    // The wire-format invariant saw its requests.
    expect(suite.cases.some((c) => c.invariants.some((i) => i.id === 'wire-format' && i.status === 'pass'))).toBe(true);
  }, 120_000);
});

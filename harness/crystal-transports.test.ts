/**
 * The reference through each wire transport (its own providers against the crystal server) gives the
 * same verdict as through the callback on every case both run, and every wire-only case passes: the
 * harness's checks apply unchanged to requests parsed back from the wire (issue 13).
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { join } from 'node:path';
import type { CrystalTransport } from '../schemas/adapter.ts';
import { createReferenceAdapter } from '../reference/adapter/index.ts';
import { PACKAGE_ROOT } from './cli-main.ts';
import { loadCaseFile } from './load.ts';
import { runSuite, type SuiteResult } from './run.ts';

const file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
const factory = () => createReferenceAdapter();
const WIRE: CrystalTransport[] = ['openai', 'openai-stream', 'anthropic', 'anthropic-stream'];

describe('crystal transports: the reference over the providers\' wire formats', () => {
  let callback: SuiteResult;
  beforeAll(async () => {
    callback = await runSuite(file, factory);
  }, 180_000);

  for (const transport of WIRE) {
    it(`${transport}: the same verdicts as the callback, and the wire cases pass`, async () => {
      const wire = await runSuite(file, factory, { crystalTransport: transport });
      const byId = new Map(callback.cases.map((c) => [c.id, c.status]));
      const differing = wire.cases.filter((c) => c.status !== 'skipped' && byId.get(c.id) !== 'skipped' && byId.get(c.id) !== c.status);
      expect(differing.map((c) => ({ id: c.id, wire: c.status, reason: c.reason, failures: c.failures, invariants: c.invariants.filter((i) => i.status === 'fail') }))).toEqual([]);
      const broken = wire.cases.filter((c) => c.status === 'fail' || c.status === 'errored').map((c) => c.id);
      expect(broken).toEqual([]);
      const wireOnly = wire.cases.filter((c) => c.status === 'pass' && byId.get(c.id) === 'skipped');
      expect(wireOnly.length).toBeGreaterThanOrEqual(4);
      // The wire-format invariant looked at real requests in the cases that ran.
      expect(wire.cases.some((c) => c.invariants.some((i) => i.id === 'wire-format' && i.status === 'pass'))).toBe(true);
    }, 180_000);
  }

  it('a transport the implementation does not declare skips every case with the reason', async () => {
    const callbackOnly = () => {
      const adapter = createReferenceAdapter();
      const describe = adapter.describe.bind(adapter);
      adapter.describe = async () => ({ ...(await describe()), crystal_transports: ['callback'] });
      return adapter;
    };
    const suite = await runSuite(file, callbackOnly, { crystalTransport: 'openai', filter: ['LOOP-3'] });
    expect(suite.cases.length).toBeGreaterThan(0);
    expect(suite.cases.every((c) => c.status === 'skipped' && (c.reason ?? '').includes('crystal transport not declared'))).toBe(true);
  });
});

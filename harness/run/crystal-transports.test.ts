/**
 * The reference through each wire transport (its own providers against the crystal server) gives the
 * same verdict as through the callback on every case both run, and every wire-only case passes: the
 * harness's checks apply unchanged to requests parsed back from the wire (issue 13).
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { connect } from 'node:net';
import { join } from 'node:path';
import type { Adapter, CrystalTransport } from '../../schemas/adapter.ts';
import { createReferenceAdapter } from '../../reference/adapter/index.ts';
import { PACKAGE_ROOT } from '../cli/main.ts';
import { loadCaseFile } from '../case-file/load.ts';
import { DEFAULT_CASE_TIMEOUT_MS, runSuite, type SuiteResult } from './run.ts';
import { hangBound } from '../testing/hang-bound.ts';

/**
 * The draft these runs judge: a provider's wire handling (CRYSTAL-2..6 / LLM-2..6, PROD-2) is the same at
 * every draft and every wire case applies to every draft, so one draft judges them over each transport;
 * reference.test.ts runs every case at every draft (a wire case over the first transport it names).
 */
const WIRE_DRAFT = '0.1.0';

const file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
const factory = () => createReferenceAdapter();
// Reference instances share nothing, and each case gets its own server, so waiting cases may overlap (as in npm start).
const JOBS = 6;
const WIRE: CrystalTransport[] = ['openai', 'openai-stream', 'anthropic', 'anthropic-stream', 'gemini', 'gemini-stream'];

/** Runs of a case that ran out of its time limit, its limit doubled each time (the first included). */
const TIME_LIMITED_ATTEMPTS = 3;

/**
 * The suite's results with every case that ran out of its time limit run again alone, its limit doubled
 * each time, up to {@link TIME_LIMITED_ATTEMPTS} runs. A case cut off by the clock on a busy machine says
 * nothing about the transport, so it is given the time it needs before verdicts are compared; a case
 * that fails, or errors for any other reason, keeps its verdict.
 */
async function withTimeLimitedRerun(suite: SuiteResult, transport: CrystalTransport): Promise<SuiteResult> {
  const cases = [];
  // One at a time: the reruns are for a machine that was already too busy.
  for (const c of suite.cases) {
    let result = c;
    for (let attempt = 1, limit = DEFAULT_CASE_TIMEOUT_MS; attempt < TIME_LIMITED_ATTEMPTS && result.status === 'errored' && result.timed_out; attempt++) {
      limit *= 2;
      result = (await runSuite(file, factory, { draft: WIRE_DRAFT, crystalTransport: transport, filter: [c.id], timeoutMs: limit })).cases[0] ?? result;
    }
    cases.push(result);
  }
  return { ...suite, cases };
}

describe('crystal transports: the reference over the providers\' wire formats', () => {
  let callback: SuiteResult;
  beforeAll(async () => {
    callback = await withTimeLimitedRerun(await runSuite(file, factory, { draft: WIRE_DRAFT, jobs: JOBS }), 'callback');
    // Bounds for a hang only: at load 30 on 2 cores one pass over the suite took over 300 s.
  }, hangBound(900_000));

  for (const transport of WIRE) {
    it(`${transport}: the same verdicts as the callback, and the wire cases pass`, async () => {
      const wire = await withTimeLimitedRerun(await runSuite(file, factory, { draft: WIRE_DRAFT, crystalTransport: transport, jobs: JOBS }), transport);
      const byId = new Map(callback.cases.map((c) => [c.id, c.status]));
      const differing = wire.cases.filter((c) => c.status !== 'skipped' && byId.get(c.id) !== 'skipped' && byId.get(c.id) !== c.status);
      expect(differing.map((c) => ({ id: c.id, wire: c.status, reason: c.reason, failures: c.failures, invariants: c.invariants.filter((i) => i.status === 'fail') }))).toEqual([]);
      const broken = wire.cases.filter((c) => c.status === 'fail' || c.status === 'errored').map((c) => c.id);
      expect(broken).toEqual([]);
      const aboutTheWire = new Set(file.cases.filter((c) => c.transports !== undefined && !c.transports.includes('callback')).map((c) => c.id));
      const wireOnly = wire.cases.filter((c) => c.status === 'pass' && aboutTheWire.has(c.id));
      expect(wireOnly.length).toBeGreaterThanOrEqual(4);
      // The wire-format invariant looked at real requests in the cases that ran.
      expect(wire.cases.some((c) => c.invariants.some((i) => i.id === 'wire-format' && i.status === 'pass'))).toBe(true);
    }, hangBound(900_000));
  }

  it('a callback run judges the wire-only cases over a wire transport the implementation declares, and skips them when it declares none (issue 22.16)', async () => {
    const aboutTheWire = file.cases.filter((c) => c.transports !== undefined && !c.transports.includes('callback'));
    expect(aboutTheWire.length).toBeGreaterThanOrEqual(4);
    const ids = aboutTheWire.map((c) => c.id);
    // The reference declares every transport: each such case ran, over the first wire transport it names, and passed.
    const ran = callback.cases.filter((c) => ids.includes(c.id));
    expect(ran.map((c) => ({ id: c.id, status: c.status, over: c.crystal_transport }))).toEqual(aboutTheWire.map((c) => ({ id: c.id, status: 'pass', over: c.transports![0] })));
    expect(ran.every((c) => c.invariants.some((i) => i.id === 'wire-format' && i.status === 'pass'))).toBe(true);
    // An implementation that offers only a gemini client is judged over gemini on the cases that name it, and the rest are skipped with the reason.
    const geminiOnly = () => {
      const adapter = createReferenceAdapter();
      const describe = adapter.describe.bind(adapter);
      adapter.describe = async () => ({ ...(await describe()), crystal_transports: ['callback', 'gemini'] });
      return adapter;
    };
    const suite = await runSuite(file, geminiOnly, { draft: WIRE_DRAFT, filter: ids, jobs: JOBS });
    for (const c of aboutTheWire) {
      const result = suite.cases.find((r) => r.id === c.id)!;
      if (c.transports!.includes('gemini')) expect({ id: c.id, status: result.status, over: result.crystal_transport }).toEqual({ id: c.id, status: 'pass', over: 'gemini' });
      else expect({ id: c.id, status: result.status, reason: result.reason }).toEqual({ id: c.id, status: 'skipped', reason: expect.stringContaining('declares none of them') });
    }
  }, hangBound(180_000));

  it('a transport the implementation does not declare skips every case with the reason', async () => {
    const callbackOnly = () => {
      const adapter = createReferenceAdapter();
      const describe = adapter.describe.bind(adapter);
      adapter.describe = async () => ({ ...(await describe()), crystal_transports: ['callback'] });
      return adapter;
    };
    const suite = await runSuite(file, callbackOnly, { draft: WIRE_DRAFT, crystalTransport: 'openai', filter: ['LOOP-3'] });
    expect(suite.cases.length).toBeGreaterThan(0);
    expect(suite.cases.every((c) => c.status === 'skipped' && (c.reason ?? '').includes('crystal transport not declared'))).toBe(true);
  });
});

/** Resolves true when a TCP connection to 127.0.0.1:port succeeds, false when it is refused. */
function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('the crystal server of a case that errors is closed', () => {
  /** The reference, recording the ports of its crystal endpoints; its cast runs for real, then throws or never answers. */
  function breaking(mode: 'throws' | 'hangs') {
    const ports: number[] = [];
    const factory = (): Adapter => {
      const adapter = createReferenceAdapter();
      const construct = adapter.construct.bind(adapter);
      adapter.construct = async (setup, host) => {
        for (const endpoint of Object.values(setup.crystal_endpoints ?? {})) ports.push(Number(new URL(endpoint.base_url).port));
        return construct(setup, host);
      };
      const cast = adapter.cast.bind(adapter);
      adapter.cast = async (handle, intent) => {
        await cast(handle, intent);
        if (mode === 'throws') throw new Error('the adapter breaks after its cast');
        return new Promise(() => undefined);
      };
      return adapter;
    };
    return { ports, factory };
  }

  for (const transport of ['openai', 'gemini-stream'] as const) {
    it(`${transport}: after the adapter throws mid-case, the port refuses connections`, async () => {
      const { ports, factory } = breaking('throws');
      const suite = await runSuite(file, factory, { draft: WIRE_DRAFT, crystalTransport: transport, filter: ['done-ends-cast-with-answer'] });
      expect(suite.cases.map((c) => c.status)).toEqual(['errored']);
      expect(ports.length).toBeGreaterThan(0);
      for (const port of ports) expect(await canConnect(port)).toBe(false);
    }, hangBound(120_000));
  }

  it('after a case times out with its cast still pending, the port refuses connections', async () => {
    const { ports, factory } = breaking('hangs');
    // The cast never answers, so the case times out whatever the limit; a short one keeps the test short.
    const suite = await runSuite(file, factory, { draft: WIRE_DRAFT, crystalTransport: 'anthropic', filter: ['done-ends-cast-with-answer'], timeoutMs: 1500 });
    expect(suite.cases[0]).toMatchObject({ status: 'errored', timed_out: true });
    expect(ports.length).toBeGreaterThan(0);
    for (const port of ports) expect(await canConnect(port)).toBe(false);
  }, hangBound(120_000));
});

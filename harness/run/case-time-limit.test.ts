/**
 * A case's time limit is a bound on a hang measured on an idle machine; on a loaded machine it stretches by
 * the load per core (harness/values/machine-load.ts), so a working implementation is never errored for
 * the machine's speed (issue 23, item 3: incomplete is not fail). The load average is replaced here, so the
 * test does not depend on how busy this machine is.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Miniature } from '../../fixtures/miniatures/miniature.ts';
import type { Adapter } from '../../schemas/adapter.ts';
import { loadCaseFile } from '../case-file/index.ts';
import { stretchedForLoad } from '../values/index.ts';
import { runCase } from './run.ts';

vi.mock('node:os', async (original) => {
  const real = await original<typeof import('node:os')>();
  return { ...real, loadavg: vi.fn(real.loadavg) };
});

/** The conformant variant, answering `construct` only after `delayMs` (a slow machine, as seen from the case). */
function slowToConstruct(delayMs: number): Adapter {
  const inner = new Miniature();
  return new Proxy(inner, {
    get(target, key, receiver) {
      if (key === 'construct') return async (...args: Parameters<Adapter['construct']>) => { await new Promise((r) => setTimeout(r, delayMs)); return target.construct(...args); };
      const value = Reflect.get(target, key, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const file = loadCaseFile(fileURLToPath(new URL('../../tests.yaml', import.meta.url)));
const doneCase = file.cases.find((c) => c.id === 'done-ends-cast-with-answer')!;

describe('case time limits stretch with the machine load', () => {
  afterEach(() => vi.mocked(os.loadavg).mockRestore());

  it('stretchedForLoad multiplies the idle limit by the factor and never shortens it', () => {
    expect(stretchedForLoad(1000, 2.5)).toBe(2500);
    expect(stretchedForLoad(1000, 1)).toBe(1000);
  });

  it('under a reported load of 40 per core, a case slower than its idle limit still passes', async () => {
    vi.mocked(os.loadavg).mockReturnValue([40 * os.cpus().length, 0, 0]);
    const variant = new Miniature();
    // An idle limit of 200 ms against a 400 ms construct: only the stretched limit (8000 ms) lets it finish.
    const result = await runCase(doneCase, () => slowToConstruct(400), await variant.describe(), 200);
    expect(result.status).toBe('pass');
  });

  it('on an idle machine the same case runs out of its limit and is errored as timed out, never failed', async () => {
    vi.mocked(os.loadavg).mockReturnValue([0, 0, 0]);
    const variant = new Miniature();
    const result = await runCase(doneCase, () => slowToConstruct(400), await variant.describe(), 200);
    expect(result).toMatchObject({ status: 'errored', timed_out: true });
  });
});

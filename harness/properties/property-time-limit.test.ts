/**
 * A property's own time limit (generation and shrinking together) is a hang bound held on an idle
 * machine: like a case's limit it stretches with the load average per core, so a busy machine does not
 * turn a working property into an incomplete one (issue 32, item 6).
 */
import * as os from 'node:os';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PROPERTY_TIME_LIMIT_MS, propertyTimeLimitMs } from './run-properties.ts';

vi.mock('node:os', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:os')>();
  return { ...real, loadavg: vi.fn(real.loadavg), cpus: vi.fn(real.cpus) };
});

afterEach(() => vi.mocked(os.loadavg).mockRestore());

describe("a property's time limit", () => {
  it('is the idle limit on an idle machine and stretches with the load per core', () => {
    const cores = os.cpus().length;
    vi.mocked(os.loadavg).mockReturnValue([0, 0, 0]);
    expect(propertyTimeLimitMs()).toBe(PROPERTY_TIME_LIMIT_MS);
    vi.mocked(os.loadavg).mockReturnValue([6 * cores, 6 * cores, 6 * cores]);
    expect(propertyTimeLimitMs()).toBe(PROPERTY_TIME_LIMIT_MS * 6);
  });
});

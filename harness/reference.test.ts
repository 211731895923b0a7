import { describe, it, expect } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { adapterFactory, PACKAGE_ROOT } from './cli-main.ts';
import { loadCaseFile } from './load.ts';
import { runSuite } from './run.ts';
import { buildReport, exitCode } from './report.ts';

const ADAPTER = join(PACKAGE_ROOT, 'reference', 'adapter', 'index.ts');
const present = existsSync(ADAPTER);

describe('the reference implementation, through its adapter only', () => {
  it.skipIf(!present)('passes every applicable case of tests.yaml (all rules)', async () => {
    const suite = await runSuite(loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml')), await adapterFactory('reference', PACKAGE_ROOT));
    const broken = suite.cases
      .filter((c) => c.status === 'fail' || c.status === 'errored')
      .map((c) => ({ id: c.id, status: c.status, reason: c.reason, failures: c.failures, problems: c.problems, invariants: c.invariants.filter((i) => i.status === 'fail') }));
    expect(broken).toEqual([]);
    expect(exitCode(buildReport(suite))).toBe(0);
  });

  it.runIf(!present)('is skipped: reference/adapter/index.ts does not exist yet', () => {
    expect(existsSync(ADAPTER)).toBe(false);
  });
});

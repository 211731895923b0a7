/**
 * The reference implementation against tests.yaml, through its adapter only, one test per case and
 * draft it applies to (the reference implements every draft, issue 24), so a failure names its case and
 * draft and `vitest -t <case id>` runs just that one (the mutation check of the reference,
 * `npm run mutants`, uses this to show that a named case catches a planted defect).
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Description } from '../../schemas/adapter.ts';
import { adapterFactory, PACKAGE_ROOT } from '../cli/main.ts';
import { loadCaseFile } from '../case-file/load.ts';
import { describeAdapter, runCase, type AdapterFactory, type CaseResult } from './run.ts';
import { planCases } from '../plan/plan.ts';
import { caseDrafts } from '../case-file/drafts.ts';

const ADAPTER = join(PACKAGE_ROOT, 'reference', 'adapter', 'index.ts');
const present = existsSync(ADAPTER);
const file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));

describe.skipIf(!present)('the reference implementation, through its adapter only', () => {
  let factory: AdapterFactory;
  let description: Description;
  beforeAll(async () => {
    factory = await adapterFactory('reference', PACKAGE_ROOT);
    description = await describeAdapter(factory);
  });

  for (const c of file.cases) for (const draft of caseDrafts(c)) {
    it(`${c.id} @ ${draft} [${c.rules.join(', ')}]`, async () => {
      expect(description.drafts, 'the reference declares every draft').toContain(draft);
      const [planned] = planCases([c], description, [], 'callback', draft);
      expect(planned?.outside).toBeUndefined();
      // The reference declares every feature, ward and transport: nothing is skipped, and a case about a
      // wire format runs over the first of its transports (crystal-transports.test.ts runs them over each).
      expect(planned?.skip).toBeUndefined();
      if (c.transports !== undefined && !c.transports.includes('callback')) expect(planned?.transport).toBe(c.transports[0]);
      const result: CaseResult = await runCase(planned?.case ?? c, factory, description, undefined, undefined, planned?.transport);
      expect({ status: result.status, reason: result.reason, failures: result.failures, problems: result.problems, invariants: result.invariants.filter((i) => i.status === 'fail') }).toEqual({
        status: 'pass',
        reason: undefined,
        failures: [],
        problems: [],
        invariants: [],
      });
    });
  }
});

describe.runIf(!present)('the reference implementation', () => {
  it('is skipped: reference/adapter/index.ts does not exist yet', () => {
    expect(existsSync(ADAPTER)).toBe(false);
  });
});

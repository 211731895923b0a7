/**
 * The independent implementations (fixtures/independent/, issue 29): each was written from one draft's
 * text and the kit's public documents only, by someone who had not read the kit or the reference, and it
 * takes the other side wherever its draft leaves a choice (its CHOICES.md). Judged at its own draft, the
 * whole suite — cases, the ambient checks on every case, and the generated properties — must find nothing
 * wrong with it and nothing may error; a case or property it cannot run is skipped for a feature, ward or
 * transport it does not declare, which is fine. A failure here is either a bug of the implementation
 * (to be fixed there) or a check of the kit that fails what the draft permits (docs/kit-false-checks.md).
 *
 * Each implementation is reached exactly as the CLI reaches it (`adapterFactory`): the JavaScript one as
 * an in-process module, the Python one as a process speaking the adapter protocol over stdio. Properties
 * run 5 times each (the CLI's default is 50) to keep the cost down; the wall time of each run is logged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { adapterFactory } from '../cli/main.ts';
import { stopAllImplementations } from '../adapters/index.ts';
import { loadCaseFile, PACKAGE_ROOT } from '../case-file/index.ts';
import type { CaseFile } from '../case-file/types.ts';
import { runProperties } from '../properties/index.ts';
import { ambientChecks } from '../report/ambient-checks.ts';
import { hangBound } from '../testing/hang-bound.ts';
import { runSuite } from './run.ts';

interface Independent {
  /** The folder under fixtures/independent/. */
  folder: string;
  /** What `--adapter` would say. */
  adapter: string;
  /** The one draft it was written from, and is judged at. */
  draft: '0.2.0' | '0.3.1';
  /** Cases at once: an in-process module takes several, a process per session fewer on a shared machine. */
  jobs: number;
}

const INDEPENDENT: Independent[] = [
  { folder: 'js-0.2.0', adapter: 'fixtures/independent/js-0.2.0/adapter.mjs', draft: '0.2.0', jobs: 2 },
  { folder: 'python-0.3.1', adapter: 'cmd:python3 fixtures/independent/python-0.3.1/adapter.py', draft: '0.3.1', jobs: 2 },
];
const PROPERTY_RUNS = 5;
/** Floors on what must actually run, so that a run that skips nearly everything cannot pass. */
const AT_LEAST = { casesPassed: 120, propertiesPassed: 10 };

describe('the independent implementations, each at the draft it was written from', () => {
  let file: CaseFile;
  beforeAll(() => {
    file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
  });
  afterAll(async () => {
    await stopAllImplementations(2_000);
  });

  for (const impl of INDEPENDENT) {
    it(`${impl.folder} at ${impl.draft}: no case, ambient check or property fails or errors`, async () => {
      const started = performance.now();
      const factory = await adapterFactory(impl.adapter, PACKAGE_ROOT);
      const suite = await runSuite(file, factory, { jobs: impl.jobs, draft: impl.draft });
      expect(suite.draft).toBe(impl.draft);
      const bad = suite.cases.filter((c) => c.status !== 'pass' && c.status !== 'skipped');
      expect(bad.map((c) => ({ id: c.id, status: c.status, reason: c.reason, failures: c.failures, problems: c.problems }))).toEqual([]);
      const ambient = ambientChecks(suite.cases).filter((a) => a.status === 'fail');
      expect(ambient).toEqual([]);
      expect(suite.cases.filter((c) => c.status === 'pass').length).toBeGreaterThanOrEqual(AT_LEAST.casesPassed);
      const casesMs = performance.now() - started;

      const properties = await runProperties(factory, suite.description, { draft: impl.draft, runs: PROPERTY_RUNS });
      expect(properties.filter((p) => p.status !== 'pass' && p.status !== 'skipped').map((p) => ({ id: p.id, status: p.status, reason: p.reason }))).toEqual([]);
      expect(properties.filter((p) => p.status === 'pass').length).toBeGreaterThanOrEqual(AT_LEAST.propertiesPassed);
      console.log(`${impl.folder} at ${impl.draft}: cases ${Math.round(casesMs)} ms, properties ${Math.round(performance.now() - started - casesMs)} ms`);
    }, hangBound(300_000));
  }
});

/**
 * One filter, three interfaces (issue 31.1): the same list of terms through the CLI (`run --filter`),
 * the library (`runSuite` / `buildReport` / `exitCode`) and the vitest helper (`conformance()`) gives
 * the same selection and the same exit status. Terms: a rule id in lower case, a list with a typo, a
 * rule no case or property checks, another draft's rule id (mapped to the judged draft's) and another
 * draft's rule that the judged draft removes. The reference judged at 0.3.1, properties off: the
 * selections are a handful of quick cases.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createReferenceAdapter } from '../../reference/adapter/index.ts';
import { loadCaseFile, PACKAGE_ROOT } from '../case-file/index.ts';
import { FilterError } from '../plan/index.ts';
import { buildReport, exitCode, NOTHING_JUDGED_EXIT } from '../report/index.ts';
import { runSuite } from '../run/index.ts';
import { cli } from '../testing/run-cli.ts';
import { conformance, ConformanceFailure, type ConformanceTestContext, type DeclareApi } from './conformance.ts';
import { hangBound } from '../testing/hang-bound.ts';

const DRAFT = '0.3.1';
const USAGE_EXIT = 2;

interface Outcome {
  /** Case ids judged (run or skipped), sorted; empty when nothing ran. */
  selected: string[];
  exit: number;
}

const work = mkdtempSync(join(tmpdir(), 'cantrip-interfaces-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function throughCli(terms: readonly string[]): Promise<Outcome> {
  const out = join(work, `cli-${terms.join('_')}`);
  const { code } = await cli(['run', '-q', '--no-properties', '--spec', DRAFT, '--out', out, ...terms.flatMap((t) => ['--filter', t])]);
  if (code === USAGE_EXIT) return { selected: [], exit: code };
  const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as { cases: { id: string }[] };
  return { selected: report.cases.map((c) => c.id).sort(), exit: code };
}

async function throughLibrary(terms: readonly string[]): Promise<Outcome> {
  const file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
  try {
    const suite = await runSuite(file, () => createReferenceAdapter(), { filter: terms, draft: DRAFT, jobs: 4 });
    return { selected: suite.cases.map((c) => c.id).sort(), exit: exitCode(buildReport(suite)) };
  } catch (error) {
    if (error instanceof FilterError) return { selected: [], exit: USAGE_EXIT };
    throw error;
  }
}

class Skipped extends Error {}

async function throughVitest(terms: readonly string[]): Promise<Outcome> {
  const tests: { name: string; body: (context: ConformanceTestContext) => Promise<void> }[] = [];
  const api: DeclareApi = { describe: (_name, body) => body(), it: (name, body) => void tests.push({ name, body }) };
  try {
    conformance({ adapter: () => createReferenceAdapter(), filter: terms, properties: false, spec: DRAFT }, api);
  } catch (error) {
    // Declaring throws: the test file fails to collect, as bad usage stops the CLI.
    if (error instanceof FilterError) return { selected: [], exit: USAGE_EXIT };
    throw error;
  }
  let failed = false;
  const context: ConformanceTestContext = {
    skip: (note) => {
      throw new Skipped(note);
    },
  };
  for (const test of tests) {
    try {
      await test.body(context);
    } catch (error) {
      if (error instanceof Skipped) continue;
      if (error instanceof ConformanceFailure) failed = true;
      else throw error;
    }
  }
  return { selected: tests.map((t) => t.name.split(' ')[0]!).sort(), exit: failed ? 1 : 0 };
}

/** Each list of terms with what every interface must agree on (besides agreeing with each other). */
const LISTS: { terms: string[]; exit: number; selects?: string[] }[] = [
  { terms: ['loop-3'], exit: 0, selects: ['done-ends-cast-with-answer', 'loop3-done-first-of-three-calls'] },
  { terms: ['LOOP-3', 'lopp-5'], exit: USAGE_EXIT },
  // A rule of the judged draft that no case and (properties off) no property checks.
  { terms: ['PROD-9'], exit: NOTHING_JUDGED_EXIT },
  // 0.1.0's id of 0.3.1's LLM-5.
  { terms: ['crystal-5'], exit: 0, selects: ['crystal5-forced-text-never-accepted-as-final'] },
  // A 0.1.0 rule that 0.3.1 removes: it selects nothing there (its cases are outside the draft).
  { terms: ['CANTRIP-3'], exit: USAGE_EXIT },
];

describe('one filter through the CLI, the library and the vitest helper', () => {
  for (const { terms, exit, selects } of LISTS) {
    it(`${terms.join(', ')}: the same selection and exit status ${exit} in all three`, async () => {
      const viaCli = await throughCli(terms);
      const viaLibrary = await throughLibrary(terms);
      const viaVitest = await throughVitest(terms);
      expect(viaLibrary).toEqual(viaCli);
      expect(viaVitest).toEqual(viaCli);
      expect(viaCli.exit).toBe(exit);
      if (selects) expect(viaCli.selected).toEqual(expect.arrayContaining(selects));
      else expect(viaCli.selected).toEqual([]);
    }, hangBound(300_000));
  }

  it('a term of another draft selects what its counterpart selects', async () => {
    expect((await throughLibrary(['crystal-5'])).selected).toEqual((await throughLibrary(['LLM-5'])).selected);
  }, hangBound(300_000));
});

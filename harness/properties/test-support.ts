/**
 * Helpers the property tests share (not used by the harness itself): the miniature as an adapter
 * factory, a lookup of one property's result, and running a printed reproducer as an ordinary case.
 */
import { expect } from 'vitest';
import { Miniature } from '../../fixtures/miniatures/miniature.ts';
import { loadCaseText } from '../case-file/index.ts';
import { describeAdapter, runCase, type AdapterFactory } from '../run/index.ts';
import { caseFileYaml } from './reproducer.ts';
import type { PropertyResult } from './run-properties.ts';

/** The miniature implementation, with or without one defect, as an adapter factory. */
export const miniature = (defect?: string): AdapterFactory => () => new Miniature(defect as ConstructorParameters<typeof Miniature>[0]);

/** One property's result; throws when the run did not produce it. */
export function byId(results: PropertyResult[], id: string): PropertyResult {
  const found = results.find((r) => r.id === id);
  if (!found) throw new Error(`no result for property ${id}`);
  return found;
}

/** Loads a reproducer's YAML as the harness would, and runs it as an ordinary case. */
export async function runReproducer(yaml: string, factory: AdapterFactory) {
  const file = loadCaseText(caseFileYaml([]).replace('cases:\n', `cases:\n${yaml.trimEnd().split('\n').map((l) => `  ${l}`).join('\n')}\n`), 'repro.yaml');
  return runCase(file.cases[0]!, factory, await describeAdapter(factory));
}

/**
 * The verdict a property test expects of a broken implementation: the property failed on `rules`, was
 * shrunk to at most `maxSteps` crystal steps, and its printed case fails the same way against the
 * broken implementation and passes against the reference.
 */
export async function expectCaughtAndReproduced(
  result: PropertyResult,
  rules: readonly string[],
  maxSteps: number,
  broken: AdapterFactory,
  reference: AdapterFactory,
): Promise<void> {
  expect(result.status).toBe('fail');
  for (const rule of rules) expect(result.failed_rules).toContain(rule);
  const ce = result.counterexample!;
  expect(ce.steps).toBeLessThanOrEqual(maxSteps);
  expect(ce.failures.length + ce.invariants.length).toBeGreaterThan(0);
  const again = await runReproducer(ce.case_yaml, broken);
  // As a tests.yaml case it shows the break through its expectations or through an ambient invariant,
  // which a run judges once, beside the case's own verdict (harness/report/ambient-checks.ts).
  const violated = again.invariants.filter((i) => i.status === 'fail');
  expect(again.status === 'fail' || violated.length > 0).toBe(true);
  const shown = new Set([...again.failed_rules, ...violated.flatMap((i) => i.rules)]);
  for (const rule of rules) expect([...shown]).toContain(rule);
  const good = await runReproducer(ce.case_yaml, reference);
  expect([good.status, good.failures, good.invariants.filter((i) => i.status === 'fail')]).toEqual(['pass', [], []]);
}

/**
 * The vitest helper (harness/vitest/conformance.ts): the whole suite against the reference as an
 * implementer would declare it, then the declarations themselves, checked through a recording API so a
 * broken implementation's failures can be inspected rather than failing this file.
 */
import { describe, it, expect } from 'vitest';
import { createReferenceAdapter } from '../../reference/adapter/index.ts';
import { Miniature } from '../../fixtures/miniatures/miniature.ts';
import { DEFAULT_SEED } from '../properties/index.ts';
import { FilterError } from '../plan/index.ts';
import type { Adapter } from '../../schemas/adapter.ts';
import { ConformanceFailure, conformance, INCOMPLETE_NOTE, type ConformanceOptions, type ConformanceTestContext, type DeclareApi } from './conformance.ts';
import { hangBound } from '../testing/hang-bound.ts';

/**
 * Every case and property against the reference, as `import { conformance } from 'cantrip-conformance/vitest'`
 * would declare them in an implementer's test file. The properties run 10 scenarios each instead of the
 * CLI's 50 (code 20): the CLI run in reference.test.ts and properties.test.ts covers the full counts,
 * and here the point is that the helper declares and runs them.
 */
describe('conformance() against the reference', () => {
  // A case's and a generated scenario's time limit stretch with the machine's load (the helper's default is
  // 10 s): on a busy machine a code scenario outlasted it and errored a property of a working reference.
  conformance({ adapter: () => createReferenceAdapter(), properties: { runs: 10 }, timeout: hangBound(10_000) });
});

interface Declared {
  rule: string;
  name: string;
  body: (context: ConformanceTestContext) => Promise<void>;
  timeout: number | undefined;
}

class Skipped extends Error {}

/** Declares through a recording API and returns the tests, each with the describe block it is in. */
function declare(options: ConformanceOptions): Declared[] {
  const tests: Declared[] = [];
  let rule = '';
  const api: DeclareApi = {
    describe: (name, body) => {
      rule = name;
      body();
    },
    it: (name, body, timeout) => void tests.push({ rule, name, body, timeout }),
  };
  conformance(options, api);
  return tests;
}

const context: ConformanceTestContext = {
  skip: (note?: string): never => {
    throw new Skipped(note);
  },
};

function find(tests: Declared[], prefix: string): Declared {
  const test = tests.find((t) => t.name.startsWith(prefix));
  if (!test) throw new Error(`no test named ${prefix}…: ${tests.map((t) => t.name).join('; ')}`);
  return test;
}

/** The error a test body throws, or undefined when it passes. */
async function outcome(test: Declared, within: ConformanceTestContext = context): Promise<unknown> {
  try {
    await test.body(within);
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('conformance(): what it declares and how a failure reads', () => {
  const broken = (): Miniature => new Miniature('ignores-done');

  it('one describe per rule (the first rule of each case and property), one test per case and property', () => {
    const tests = declare({ adapter: broken, filter: ['LOOP-3'], properties: { runs: 5, seed: 3 } });
    const rules = new Set(tests.map((t) => t.rule));
    expect([...rules]).toEqual(expect.arrayContaining([expect.stringMatching(/^LOOP-3: /)]));
    // Each test sits under the first rule its title lists.
    for (const t of tests) expect(t.rule.split(':')[0], t.name).toBe(/\[([^,\]]+)/.exec(t.name)?.[1]);
    expect(tests.some((t) => t.name.startsWith('done-ends-cast-with-answer [LOOP-3, CIRCLE-8]'))).toBe(true);
    expect(tests.some((t) => t.name.startsWith('property done-ends-the-cast'))).toBe(true);
    expect(new Set(tests.map((t) => t.name)).size).toBe(tests.length);
    for (const t of tests) expect(t.timeout).toBeGreaterThan(0);
  });

  it('LOOP-3: a case the ignores-done defect breaks fails its test with the path, expected and actual', async () => {
    const error = await outcome(find(declare({ adapter: broken, filter: ['done-ends-cast-with-answer'], properties: false }), 'done-ends-cast-with-answer'));
    expect(error).toBeInstanceOf(ConformanceFailure);
    const failure = error as ConformanceFailure;
    expect(failure.message).toMatch(/^case done-ends-cast-with-answer \[LOOP-3, CIRCLE-8\] failed \(.*tests\.yaml:\d+:\d+\)/);
    expect(failure.message).toContain('broken: LOOP-3');
    expect(failure.message).toMatch(/\n {4}expected: .+\n {4}actual: {3}.+/);
    // For vitest's diff: the same paths on both sides.
    expect(Object.keys(failure.expected as object).length).toBeGreaterThan(0);
    expect(Object.keys(failure.actual as object)).toEqual(Object.keys(failure.expected as object));
  });

  it('LOOP-3: a failing property fails its test with the seed, what differed and the reproducer as a tests.yaml case', async () => {
    const tests = declare({ adapter: broken, filter: ['done-ends-the-cast'], properties: { runs: 20, seed: 3 } });
    expect(tests.map((t) => t.name)).toEqual([expect.stringMatching(/^property done-ends-the-cast \[/)]);
    const error = await outcome(tests[0]!);
    expect(error).toBeInstanceOf(ConformanceFailure);
    const message = (error as ConformanceFailure).message;
    expect(message).toMatch(/^property done-ends-the-cast \[LOOP-3[^\]]*\] failed after \d+ runs \(seed 3;/);
    expect(message).toMatch(/expected: .+\n {4}actual: /);
    expect(message).toContain('reproducer');
    expect(message).toContain('- id: property-done-ends-the-cast');
  }, hangBound(120_000));

  it('LOOP-3: without a seed the properties draw from the fixed default seed, so a CI job repeats its verdict', async () => {
    const tests = declare({ adapter: broken, filter: ['done-ends-the-cast'], properties: { runs: 20 } });
    const error = await outcome(tests[0]!);
    expect(error).toBeInstanceOf(ConformanceFailure);
    expect((error as ConformanceFailure).message).toMatch(new RegExp(`\\(seed ${DEFAULT_SEED};`));
  }, hangBound(120_000));

  it('the same tests pass on the conformant variant; a case needing an undeclared feature is skipped with the reason', async () => {
    const tests = declare({ adapter: () => new Miniature(), filter: ['LOOP-3'], properties: false });
    expect(await outcome(find(tests, 'done-ends-cast-with-answer'))).toBeUndefined();
    // The variant declares no code medium.
    const skipped = await outcome(find(tests, 'code-done-stops-the-cast'));
    expect(skipped).toBeInstanceOf(Skipped);
    expect((skipped as Skipped).message).toContain('code-medium');
  });

  it('expected failures: a listed failing case passes its test, a listed passing case fails it as stale', async () => {
    const options = { filter: ['done-ends-cast-with-answer'], properties: false, expectedFailures: ['done-ends-cast-with-answer'] } as const;
    expect(await outcome(find(declare({ ...options, adapter: broken }), 'done-ends-cast-with-answer'))).toBeUndefined();
    const stale = await outcome(find(declare({ ...options, adapter: () => new Miniature() }), 'done-ends-cast-with-answer'));
    expect(stale).toBeInstanceOf(ConformanceFailure);
    expect((stale as Error).message).toContain('stale');
  });

  it('a filter term that names nothing, a filter that selects nothing, or an unknown expected failure, is an error at declaration', () => {
    expect(() => declare({ adapter: broken, filter: ['LOOP3'] })).toThrow(FilterError);
    // PROD-9 is a rule of 0.3.1 that no case lists; with the properties off nothing is selected.
    expect(() => declare({ adapter: broken, filter: ['PROD-9'], properties: false, spec: '0.3.1' })).toThrow(FilterError);
    expect(() => declare({ adapter: broken, expectedFailures: ['no-such-case'] })).toThrow(/no-such-case/);
  });

  it('declaring starts nothing: the adapter is first made when a test runs', () => {
    let made = 0;
    declare({ adapter: () => (made++, new Miniature()), properties: { runs: 1 } });
    expect(made).toBe(0);
  });
});

describe('conformance(): incomplete is not fail (a time limit or an interruption skips the test with an incomplete: note)', () => {
  /** What the hung adapter says it waits for, so the note can be seen to carry it through. */
  const AWAITED = 'hung-construct-of-this-test';
  /**
   * The conformant variant, except that construct() never answers: every case and every generated
   * scenario hits its time limit however fast the machine is, since nothing ever settles the promise.
   */
  const hung = (): Adapter => {
    const inner = new Miniature();
    return Object.assign(Object.create(inner) as Adapter, { construct: () => new Promise<never>(() => undefined), waitingFor: () => AWAITED });
  };
  /** The conformant variant, except that construct() throws: an error of the implementation, not of the clock. */
  const throwing = (): Adapter => {
    const inner = new Miniature();
    return Object.assign(Object.create(inner) as Adapter, { construct: () => Promise.reject(new Error('construct is broken in this test')) });
  };
  // Tiny on purpose: the hung adapter never answers, so any limit is outlasted; the verdict does not depend on the machine's speed.
  const LIMIT_MS = 50;
  const aborted = (): ConformanceTestContext => {
    const controller = new AbortController();
    controller.abort('SIGINT');
    return { ...context, signal: controller.signal };
  };
  const skipNote = (error: unknown): string => {
    expect(error).toBeInstanceOf(Skipped);
    return (error as Skipped).message;
  };

  it('LOOP-3: a case that outlasts its time limit is skipped as incomplete, with what the adapter still waited for', async () => {
    const test = find(declare({ adapter: hung, filter: ['done-ends-cast-with-answer'], properties: false, timeout: LIMIT_MS }), 'done-ends-cast-with-answer');
    const note = skipNote(await outcome(test));
    expect(note.startsWith(INCOMPLETE_NOTE)).toBe(true);
    expect(note).toContain(AWAITED);
  }, hangBound(30_000));

  it('LOOP-3: an expected failure that outlasts its time limit is incomplete too, neither confirmed nor stale', async () => {
    const test = find(declare({ adapter: hung, filter: ['done-ends-cast-with-answer'], properties: false, timeout: LIMIT_MS, expectedFailures: ['done-ends-cast-with-answer'] }), 'done-ends-cast-with-answer');
    expect(skipNote(await outcome(test)).startsWith(INCOMPLETE_NOTE)).toBe(true);
  }, hangBound(30_000));

  it('LOOP-3: a property whose generated scenario outlasts its time limit is skipped as incomplete, with no reproducer', async () => {
    const [test] = declare({ adapter: hung, filter: ['done-ends-the-cast'], properties: { runs: 5 }, timeout: LIMIT_MS });
    const note = skipNote(await outcome(test!));
    expect(note.startsWith(INCOMPLETE_NOTE)).toBe(true);
    expect(note).toContain(AWAITED);
    expect(note).not.toContain('- id: property-done-ends-the-cast');
  }, hangBound(60_000));

  it('LOOP-3: a case or property whose test was interrupted (its signal aborted) is skipped as incomplete', async () => {
    const [caseTest] = declare({ adapter: () => new Miniature(), filter: ['done-ends-cast-with-answer'], properties: false });
    expect(skipNote(await outcome(caseTest!, aborted())).startsWith(INCOMPLETE_NOTE)).toBe(true);
    const [propertyTest] = declare({ adapter: () => new Miniature(), filter: ['done-ends-the-cast'], properties: { runs: 5 } });
    expect(skipNote(await outcome(propertyTest!, aborted())).startsWith(INCOMPLETE_NOTE)).toBe(true);
  }, hangBound(30_000));

  it('LOOP-3: an adapter that throws still fails the case and the property: only the clock and an interruption make a test incomplete', async () => {
    const caseError = await outcome(find(declare({ adapter: throwing, filter: ['done-ends-cast-with-answer'], properties: false, timeout: LIMIT_MS }), 'done-ends-cast-with-answer'));
    expect(caseError).toBeInstanceOf(ConformanceFailure);
    const [propertyTest] = declare({ adapter: throwing, filter: ['done-ends-the-cast'], properties: { runs: 5 }, timeout: LIMIT_MS });
    expect(await outcome(propertyTest!)).toBeInstanceOf(ConformanceFailure);
  }, hangBound(60_000));
});

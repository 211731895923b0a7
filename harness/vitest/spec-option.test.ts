/**
 * The vitest helper's `spec` option (issue 24), through a recording API: with a draft named, tests are
 * declared in its rule IDs and cases outside it are not declared; without one, the draft is the newest
 * the implementation declares, and a case outside it is skipped with that reason.
 */
import { describe, it, expect } from 'vitest';
import type { Adapter } from '../../schemas/adapter.ts';
import { Miniature } from '../../fixtures/miniatures/miniature.ts';
import { FilterError } from '../plan/index.ts';
import { conformance, type ConformanceOptions, type ConformanceTestContext, type DeclareApi } from './conformance.ts';

interface Declared {
  rule: string;
  name: string;
  body: (context: ConformanceTestContext) => Promise<void>;
}

class Skipped extends Error {}
const context: ConformanceTestContext = {
  skip: (note?: string): never => {
    throw new Skipped(note);
  },
};

function declare(options: ConformanceOptions): Declared[] {
  const tests: Declared[] = [];
  let rule = '';
  const api: DeclareApi = {
    describe: (name, body) => {
      rule = name;
      body();
    },
    it: (name, body) => void tests.push({ rule, name, body }),
  };
  conformance(options, api);
  return tests;
}

async function outcome(test: Declared | undefined): Promise<unknown> {
  if (!test) throw new Error('no such test');
  try {
    await test.body(context);
    return undefined;
  } catch (error) {
    return error;
  }
}

/** The conformant miniature, declaring 0.1.0 and 0.3.1. */
const declaring = (): Adapter => {
  const adapter = new Miniature();
  const own = adapter.describe.bind(adapter);
  adapter.describe = async () => ({ ...(await own()), drafts: ['0.1.0', '0.3.1'] });
  return adapter;
};

const CASES = ['crystal4-duplicate-tool-call-ids', 'comp1-child-offered-only-requested-gates', 'done-ends-cast-with-answer'];

describe('conformance({ spec })', () => {
  it("with spec: tests named and grouped by the draft's rule ids; a case outside it is not declared", async () => {
    const tests = declare({ adapter: declaring, filter: CASES, properties: false, spec: '0.3.1' });
    expect(tests.map((t) => t.name.replace(/ \[.*/, ''))).toEqual(expect.arrayContaining(['done-ends-cast-with-answer', 'crystal4-duplicate-tool-call-ids']));
    expect(tests).toHaveLength(2);
    const renamed = tests.find((t) => t.name.startsWith('crystal4-duplicate-tool-call-ids'))!;
    expect(renamed.name).toContain('[LLM-4]');
    expect(renamed.rule).toMatch(/^LLM-4: /);
    expect(await outcome(tests.find((t) => t.name.startsWith('done-ends-cast-with-answer')))).toBeUndefined();
  });

  it('without spec: the newest declared; a case outside it is skipped as outside the draft, not failed', async () => {
    const tests = declare({ adapter: declaring, filter: CASES, properties: false });
    expect(tests).toHaveLength(3);
    const outside = await outcome(tests.find((t) => t.name.startsWith('comp1-child-offered-only-requested-gates')));
    expect(outside).toBeInstanceOf(Skipped);
    expect((outside as Skipped).message).toContain('outside the draft');
  });

  it("without spec: a test's name carries the ids later drafts give its rules, so `vitest -t LLM-5` finds a case written as CRYSTAL-5", () => {
    const tests = declare({ adapter: declaring, filter: ['crystal5-forced-text-never-accepted-as-final', 'done-ends-the-cast'] });
    const named = (id: string): string => tests.find((t) => t.name.includes(id))!.name;
    expect(named('crystal5-forced-text-never-accepted-as-final')).toMatch(/\[CRYSTAL-5[^\]]*\].*0\.3\.1[^)]*: LLM-5/);
    // A property written in 0.1.0's ids too.
    expect(named('property done-ends-the-cast')).toContain('LOOP-3');
    // Filtering by the later id selects the same test, as `-t` would find it.
    expect(declare({ adapter: declaring, filter: ['llm-5'], properties: false }).map((t) => t.name)).toContain(named('crystal5-forced-text-never-accepted-as-final'));
  });

  it('a property whose rule the draft reverses is not declared under spec (COMP-1 at 0.3.1)', () => {
    const atSeed = declare({ adapter: declaring, filter: ['child-gates-are-a-granted-subset'], spec: '0.1.0' });
    expect(atSeed.map((t) => t.name)).toEqual([expect.stringMatching(/^property child-gates-are-a-granted-subset \[COMP-1\]/)]);
    expect(() => declare({ adapter: declaring, filter: ['child-gates-are-a-granted-subset'], spec: '0.3.1' })).toThrow(FilterError);
  });

  it('a spec the kit does not know is an error at declaration; one the implementation does not declare fails the test', async () => {
    expect(() => declare({ adapter: declaring, filter: CASES, spec: '0.9.0' })).toThrow(/0\.9\.0/);
    const tests = declare({ adapter: () => new Miniature(), filter: ['done-ends-cast-with-answer'], properties: false, spec: '0.2.0' });
    const error = await outcome(tests[0]);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(Skipped);
    expect((error as Error).message).toContain('0.2.0');
  });
});

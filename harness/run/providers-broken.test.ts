/**
 * Purpose-built broken providers (fixtures/providers-broken/): a small Chat Completions provider put
 * between the reference and the crystal server, correct, then with one flaw at a time. Run through the
 * `openai` transport on the cases of the rules providers get wrong, the correct one passes them all;
 * each flawed one fails exactly the cases listed for it, every one of them on the flaw's rule (issue 13:
 * dropping call ids CRYSTAL-4, retrying a 400 PROD-2, truncating on overflow CRYSTAL-2, no backoff
 * PROD-2, losing cached tokens LOOM-9). A provider that waits for real instead of through `host.sleep`
 * passes the backoff cases on the waits the server saw between its requests (`wire_waits`).
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { createReferenceAdapter } from '../../reference/adapter/index.ts';
import { withChatCompletionsProvider } from '../../fixtures/providers-broken/adapter.ts';
import { FLAWS, type Flaw, type ProviderOptions } from '../../fixtures/providers-broken/provider.ts';
import { PACKAGE_ROOT } from '../cli/main.ts';
import { loadCaseFile } from '../case-file/load.ts';
import { runSuite, type SuiteResult } from './run.ts';
import { hangBound } from '../testing/hang-bound.ts';

/**
 * The draft these runs judge: a provider's wire handling (CRYSTAL-2..6 / LLM-2..6, PROD-2) is the same at
 * every draft and every wire case applies to every draft, so one draft judges them over each transport;
 * reference.test.ts runs every case at every draft (a wire case over the first transport it names).
 */
const WIRE_DRAFT = '0.1.0';

const file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
/** The rules a provider implements. */
const TERMS = ['CRYSTAL-2', 'CRYSTAL-4', 'PROD-2', 'LOOM-9'];

/** For each flaw: the rule it breaks, and every case that must fail for it (wire-only cases included). */
const EXPECTED: Record<Flaw, { rule: string; cases: string[] }> = {
  'drops-call-ids': { rule: 'CRYSTAL-4', cases: ['crystal4-ids-made-up-when-the-provider-sends-none'] },
  'retries-client-errors': {
    rule: 'PROD-2',
    cases: [
      'client-error-not-retried',
      'loom7-crystal-failure-recorded-as-truncation',
      'prod2-bad-request-on-the-wire-not-retried',
      'prod2-not-found-not-retried',
      'prod2-unauthorized-not-retried',
      'prod2-unprocessable-not-retried-mid-cast',
    ],
  },
  'truncates-on-overflow': { rule: 'CRYSTAL-2', cases: ['crystal2-context-limit-is-a-structured-error', 'crystal2-overflow-after-history-is-a-structured-error', 'crystal2-overflow-on-the-wire-is-a-structured-failure'] },
  'no-backoff': { rule: 'PROD-2', cases: ['prod2-gives-up-after-three-retries', 'prod2-server-errors-back-off-1-2-4', 'prod2-two-rate-limits-then-success', 'rate-limit-retried-as-one-turn'] },
  'loses-cached-tokens': { rule: 'LOOM-9', cases: ['loom9-cached-tokens-carried-from-the-wire', 'loom9-metadata-matches-reported-usage', 'usage-tracked-per-turn-and-per-entity'] },
};

function run(options: ProviderOptions, filter: string[] = TERMS): Promise<SuiteResult> {
  return runSuite(file, () => withChatCompletionsProvider(createReferenceAdapter(), options), { draft: WIRE_DRAFT, crystalTransport: 'openai', filter });
}

const notPassing = (suite: SuiteResult) => suite.cases.filter((c) => c.status === 'fail' || c.status === 'errored');

describe('broken providers fail on the rule they break', () => {
  it('the correct provider passes every case of those rules, the wire-only ones included', async () => {
    const suite = await run({});
    expect(notPassing(suite).map((c) => ({ id: c.id, status: c.status, reason: c.reason, failures: c.failures }))).toEqual([]);
    const wireOnly = ['crystal2-overflow-on-the-wire-is-a-structured-failure', 'crystal4-ids-made-up-when-the-provider-sends-none', 'prod2-rate-limit-on-the-wire-retried-as-one-turn', 'prod2-bad-request-on-the-wire-not-retried', 'loom9-cached-tokens-carried-from-the-wire'];
    for (const id of wireOnly) expect(suite.cases.find((c) => c.id === id)?.status).toBe('pass');
  }, hangBound(180_000));

  for (const flaw of FLAWS) {
    it(`${flaw}: fails exactly its cases, each on ${EXPECTED[flaw].rule}`, async () => {
      const suite = await run({ flaw });
      const failing = notPassing(suite);
      expect(failing.map((c) => c.id).sort()).toEqual([...EXPECTED[flaw].cases].sort());
      for (const c of failing) expect(c.failed_rules ?? [], c.id).toContain(EXPECTED[flaw].rule);
    }, hangBound(180_000));
  }

  it('PROD-2: waits taken with real timers pass the backoff cases through the server\'s request times', async () => {
    // 1 s + (1 + 2) s + 1 s of real waiting: the subject is the wait itself.
    const suite = await run({ realSleep: true }, ['rate-limit-retried-as-one-turn', 'prod2-two-rate-limits-then-success', 'prod2-rate-limit-on-the-wire-retried-as-one-turn']);
    expect(suite.cases.map((c) => [c.id, c.status])).toEqual([
      ['rate-limit-retried-as-one-turn', 'pass'],
      ['prod2-two-rate-limits-then-success', 'pass'],
      ['prod2-rate-limit-on-the-wire-retried-as-one-turn', 'pass'],
    ]);
  }, hangBound(180_000));
});

/**
 * The reference as an implementation of the seed draft only (0.1.0). The reference implements every
 * draft and a run judges the newest it declares (0.3.1); the tests written about 0.1.0's rules and
 * choices (the properties' neutrality, their shrinking, the reproducers, the sample reports) judge it at
 * the draft they were written for, and harness/properties/drafts.test.ts, harness/report/drafts.test.ts,
 * harness/run/reference.test.ts and `npm start` judge the later drafts.
 */
import type { Adapter } from '../../schemas/adapter.ts';
import { createReferenceAdapter } from '../../reference/adapter/index.ts';
import type { AdapterFactory } from '../run/index.ts';

/** A reference adapter whose describe() declares 0.1.0 alone. */
export function referenceOfTheSeedDraft(): Adapter {
  const adapter = createReferenceAdapter();
  const own = adapter.describe.bind(adapter);
  adapter.describe = async () => ({ ...(await own()), drafts: ['0.1.0'] });
  return adapter;
}

/** The same as a factory, where a test used the CLI's `reference` adapter. */
export async function referenceAtSeedDraft(): Promise<AdapterFactory> {
  return referenceOfTheSeedDraft;
}

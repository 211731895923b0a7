/**
 * Records a rule asks the loom to keep without the spec naming their field (issue 29; found by the
 * independent Python implementation, fixtures/independent/python-0.3.1/KIT-FALSE.md KF-4): the identity
 * kept at the root (CALL-4 / IDENTITY-4) and the strategy of a fork (LOOM-4, §6.6). The kit suggests
 * `call` and `fork: {strategy}` (docs/adapter-protocol.md) but may not require them: an implementation
 * that keeps the root's prompt and settings as fields of the root turn itself, and the strategy as a field
 * of its own, passes the cases that read them; one that records neither still fails them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Result } from '../../schemas/adapter.ts';
import type { Turn } from '../../schemas/records.ts';
import { conformantVariant, Miniature } from '../../fixtures/miniatures/miniature.ts';
import { loadCaseFile, PACKAGE_ROOT } from '../case-file/index.ts';
import type { CaseFile } from '../case-file/types.ts';
import { runSuite } from './run.ts';

const CASES = ['call1-refused-change-keeps-loom-record', 'call4-call-turn-is-the-root', 'call4-casts-start-from-the-same-call', 'fork-records-origin-and-strategy'];

type Keeping = 'own-fields' | 'nothing';

/** The conformant variant, its loom rewritten: the root's call and the fork strategy under fields of its own, or dropped. */
class OwnFields extends Miniature {
  constructor(private readonly keeping: Keeping) {
    super();
  }
  override async loom(): Promise<Result<{ turns: Turn[] }>> {
    return this.rewritten(await super.loom());
  }
  override async thread(leaf: string): Promise<Result<{ turns: Turn[] }>> {
    return this.rewritten(await super.thread(leaf));
  }
  private rewritten(result: Result<{ turns: Turn[] }>): Result<{ turns: Turn[] }> {
    if (!result.ok) return result;
    const turns = result.value.turns.map((turn) => {
      const { call, fork, ...rest } = turn as unknown as Record<string, unknown>;
      if (this.keeping === 'nothing') return rest;
      const { strategy, ...origin } = (fork ?? {}) as Record<string, unknown>;
      return { ...rest, ...(call as object | undefined), ...(fork !== undefined && { fork_strategy: strategy, fork_origin: origin }) };
    }) as unknown as Turn[];
    return { ok: true, value: { turns } };
  }
}

describe('records whose field the spec does not name', () => {
  let file: CaseFile;
  beforeAll(() => {
    file = loadCaseFile(join(PACKAGE_ROOT, 'tests.yaml'));
  });

  const statuses = async (keeping: Keeping): Promise<[string, string][]> => {
    const suite = await runSuite(file, () => new OwnFields(keeping), { filter: CASES, draft: '0.1.0' });
    return suite.cases.map((c) => [c.id, c.status]);
  };

  it('the variant itself (fields `call` and `fork: {strategy}`) passes the four cases', async () => {
    const suite = await runSuite(file, () => conformantVariant(), { filter: CASES, draft: '0.1.0' });
    expect(suite.cases.map((c) => [c.id, c.status]).sort()).toEqual(CASES.map((id) => [id, 'pass']).sort());
  });

  it('the root prompt and the strategy kept under fields of its own pass them', async () => {
    expect((await statuses('own-fields')).sort()).toEqual(CASES.map((id) => [id, 'pass']).sort());
  });

  it('a loom that records neither fails every one of them', async () => {
    expect((await statuses('nothing')).sort()).toEqual(CASES.map((id) => [id, 'fail']).sort());
  });
});

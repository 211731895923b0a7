/**
 * A loom in a later draft's words for two fields the spec's Turn does not list (draft-field-words.ts): the
 * truncation cause as COMP-9's "reason field", the root's record as the identity (IDENTITY-4), carrying
 * the rendered gate definitions IDENTITY-3 allows from 0.2.0. Found by the independent Python
 * implementation at 0.3.1 (fixtures/independent/python-0.3.1/KIT-FALSE.md, KF-2).
 */
import { describe, expect, it } from 'vitest';
import type { Description, Result } from '../../schemas/adapter.ts';
import type { Turn } from '../../schemas/records.ts';
import { Miniature } from '../../fixtures/miniatures/miniature.ts';
import { loadCaseText } from '../case-file/load.ts';
import { runCase } from '../run/run.ts';

// One echo, then the turn cap: the cast ends truncated, its last turn carries a cause.
const CASE = loadCaseText(`format_version: 1
spec_version: 0.1.0-draft
cases:
  - id: truncated-with-root
    rules: [LOOM-7]
    level: MUST
    description: a cast cut off by its turn cap, the root's prompt read by path
    setup: { crystal: parent, call: { system_prompt: "Rooted." }, circle: { medium: conversation, gates: [done, echo], wards: { max_turns: 1 } } }
    crystals:
      parent: { script: [{ tool_calls: [{ gate: echo, args: { text: a } }] }] }
    act: [{ cast: { intent: go, as: first } }]
    expect:
      - { path: "loom.turns[role=call][0].call.system_prompt", equals: "Rooted." }
      - { path: "loom.cast(first)[-1].truncation_cause", present: true }
`).cases[0]!;

/** A miniature judged at `draft` whose loom writes `reason` for `truncation_cause` and `identity` (with gate definitions) for `call`. */
class DraftWorded extends Miniature {
  constructor(private readonly draft: string) {
    super();
  }
  override async describe(): Promise<Description> {
    return { ...(await super.describe()), drafts: [this.draft] };
  }
  override async loom(): Promise<Result<{ turns: Turn[] }>> {
    const result = await super.loom();
    if (!result.ok) return result;
    const turns = result.value.turns.map((turn) => {
      const { truncation_cause, call, ...rest } = turn as unknown as Record<string, unknown>;
      return {
        ...rest,
        ...(truncation_cause !== undefined && { reason: truncation_cause }),
        ...(call !== undefined && { identity: { ...(call as object), gates: [{ name: 'done' }, { name: 'echo' }] } }),
      };
    }) as unknown as Turn[];
    return { ok: true, value: { turns } };
  }
}

async function run(draft: string) {
  const result = await runCase(CASE, () => new DraftWorded(draft), await new DraftWorded(draft).describe());
  if (result.status === 'errored' || result.status === 'skipped') throw new Error(`${result.status}: ${result.reason}`);
  return { status: result.status, turnSchema: result.invariants.find((i) => i.id === 'turn-schema'), failures: result.failures.map((f) => f.path) };
}

describe('a truncation cause and a root record in the judged draft words', () => {
  it('at 0.3.1: `reason` reads as the cause, `identity` as the root record, its gate definitions allowed (IDENTITY-3)', async () => {
    const { status, turnSchema } = await run('0.3.1');
    expect(turnSchema?.status).toBe('pass');
    expect(status).toBe('pass');
  });

  it('at 0.1.0: `identity` is no word of the draft, so the root keeps no `call` for the path to read; `reason` is read at every draft', async () => {
    const { status, turnSchema, failures } = await run('0.1.0');
    expect(status).toBe('fail');
    expect(failures).toEqual(['loom.turns[role=call][0].call.system_prompt']);
    expect(turnSchema?.status).toBe('pass');
  });
});

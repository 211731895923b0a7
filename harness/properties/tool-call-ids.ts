/**
 * CRYSTAL-4 over generated id lists: each gate call of a reply must carry an id no other call of that
 * reply carries, wherever in the reply the repeat stands. A scenario is one reply of echo calls whose
 * ids are drawn from a small alphabet (so repeats come often, side by side or apart), then a done.
 *
 * With unique ids every call runs under its own id. With a repeat, nothing of the reply is acted on:
 * no gate runs, and the cast either fails or the crystal is asked again (both readings, see
 * docs/OPEN-CHOICES.md), which the second scripted step, a done, shows.
 */
import fc from 'fast-check';
import type { Case, Expectation, LoadedCase } from '../case-file/index.ts';
import { CRYSTAL, GENERATED_FILE, type CaseHeader } from './build-case.ts';
import type { PropertyDefinition } from './definitions.ts';
import { BUILT, x } from './property-helpers.ts';

/** One reply's call ids, in call order. */
export interface IdPlan {
  ids: string[];
  /** Whether some id stands twice. */
  repeated: boolean;
}

const ALPHABET = ['call-a', 'call-b', 'call-c', 'call-d'];
const ASKED_AGAIN = 'asked-again';

/** Two to six calls, ids from four names: a repeat in about two draws of three. */
export const idArbitrary: fc.Arbitrary<string[]> = fc.array(fc.constantFrom(...ALPHABET), { minLength: 2, maxLength: 6 });

export const planIds = (ids: string[]): IdPlan => ({ ids, repeated: new Set(ids).size < ids.length });

export function buildIdCase(plan: IdPlan, header: CaseHeader, expect: Expectation[]): LoadedCase {
  const c: Case = {
    id: header.id,
    rules: header.rules,
    level: 'MUST',
    requires: [],
    description: header.description,
    setup: { crystal: CRYSTAL, call: {}, circle: { medium: 'conversation', gates: ['done', 'echo'], wards: { max_turns: 3 } } },
    crystals: {
      [CRYSTAL]: {
        script: [
          // raw: a reply with a repeated id is invalid, and must reach the implementation as it is.
          { raw: true, tool_calls: plan.ids.map((id, i) => ({ gate: 'echo', args: { text: `echo-${i}` }, id })) },
          { tool_calls: [{ gate: 'done', args: { answer: ASKED_AGAIN } }] },
        ],
      },
    },
    act: [{ cast: { intent: 'Call with these ids', as: 'first' } }],
    expect,
  };
  return structuredClone({ ...c, position: { file: GENERATED_FILE, line: 0, column: 0 } });
}

const uniqueIds: PropertyDefinition<IdPlan> = {
  id: 'tool-call-ids-unique-anywhere',
  rules: ['CRYSTAL-4'],
  level: 'MUST',
  title: 'a reply whose gate calls repeat an id anywhere is never acted on; one with unique ids runs every call under its id',
  requires: [],
  invariants: [],
  expectations: (plan) => {
    if (!plan.repeated) {
      return {
        assumes: [BUILT],
        // Each call ran under its id: the next request answers them by id (the stored record need not carry it, OPEN-CHOICES 22).
        checks: [x(`requests.${CRYSTAL}[1].messages[role=tool][*].tool_call_id`, { equals: plan.ids }), x('gate_log[*].tool_call_id', { equals: plan.ids })],
      };
    }
    return {
      assumes: [BUILT],
      checks: [x('gate_log', { length: 0 }), x('failures.first', { any_of: [{ present: true }, { path: 'outcomes.first.result', equals: ASKED_AGAIN }] })],
    };
  },
};

export const TOOL_CALL_ID_PROPERTIES: readonly PropertyDefinition<IdPlan>[] = [uniqueIds];

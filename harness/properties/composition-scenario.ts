/**
 * Generated composition scenarios (spec chapter 5): a parent that delegates once, with `call_entity`
 * (one child) or `call_entity_batch` (1-5 children), then calls done. Written out by
 * `composition-case.ts`, predicted by `composition-model.ts`.
 *
 * Each child is scripted under its own intent (`by_intent`) and ends one way: done with an answer, a
 * text-only reply, an invalid reply (neither text nor gate calls), or echo calls past its turn cap.
 * Every part shrinks towards the plainest case: one child, done, no gate request, no delay.
 */
import fc from 'fast-check';
import { answer, words } from './scenario.ts';

/** How a child's script ends. `overrun` keeps calling echo past the child's turn cap. */
export type ChildEnding =
  | { kind: 'done'; answer: unknown }
  | { kind: 'text'; text: string }
  | { kind: 'invalid' }
  | { kind: 'overrun' };

/** Test gates a generated parent may hold, besides done and the two delegation gates. */
export const PARENT_TEST_GATES = ['echo', 'counter'] as const;
export type ParentTestGate = (typeof PARENT_TEST_GATES)[number];

/** A gate no generated parent has: a child asking for it must be refused (COMP-1). */
export const LACKING_GATE = 'fetch';

export interface ChildScenario {
  ending: ChildEnding;
  /** Echo turns before the ending (0-2); a turn cap may cut the child off first. */
  work: number;
  /** The `gates` argument (kept to the parent's test gates), or null to leave it out. */
  gates: ParentTestGate[] | null;
  /** Also ask for a gate the parent lacks. Only a single `call_entity` does this (see the model). */
  lacking: boolean;
  /** The `max_turns` argument, 1-4, or null to leave it out. */
  max_turns: number | null;
  /** Real delay (ms) on the child's first reply, to shuffle the order in which batch children finish. */
  delay_ms: number;
}

export interface CompositionScenario {
  /** True: `call_entity_batch` with every child; false: `call_entity` with the first child only. */
  batch: boolean;
  children: ChildScenario[];
  /** The parent also holds the counter gate (it always holds done, echo and both delegation gates). */
  counter: boolean;
  /** The parent echoes a note before it delegates; no child may see that result (COMP-4). */
  before: boolean;
  /** The parent's max_turns ward, 3-5 (its own cast needs at most 3 turns). */
  max_turns: number;
  /** The parent's done answer. */
  answer: unknown;
}

const ending: fc.Arbitrary<ChildEnding> = fc.oneof(
  { withCrossShrink: true },
  { arbitrary: fc.record({ kind: fc.constant('done' as const), answer }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('text' as const), text: words }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('invalid' as const) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('overrun' as const) }), weight: 1 },
);

// Delays stay a few ms: enough to reorder completions, cheap enough for 50 runs (they are real waits).
const delay = fc.oneof({ arbitrary: fc.constant(0), weight: 3 }, { arbitrary: fc.integer({ min: 2, max: 5 }), weight: 1 });

const child: fc.Arbitrary<ChildScenario> = fc.record({
  ending,
  work: fc.integer({ min: 0, max: 2 }),
  gates: fc.option(fc.subarray([...PARENT_TEST_GATES]), { nil: null, freq: 2 }),
  lacking: fc.oneof({ arbitrary: fc.constant(false), weight: 4 }, { arbitrary: fc.constant(true), weight: 1 }),
  max_turns: fc.option(fc.integer({ min: 1, max: 4 }), { nil: null, freq: 2 }),
  delay_ms: delay,
});

export const compositionArbitrary: fc.Arbitrary<CompositionScenario> = fc.record({
  // Mostly batches: they exercise ordering (COMP-3) and let one scenario speak for several children.
  batch: fc.oneof({ arbitrary: fc.constant(true), weight: 3 }, { arbitrary: fc.constant(false), weight: 1 }),
  children: fc.array(child, { minLength: 1, maxLength: 5 }),
  counter: fc.boolean(),
  before: fc.boolean(),
  max_turns: fc.integer({ min: 3, max: 5 }),
  answer,
});

/**
 * Generated composition scenarios (spec chapter 5): a parent that delegates once, with `call_entity`
 * (one child) or `call_entity_batch` (1-5 children), then calls done. Written out by
 * `composition-case.ts`, predicted by `composition-model.ts`.
 *
 * Each child is scripted under its own intent (`by_intent`) and ends one way: done with an answer, a
 * text-only reply, an invalid reply (no text and no gate calls), or echo calls past its turn cap.
 * The `gates` and `max_turns` options of a child request are the kit's (spec 5.1 names neither), so
 * they are drawn only when the implementation's `call_entity` takes them (`run-properties.ts` asks it
 * before generating). Every part shrinks towards the plainest case: one child, done, no option, no delay.
 */
import fc from 'fast-check';
import { jsonAnswer, words } from './scenario.ts';

/**
 * A done answer: mostly a string, which every done must take (CIRCLE-8), sometimes any JSON value. An
 * implementation may refuse a non-string answer its tool definition does not take; such scenarios are
 * discarded, so strings keep most scenarios about composition whichever way an implementation reads it.
 */
const childAnswer: fc.Arbitrary<unknown> = fc.oneof({ withCrossShrink: true }, { arbitrary: fc.string({ maxLength: 12 }), weight: 4 }, { arbitrary: jsonAnswer, weight: 1 });

/** How a child's script ends. `overrun` keeps calling echo past the child's turn cap. */
export type ChildEnding =
  | { kind: 'done'; answer: unknown }
  | { kind: 'text'; text: string }
  | { kind: 'invalid' }
  | { kind: 'overrun' };

/** Test gates a generated parent may hold, besides done and the two delegation gates. */
export const PARENT_TEST_GATES = ['echo', 'counter'] as const;
export type ParentTestGate = (typeof PARENT_TEST_GATES)[number];

/** A gate no generated parent has: a child asking for it must not be given it (COMP-1). */
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

/** The child-request options (beyond the intent) the implementation takes, as learned before generating. */
export interface ChildOptions {
  gates: boolean;
  max_turns: boolean;
}

export const ALL_CHILD_OPTIONS: ChildOptions = { gates: true, max_turns: true };

const ending: fc.Arbitrary<ChildEnding> = fc.oneof(
  { withCrossShrink: true },
  { arbitrary: fc.record({ kind: fc.constant('done' as const), answer: childAnswer }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('text' as const), text: words }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('invalid' as const) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('overrun' as const) }), weight: 1 },
);

// Delays stay a few ms: enough to reorder completions, cheap enough for 50 runs (they are real waits).
const delay = fc.oneof({ arbitrary: fc.constant(0), weight: 3 }, { arbitrary: fc.integer({ min: 2, max: 5 }), weight: 1 });

const child = (options: ChildOptions): fc.Arbitrary<ChildScenario> =>
  fc.record({
    ending,
    work: fc.integer({ min: 0, max: 2 }),
    gates: options.gates ? fc.option(fc.subarray([...PARENT_TEST_GATES]), { nil: null, freq: 2 }) : fc.constant(null),
    lacking: options.gates ? fc.oneof({ arbitrary: fc.constant(false), weight: 4 }, { arbitrary: fc.constant(true), weight: 1 }) : fc.constant(false),
    max_turns: options.max_turns ? fc.option(fc.integer({ min: 1, max: 4 }), { nil: null, freq: 2 }) : fc.constant(null),
    delay_ms: delay,
  });

/** Composition scenarios using only the child options the implementation takes. */
export function compositionArbitrary(options: ChildOptions = ALL_CHILD_OPTIONS): fc.Arbitrary<CompositionScenario> {
  return fc.record({
    // Mostly batches: they exercise ordering (COMP-3) and let one scenario speak for several children.
    batch: fc.oneof({ arbitrary: fc.constant(true), weight: 3 }, { arbitrary: fc.constant(false), weight: 1 }),
    children: fc.array(child(options), { minLength: 1, maxLength: 5 }),
    counter: fc.boolean(),
    before: fc.boolean(),
    max_turns: fc.integer({ min: 3, max: 5 }),
    answer: childAnswer,
  });
}

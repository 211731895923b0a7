/**
 * Generated conversation-circle scenarios: what a property run scripts and does, before it is written
 * out in the tests.yaml vocabulary (`build-case.ts`) or predicted by the model (`model.ts`).
 *
 * A scenario is small on purpose: every part of it can shrink (steps away, gate calls away, the fork
 * away, the second cast away), so a counterexample ends as the few steps that still break a rule.
 * Drawn: 1-8 crystal steps, each text only or 1-3 calls among echo, fail, done and an unknown gate;
 * optional usage; max_turns 1-6; require_done; sometimes two sends to an invoked entity; sometimes a fork.
 */
import fc from 'fast-check';

export interface StepUsage {
  prompt: number;
  completion: number;
  cached: number;
}

/** One gate call a crystal step makes. `unknown` calls a gate the circle does not have. */
export type ScenarioCall =
  | { gate: 'echo'; text: string }
  | { gate: 'fail'; message: string | null }
  | { gate: 'done'; answer: unknown }
  | { gate: 'unknown'; name: string };

/** One scripted crystal response: text only, or text (maybe none) with 1-3 gate calls. */
export type ScenarioStep =
  | { kind: 'text'; text: string; usage: StepUsage | null }
  | { kind: 'calls'; content: string | null; calls: ScenarioCall[]; usage: StepUsage | null };

export interface Scenario {
  /** The call's system prompt; null means `call: {}`. */
  system_prompt: string | null;
  require_done: boolean;
  /** The `max_turns` ward, 1-6. */
  max_turns: number;
  /**
   * The crystal's responses, served in order to every run of the scenario: the first cast takes what
   * it needs, the next run goes on from there. One shared list (rather than one per run) lets the
   * shrinker drop a leading step and so move a later run's steps into an earlier run.
   */
  steps: ScenarioStep[];
  /** False: one cast. True: an invoked entity that receives two intents (two sends). */
  sends: boolean;
  /** Fork from the original entity's turn at this position among its turns (taken modulo the turns of its definite runs). */
  fork: { from: number } | null;
}

/** Gate names no generated circle registers. */
export const UNKNOWN_GATES = ['search', 'write_file', 'launch'] as const;

/** Keys that would change an object's prototype when a YAML or JSON reader builds it. */
const RISKY_KEY = /"(__proto__|constructor|prototype)"\s*:/;

/** A few lowercase words: text replies, messages. */
export const words = fc.stringMatching(/^[a-z]{1,8}( [a-z]{1,8}){0,3}$/);

const usage: fc.Arbitrary<StepUsage | null> = fc.option(
  fc.record({ prompt: fc.integer({ min: 1, max: 5000 }), completion: fc.integer({ min: 1, max: 2000 }), cached: fc.integer({ min: 0, max: 1000 }) }),
  { nil: null, freq: 2 },
);

/** Any small JSON value except null (a null answer reads as "no answer" too easily). */
export const jsonAnswer: fc.Arbitrary<unknown> = fc
  .jsonValue({ maxDepth: 2 })
  .map((v) => JSON.parse(JSON.stringify(v)) as unknown) // -0 becomes 0, as it will on the wire
  .filter((v) => v !== null && !RISKY_KEY.test(JSON.stringify(v)));

/**
 * A done answer: a string (an answer every done must take, CIRCLE-8) or any small JSON value (which an
 * implementation may refuse when its done tool's definition does not take it; such runs are discarded).
 * Shrinking moves towards a string, so a printed counterexample holds whichever way done reads.
 */
export const answer: fc.Arbitrary<unknown> = fc.oneof({ withCrossShrink: true }, { arbitrary: fc.string({ maxLength: 12 }), weight: 1 }, { arbitrary: jsonAnswer, weight: 1 });

// Cross-shrinking lets a shrunk call or step turn into the first, simplest variant when that still
// fails: a done call (ends the cast at once) and a step with calls.
const call: fc.Arbitrary<ScenarioCall> = fc.oneof(
  { withCrossShrink: true },
  { arbitrary: fc.record({ gate: fc.constant('done' as const), answer }), weight: 2 },
  { arbitrary: fc.record({ gate: fc.constant('echo' as const), text: fc.string({ maxLength: 12 }) }), weight: 3 },
  { arbitrary: fc.record({ gate: fc.constant('fail' as const), message: fc.option(words, { nil: null }) }), weight: 1 },
  { arbitrary: fc.record({ gate: fc.constant('unknown' as const), name: fc.constantFrom(...UNKNOWN_GATES) }), weight: 1 },
);

const step: fc.Arbitrary<ScenarioStep> = fc.oneof(
  { withCrossShrink: true },
  { arbitrary: fc.record({ kind: fc.constant('calls' as const), content: fc.option(words, { nil: null }), calls: fc.array(call, { minLength: 1, maxLength: 3 }), usage }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('text' as const), text: words, usage }), weight: 1 },
);

/** Scenarios for an implementation; forks only when it declares the `fork` feature. */
export function scenarioArbitrary(options: { fork: boolean }): fc.Arbitrary<Scenario> {
  return fc.record({
    system_prompt: fc.option(words, { nil: null, freq: 2 }),
    require_done: fc.boolean(),
    max_turns: fc.integer({ min: 1, max: 6 }),
    steps: fc.array(step, { minLength: 1, maxLength: 8 }),
    sends: fc.boolean(),
    fork: options.fork ? fc.option(fc.record({ from: fc.integer({ min: 1, max: 8 }) }), { nil: null, freq: 3 }) : fc.constant(null),
  });
}

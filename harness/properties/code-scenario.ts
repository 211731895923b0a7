/**
 * Generated code-circle scenarios (feature `code-medium`): one cast whose crystal answers every turn
 * with a small JavaScript program. The programs are drawn abstractly, as statements over variable
 * *slots*; the model (`code-model.ts`) resolves each slot to a variable that really holds a number at
 * that point and writes the program text. So any shrunk scenario still yields valid, deterministic code.
 *
 * Drawn: 2-5 turns of 1-4 statements each; `max_turns` 2-6. No loops, no timing: every program is a
 * handful of statements.
 */
import fc from 'fast-check';

/** One statement of a turn's program, before variables are resolved. */
export type CodeStatement =
  /** `var vN = value;` with a fresh name. */
  | { op: 'assign'; value: number }
  /** `vK = vK + amount;` on a variable that holds a number (becomes an assign when there is none). */
  | { op: 'add'; slot: number; amount: number }
  /** `echo(String(vK + amount))` (or the bare amount when no variable holds a number). */
  | { op: 'echo'; slot: number; amount: number }
  /** `var vN; try { fail(); } catch (e) { vN = value; }`: the failure is caught and noted in a fresh variable. */
  | { op: 'fail'; value: number }
  /** `throw new Error(...)`, uncaught: the rest of the turn does not run. */
  | { op: 'throw' };

export interface CodeTurn {
  statements: CodeStatement[];
  /** Ends the program with `done(String(<sum of up to two variables> + offset))`; slots as for `add`. */
  done: { slots: number[]; offset: number } | null;
}

export interface CodeScenario {
  turns: CodeTurn[];
  /** The `max_turns` ward. */
  max_turns: number;
}

const small = fc.integer({ min: -20, max: 50 });
const slot = fc.nat({ max: 7 });

const statement: fc.Arbitrary<CodeStatement> = fc.oneof(
  { withCrossShrink: true },
  { arbitrary: fc.record({ op: fc.constant('assign' as const), value: small }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant('add' as const), slot, amount: small }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('echo' as const), slot, amount: small }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant('fail' as const), value: small }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('throw' as const) }), weight: 1 },
);

const turn: fc.Arbitrary<CodeTurn> = fc.record({
  statements: fc.array(statement, { minLength: 1, maxLength: 4 }),
  done: fc.option(fc.record({ slots: fc.array(slot, { minLength: 0, maxLength: 2 }), offset: small }), { nil: null, freq: 3 }),
});

export const codeArbitrary: fc.Arbitrary<CodeScenario> = fc.record({
  turns: fc.array(turn, { minLength: 2, maxLength: 5 }),
  max_turns: fc.integer({ min: 2, max: 6 }),
});

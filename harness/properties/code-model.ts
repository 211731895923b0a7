/**
 * A small model of a code circle, written from the spec's rules only: it turns an abstract code
 * scenario into program text turn by turn and predicts what running it must leave behind.
 *
 * Rules modelled: CIRCLE-9 (sandbox variables persist from turn to turn; a statement after an uncaught
 * throw never ran, so what it would have set stays unset), CIRCLE-5 + CIRCLE-7 (one record per gate
 * call, in call order, a failing gate as ok: false even when the code catches it), LOOP-3 + CIRCLE-8
 * (done ends the cast with its answer, and no later turn runs), LOOP-1 (an uncaught error is an
 * observation and the cast goes on), LOOP-4 (max_turns cuts the cast off).
 */
import type { CodeScenario, CodeStatement, CodeTurn } from './code-scenario.ts';

/** The sandbox language every generated program is written in. */
export const CODE_LANGUAGE = 'javascript';
/** The cast's intent. */
export const CODE_INTENT = 'compute in code';

/** A gate-call record, as a `like` pattern: only the fields every implementation owes. */
export interface CodeRecord {
  gate: 'echo' | 'fail' | 'done';
  ok: boolean;
  /** An echo's result (the text it was given). */
  result?: string;
}

export interface PlannedCodeTurn {
  /** The program the crystal sends on this turn. */
  source: string;
  records: CodeRecord[];
  /** The program threw an uncaught error (its later statements did not run). */
  threw: boolean;
  /** The program reached done. */
  done: boolean;
  /** Variables holding a number after this turn, in creation order. */
  values: Record<string, number>;
  /** Which generated turn this is; null for the closing step. */
  generated: number | null;
}

/** How the cast ends; done is given `String(...)` of the sum, so the answer is one every done must take (a string). */
export type CodeEnding = { status: 'terminated'; result: string } | { status: 'truncated' };

export interface CodePlan {
  scenario: CodeScenario;
  /** The cast's crystal turns, as served. */
  turns: PlannedCodeTurn[];
  ending: CodeEnding;
  /** Echo calls that must run in the whole cast. */
  echoes: number;
}

/**
 * Served when the generated turns run out before the cast ends: done with the sum of every variable
 * (as a string), so state carried over all turns still decides the answer.
 */
const closingTurn = (names: string[]): CodeTurn => ({ statements: [], done: { slots: names.map((_n, k) => k), offset: 0 } });

const lit = (n: number): string => (n < 0 ? `(${n})` : String(n));

/** Predicts the cast of a code scenario (CIRCLE-5, CIRCLE-7, CIRCLE-9, LOOP-1, LOOP-3, LOOP-4). */
export function planCode(scenario: CodeScenario): CodePlan {
  const values = new Map<string, number>();
  let fresh = 0;
  const newName = (): string => `v${++fresh}`;
  // A slot names one of the variables that hold a number now; null when there is none.
  const pick = (slot: number): string | null => {
    const names = [...values.keys()];
    return names.length === 0 ? null : (names[slot % names.length] ?? null);
  };

  const turns: PlannedCodeTurn[] = [];
  let ending: CodeEnding | undefined;
  let echoes = 0;
  for (let n = 1; !ending; n++) {
    const generated = n <= scenario.turns.length ? n - 1 : null;
    const turn = generated === null ? closingTurn([...values.keys()]) : scenario.turns[generated]!;
    const lines: string[] = [];
    const records: CodeRecord[] = [];
    let running = true;
    let threw = false;
    const run = (effect: () => void): void => {
      if (running) effect();
    };
    for (const s of turn.statements) lines.push(statement(s, n));
    function statement(s: CodeStatement, turnNo: number): string {
      switch (s.op) {
        case 'assign': {
          const name = newName();
          run(() => values.set(name, s.value));
          return `var ${name} = ${lit(s.value)};`;
        }
        case 'add': {
          const name = pick(s.slot);
          if (name === null) return statement({ op: 'assign', value: s.amount }, turnNo);
          run(() => values.set(name, (values.get(name) ?? 0) + s.amount));
          return `${name} = ${name} + ${lit(s.amount)};`;
        }
        case 'echo': {
          const name = pick(s.slot);
          const text = String((name === null ? 0 : (values.get(name) ?? 0)) + s.amount);
          run(() => {
            records.push({ gate: 'echo', ok: true, result: text });
            echoes++;
          });
          return `echo(String(${name === null ? '' : `${name} + `}${lit(s.amount)}));`;
        }
        case 'fail': {
          const name = newName();
          run(() => {
            records.push({ gate: 'fail', ok: false });
            values.set(name, s.value);
          });
          return `var ${name}; try { fail(); } catch (e) { ${name} = ${lit(s.value)}; }`;
        }
        case 'throw':
          run(() => {
            running = false;
            threw = true;
          });
          return `throw new Error('boom-${turnNo}');`;
      }
    }
    let done = false;
    if (turn.done) {
      const names = turn.done.slots.map(pick).filter((x): x is string => x !== null);
      const answer = names.reduce((sum, name) => sum + (values.get(name) ?? 0), turn.done.offset);
      lines.push(`done(String(${[...names, lit(turn.done.offset)].join(' + ')}));`);
      if (running) {
        records.push({ gate: 'done', ok: true });
        ending = { status: 'terminated', result: String(answer) };
        done = true;
      }
    }
    if (!ending && n >= scenario.max_turns) ending = { status: 'truncated' };
    turns.push({ source: lines.join(' '), records, threw, done, values: Object.fromEntries(values), generated });
  }
  return { scenario, turns, ending, echoes };
}

/** Crystal steps in a code plan's script. */
export const codeSteps = (plan: CodePlan): number => plan.turns.length;

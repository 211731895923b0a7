import { afterEach, describe, expect, it } from 'vitest';
import type { CrystalRequest, CrystalResponse } from '../../../../schemas/index.ts';
import { createCall } from '../../../call/call.ts';
import { createCircle } from '../../circle.ts';
import { doneGate } from '../../done.ts';
import { CallbackCrystal } from '../../../crystal/callback.ts';
import { gateCall, ScriptedCrystal } from '../../../crystal/scripted.ts';
import { callEntityGate } from '../../../composition/call-entity.ts';
import { createCantrip } from '../../../entity/cantrip.ts';
import { codeMedium } from '../code-medium.ts';
import { createSandbox } from './sandbox.ts';
import type { Sandbox, SandboxGate, SandboxOptions } from './types.ts';

/**
 * What the program deadline bounds (CIRCLE-6): the program's own running time. Time it spends blocked
 * in a host gate, a child entity included (COMP-2: the parent blocks until the child completes), does
 * not count; that wait is bounded by the cast (its signal) and by the gate budget instead.
 *
 * Real time is the subject here, so the margins are real: every gate below is held by the test for at
 * least three times the deadline (and the hard deadline, deadline + grace) after it was entered, so an
 * implementation that counted the wait would cut the program off with certainty, however fast the
 * machine. The programs' own work around the calls is a few statements (well under a millisecond idle;
 * a few tens of ms with the worker descheduled on a loaded 2-core box), far below the deadlines.
 */
interface Times {
  /** The program deadline (evalTimeoutMs). */
  deadline: number;
  /** Grace after it before the hard deadline. */
  grace: number;
  /** ≥ 3 × (deadline + grace): longer than the deadline and the hard deadline three times over. */
  hold: number;
}

/** Times at a scale: 300 ms deadline and grace at 1, doubled at each step. */
function timesAt(scale: number): Times {
  const deadline = 300 * scale;
  const grace = 300 * scale;
  return { deadline, grace, hold: 3 * (deadline + grace) + 100 };
}

/** Scales tried, in order: 300 ms, 600 ms, 1200 ms deadlines. */
const SCALES = [1, 2, 4];

/**
 * A test whose premise is that the program's own work fits in its deadline: on a busy machine (a
 * descheduled worker) it may not at 300 ms, so the test runs again with every time doubled, until it
 * passes or the scales run out. Scaling never turns a wrong implementation right: an implementation
 * that counted a gate wait is held 3 × (deadline + grace) at every scale, and one that restarted the
 * deadline after a gate still runs 1.15 deadlines of its own, so each fails at every scale.
 */
function scaledIt(name: string, body: (t: Times) => Promise<void>): void {
  it(name, async () => {
    let last: unknown;
    for (const scale of SCALES) {
      try {
        await body(timesAt(scale));
        return;
      } catch (error) {
        last = error;
        for (const s of open.splice(0)) s.dispose();
      }
    }
    throw last;
    // Only a hang should reach this bound: at load 35 on 2 cores one sandbox alone took tens of seconds.
  }, 300_000);
}

const open: Sandbox[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.dispose();
});

async function sandbox(t: Times, gates: SandboxGate[], options: Partial<SandboxOptions> = {}): Promise<Sandbox> {
  const s = await createSandbox({ gates, limits: { evalTimeoutMs: t.deadline }, hardDeadlineGraceMs: t.grace, ...options });
  open.push(s);
  return s;
}

const echo: SandboxGate = { name: 'echo', call: async (args) => args[0] };

/** A gate that tells the test when it is entered and answers only when the test releases it. */
function heldGate(name = 'held'): { gate: SandboxGate; inside: Promise<void>; release: (value: unknown) => void; calls: () => number } {
  let entered: () => void = () => {};
  let release: (value: unknown) => void = () => {};
  let calls = 0;
  const inside = new Promise<void>((resolve) => (entered = resolve));
  const gate: SandboxGate = {
    name,
    call: () => {
      calls += 1;
      entered();
      return new Promise((resolve) => (release = resolve));
    },
  };
  return { gate, inside, release: (value) => release(value), calls: () => calls };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Holds `held` for `t.hold` ms after the program entered it, then answers `value`. */
async function holdThenRelease(t: Times, held: ReturnType<typeof heldGate>, value: unknown): Promise<void> {
  await held.inside;
  await sleep(t.hold);
  held.release(value);
}

describe('the code medium program deadline counts the program, not its gate waits', () => {
  scaledIt('CIRCLE-6, COMP-2: a gate that answers long after the deadline still returns its value to the program', async (t) => {
    const held = heldGate();
    const s = await sandbox(t, [echo, held.gate]);
    // After the wait the program runs long enough for the engine to poll its deadline, and calls a
    // gate again (a call checks the deadline too), so a deadline that had counted the wait would show.
    const program = 'const got = held(); let n = 0; for (let i = 0; i < 100000; i++) n += 1; echo(got + n / 100000)';
    const pending = s.evaluate(program, { idPrefix: 'tc' });
    await holdThenRelease(t, held, 41);
    const e = await pending;
    expect(e.error).toBeUndefined();
    expect(e.value).toBe(42);
    expect(e.reset).toBeUndefined();
    expect(e.gate_calls).toEqual([
      { tool_call_id: 'tc.1', gate: 'held', arguments: [], ok: true, result: 41 },
      { tool_call_id: 'tc.2', gate: 'echo', arguments: [42], ok: true, result: 42 },
    ]);
  });

  scaledIt('CIRCLE-6: a program spinning in pure JS is still cut off by the deadline, also after a gate call', async (t) => {
    const s = await sandbox(t, [echo]);
    const plain = await s.evaluate('for (;;) {}', { idPrefix: 'spin' });
    expect(plain.error?.name).toBe('TimeoutError');
    expect(plain.reset).toBeUndefined();
    const after = await s.evaluate('echo(1); for (;;) {}', { idPrefix: 'after' });
    expect(after.error?.name).toBe('TimeoutError');
    expect(after.reset).toBeUndefined();
    expect(after.gate_calls.map((record) => record.ok)).toEqual([true]);
  });

  scaledIt('CIRCLE-6: running time before and after a long gate call adds up against one deadline', async (t) => {
    // Each spin alone is shorter than the deadline (0.45 and 0.7 of it, timed by the program itself),
    // together they are longer: only a deadline that resumes where it paused cuts the second one off.
    // Before the gate, 0.55 of the deadline is left as slack for a descheduled worker.
    const held = heldGate();
    const s = await sandbox(t, [held.gate]);
    const before = Math.round(t.deadline * 0.45);
    const after = Math.round(t.deadline * 0.7);
    const program = `
      let t = Date.now(); while (Date.now() - t < ${before}) {}
      const got = held();
      t = Date.now(); while (Date.now() - t < ${after}) {}
      "finished " + got`;
    const pending = s.evaluate(program, { idPrefix: 'sum' });
    await holdThenRelease(t, held, 'late');
    const e = await pending;
    expect(e.gate_calls).toEqual([{ tool_call_id: 'sum.1', gate: 'held', arguments: [], ok: true, result: 'late' }]);
    expect(e.value).toBeUndefined();
    expect(e.error?.name).toBe('TimeoutError');
    expect(e.reset).toBeUndefined();
  });

  scaledIt('CIRCLE-6: the gate budget still bounds a gate that never answers, and the sandbox goes on', async (t) => {
    const never: SandboxGate = { name: 'never', call: () => new Promise<never>(() => {}) };
    const s = await sandbox(t, [never], { limits: { evalTimeoutMs: t.deadline, gateWaitMs: t.deadline } });
    await s.evaluate('var kept = 7', { idPrefix: 'setup' });
    const e = await s.evaluate('try { never() } catch (e) { "caught" }', { idPrefix: 'tc' });
    // The budget ends the evaluation: the program cannot catch it and wait again.
    expect(e.error?.name).toBe('TimeoutError');
    expect(e.gate_calls[0]).toMatchObject({ gate: 'never', ok: false, error: { name: 'TimeoutError' } });
    expect((await s.evaluate('kept', { idPrefix: 'next' })).value).toBe(7);
  });

  scaledIt('CIRCLE-6, COMP-9: when the cast is stopped, the gate wait ends at once and later gate calls fail without running', async (t) => {
    const held = heldGate();
    const s = await sandbox(t, [held.gate]);
    await s.evaluate('var kept = 7', { idPrefix: 'setup' });
    const controller = new AbortController();
    const pending = s.evaluate('held()', { idPrefix: 'tc', signal: controller.signal });
    await held.inside;
    controller.abort('ward');
    const e = await pending;
    expect(e.error?.name).toBe('AbortError');
    expect(e.gate_calls[0]).toMatchObject({ gate: 'held', ok: false, error: { name: 'AbortError' } });
    const later = await s.evaluate('let n = 0; try { held() } catch (e) { n = 1 } n', { idPrefix: 'later', signal: controller.signal });
    expect(later.error?.name).toBe('AbortError');
    expect(held.calls()).toBe(1);
    expect((await s.evaluate('kept', { idPrefix: 'next' })).value).toBe(7);
  });
});

describe('a child entity that runs longer than the program deadline (COMP-2)', () => {
  scaledIt('COMP-2, CIRCLE-6: call_entity from code blocks until the slow child completes and returns its answer', async (t) => {
    let queried: () => void = () => {};
    const childQueried = new Promise<void>((resolve) => (queried = resolve));
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    // The child's first step waits for the test; its second (after its program) is never needed.
    const child = new CallbackCrystal(async (_request: CrystalRequest): Promise<CrystalResponse> => {
      queried();
      await released;
      return { content: null, tool_calls: [gateCall('js', { code: 'done("child answer")' })], usage: { prompt: 1, completion: 1, cached: 0 } };
    }, 'child');
    const parent = new ScriptedCrystal([{ tool_calls: [gateCall('js', { code: 'const got = call_entity({ intent: "take your time" }); done(got + "!")' })] }], 'parent');
    const cantrip = createCantrip({
      crystal: parent,
      call: createCall({ systemPrompt: 'You write JavaScript.' }),
      circle: createCircle({
        gates: [doneGate(), callEntityGate({ crystal: child })],
        // No wall-clock ward: only the program deadline could cut the parent off while it waits.
        wards: { maxTurns: 3, maxDepth: 1, evalTimeoutMs: t.deadline },
        medium: codeMedium({ evalTimeoutMs: t.deadline }),
      }),
    });
    const cast = cantrip.cast('delegate a slow task');
    await childQueried;
    // The parent's program is blocked in call_entity for ≥ 3 × (deadline + the default 1000 ms grace).
    await sleep(3 * (t.deadline + 1000));
    release();
    const result = await cast;
    expect(result.status).toBe('terminated');
    expect(result.result).toBe('child answer!');
    expect(result.turns[0]!.gate_calls[0]).toMatchObject({ gate: 'call_entity', ok: true, result: 'child answer' });
  });
});

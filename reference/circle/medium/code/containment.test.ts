import { describe, it, expect, afterEach } from 'vitest';
import { crashSandboxWorker, createSandbox } from './sandbox.ts';
import type { Sandbox, SandboxGate, SandboxOptions } from './types.ts';

const open: Sandbox[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.dispose();
});
async function sandbox(options: Partial<SandboxOptions> = {}): Promise<Sandbox> {
  const s = await createSandbox({ gates: [echo], ...options });
  open.push(s);
  return s;
}
const echo: SandboxGate = { name: 'echo', call: async (args) => args[0] };
const run = (s: Sandbox, code: string, idPrefix = 'tc') => s.evaluate(code, { idPrefix });

/**
 * A gate whose host side tells the test it was entered and then waits to be released. While the
 * sandbox waits on it, the worker's event loop is free, so a test-made crash lands mid-evaluation.
 */
function heldGate(): { gate: SandboxGate; inside: Promise<void>; release: (value: unknown) => void } {
  let entered: () => void = () => {};
  const held = { release: (_value: unknown): void => {} };
  const inside = new Promise<void>((resolve) => (entered = resolve));
  const gate: SandboxGate = {
    name: 'held',
    call: () => {
      entered();
      return new Promise((resolve) => (held.release = resolve));
    },
  };
  return { gate, inside, release: (value) => held.release(value) };
}

/** Native string search that QuickJS runs without polling its interrupt handler (~1e11 steps). */
const NATIVE_LONG_CALL = 'const hay = "a".repeat(1e6), needle = "a".repeat(1e5) + "b"; hay.indexOf(needle)';

describe('code medium containment in a worker thread', () => {
  it('CIRCLE-6 / LOOP-1: recursion through a gate, 30 times over, never takes the host process down', async () => {
    const s = await sandbox();
    for (let i = 0; i < 30; i++) {
      const e = await run(s, 'function g(n) { return echo(n) + g(n + 1) } g(0)', `r${i}`);
      // Either the depth guard's RangeError, or (should the worker's stack give out) a crash and a reset.
      if (e.error?.name === 'SandboxCrashed') expect(e.reset).toBe(true);
      else expect(e.error?.name).toBe('RangeError');
      expect(e.gate_calls.length).toBeGreaterThan(0);
    }
    expect((await run(s, '1 + 1')).value).toBe(2);
  });

  it('CIRCLE-6 / LOOP-1: a worker that exits is reported as SandboxCrashed with a reset, and the next evaluation works', async () => {
    const held = heldGate();
    const s = await sandbox({ gates: [echo, held.gate], globals: { context: { n: 7 } }, limits: { evalTimeoutMs: 5000 } });
    await run(s, 'var kept = 1');
    const pending = run(s, 'held()');
    // Bounded by the evaluation's own deadline: if held is never entered, the evaluation ends first.
    await Promise.race([held.inside, pending]);
    await crashSandboxWorker(s, 'exit');
    const e = await pending;
    expect(e.error?.name).toBe('SandboxCrashed');
    expect(e.reset).toBe(true);
    const next = await run(s, '[typeof kept, context.n, 1 + 1]');
    expect(next.value).toEqual(['undefined', 7, 2]);
  });

  it('CIRCLE-6 / LOOP-1: an uncaught error inside the worker is contained the same way', async () => {
    const held = heldGate();
    const s = await sandbox({ gates: [echo, held.gate], limits: { evalTimeoutMs: 5000 } });
    const pending = run(s, 'held()');
    await Promise.race([held.inside, pending]);
    await crashSandboxWorker(s, 'throw');
    const e = await pending;
    expect(e.error?.name).toBe('SandboxCrashed');
    expect(e.reset).toBe(true);
    expect((await run(s, 'echo(3)')).value).toBe(3);
  });

  it('CIRCLE-5: gate calls the host ran before a crash still appear as records', async () => {
    const held = heldGate();
    const s = await sandbox({ gates: [echo, held.gate], limits: { evalTimeoutMs: 5000 } });
    const pending = run(s, 'echo("a"); held()', 'c');
    await Promise.race([held.inside, pending]);
    await crashSandboxWorker(s, 'exit');
    const e = await pending;
    held.release('late');
    expect(e.error?.name).toBe('SandboxCrashed');
    expect(e.gate_calls.map((r) => [r.tool_call_id, r.gate, r.ok])).toEqual([
      ['c.1', 'echo', true],
      ['c.2', 'held', false],
    ]);
    expect(e.gate_calls[1]?.error?.name).toBe('SandboxCrashed');
  });

  it('CIRCLE-6: a native call that ignores the deadline is ended by the hard deadline, with a reset', async () => {
    // The native call runs for minutes, so only the hard deadline (600 ms) can end it; the 500 ms
    // deadline also bounds the evaluations before and after it, a gate round trip included, with room
    // for a loaded machine.
    const s = await sandbox({ limits: { evalTimeoutMs: 500 }, hardDeadlineGraceMs: 100 });
    await run(s, 'var kept = 1');
    const e = await run(s, NATIVE_LONG_CALL);
    expect(e.error?.name).toBe('TimeoutError');
    expect(e.reset).toBe(true);
    expect((await run(s, '[typeof kept, echo(2)]')).value).toEqual(['undefined', 2]);
  });

  it('CIRCLE-6: hardDeadlineGraceMs is checked like the other options', async () => {
    for (const hardDeadlineGraceMs of [-1, 1.5, 120_000]) {
      await expect(createSandbox({ gates: [], hardDeadlineGraceMs })).rejects.toMatchObject({ code: 'sandbox_error' });
    }
  });

  it('CIRCLE-9: a disposed sandbox leaves no trace in the worker that serves the next one', async () => {
    const first = await createSandbox({ gates: [echo] });
    await run(first, 'var secret = "first"; globalThis.marker = 1');
    first.dispose();
    const second = await sandbox();
    expect((await run(second, '[typeof secret, typeof marker]')).value).toEqual(['undefined', 'undefined']);
  });

  it('rejects an evaluation that is running when the sandbox is disposed, with sandbox_error', async () => {
    const s = await createSandbox({ gates: [], limits: { evalTimeoutMs: 5000 } });
    const pending = run(s, 'while (true) {}');
    s.dispose();
    await expect(pending).rejects.toMatchObject({ code: 'sandbox_error' });
  });
});

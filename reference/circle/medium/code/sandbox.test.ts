import { describe, it, expect, afterEach } from 'vitest';
import { CantripError } from '../../../errors.ts';
import { createSandbox } from './sandbox.ts';
import type { Sandbox, SandboxGate, SandboxOptions } from './types.ts';

const open: Sandbox[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.dispose();
});
async function sandbox(options: Partial<SandboxOptions> = {}): Promise<Sandbox> {
  const s = await createSandbox({ gates: [], ...options });
  open.push(s);
  return s;
}
const echo: SandboxGate = { name: 'echo', call: async (args) => args };
const slow: SandboxGate = {
  name: 'slow',
  call: async (args) => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { got: args[0] };
  },
};
const fail: SandboxGate = { name: 'fail', call: async () => Promise.reject(new TypeError('no such file')) };
const run = (s: Sandbox, code: string, idPrefix = 'tc_1') => s.evaluate(code, { idPrefix });

describe('code medium sandbox', () => {
  it('CIRCLE-9: top-level const, let, var and functions persist into the next evaluation', async () => {
    const s = await sandbox();
    expect((await run(s, 'const x = 1; let y = 2; var z = 3; function add(a, b) { return a + b }')).error).toBeUndefined();
    expect((await run(s, 'add(x, y) + z')).value).toBe(6);
    expect((await run(s, 'x = 5')).error?.name).toBe('TypeError');
    expect((await run(s, 'x')).value).toBe(1);
  });

  it('CIRCLE-9: state survives a thrown error and a timeout in between', async () => {
    const s = await sandbox({ limits: { evalTimeoutMs: 100 } });
    await run(s, 'const kept = "still here"');
    expect((await run(s, 'throw new Error("boom")')).error).toEqual({ name: 'Error', message: 'boom' });
    expect((await run(s, 'while (true) {}')).error?.name).toBe('TimeoutError');
    expect((await run(s, 'kept')).value).toBe('still here');
  });

  it('CIRCLE-3: a gate whose host side takes ~20 ms returns its value synchronously inside the code', async () => {
    const s = await sandbox({ gates: [slow] });
    const e = await run(s, 'const r = slow(7); const sync = !(r instanceof Promise); [sync, r.got]');
    expect(e.value).toEqual([true, 7]);
  });

  it('CIRCLE-3: gates stay synchronous inside async code after an await', async () => {
    const s = await sandbox({ gates: [slow] });
    const e = await run(s, '(async () => { await null; const a = slow(1); await null; return a.got + slow(2).got })()');
    expect(e.value).toBe(3);
    expect(e.gate_calls.map((r) => r.arguments)).toEqual([[1], [2]]);
  });

  it('CIRCLE-5: a rejected host call is an ok:false record and an Error the code can catch', async () => {
    const s = await sandbox({ gates: [fail] });
    const e = await run(s, 'let seen; try { fail("/nope") } catch (err) { seen = [err instanceof Error, err.name, err.message] } seen');
    expect(e.value).toEqual([true, 'TypeError', 'no such file']);
    expect(e.gate_calls).toEqual([
      { tool_call_id: 'tc_1.1', gate: 'fail', arguments: ['/nope'], ok: false, error: { name: 'TypeError', message: 'no such file' } },
    ]);
  });

  it('CIRCLE-5: an uncaught gate failure is both recorded and the evaluation error', async () => {
    const coded: SandboxGate = { name: 'gone', call: async () => Promise.reject(new CantripError('gate_unavailable', 'gone')) };
    const s = await sandbox({ gates: [coded] });
    const e = await run(s, 'gone()');
    expect(e.gate_calls[0]?.error?.code).toBe('gate_unavailable');
    expect(e.error?.name).toBe('CantripError');
  });

  it('CIRCLE-7: records keep call order and get ids <prefix>.<n>', async () => {
    const s = await sandbox({ gates: [echo, fail] });
    const e = await run(s, 'echo("a"); try { fail() } catch {} ; for (const k of [1, 2]) echo(k)', 'call_9');
    expect(e.gate_calls.map((r) => [r.tool_call_id, r.gate, r.ok])).toEqual([
      ['call_9.1', 'echo', true],
      ['call_9.2', 'fail', false],
      ['call_9.3', 'echo', true],
      ['call_9.4', 'echo', true],
    ]);
    expect(e.gate_calls[3]?.result).toEqual([2]);
  });

  it('LOOP-3: done records its answer and nothing after it runs, even inside try/catch/finally', async () => {
    const s = await sandbox({ gates: [echo] });
    const e = await run(s, 'try { done({ total: 3 }) } catch (err) { echo("caught") } finally { echo("finally") }\necho("after"); globalThis.after = true');
    expect(e.done).toEqual({ answer: { total: 3 } });
    expect(e.error).toBeUndefined();
    expect(e.gate_calls).toEqual([{ tool_call_id: 'tc_1.1', gate: 'done', arguments: [{ total: 3 }], ok: true, result: { total: 3 } }]);
    expect((await run(s, 'typeof after')).value).toBe('undefined');
  });

  it('LOOP-3: done inside an async function and inside a loop with catch-all still stops the code', async () => {
    const s = await sandbox({ gates: [echo] });
    const a = await run(s, '(async () => { await null; try { done(1) } catch {} echo("no") })()');
    expect(a.done).toEqual({ answer: 1 });
    expect(a.gate_calls.map((r) => r.gate)).toEqual(['done']);
    const b = await run(s, 'for (let i = 0; i < 3; i++) { try { done(i) } catch {} }');
    expect(b.done).toEqual({ answer: 0 });
    expect((await run(s, '1 + 1')).value).toBe(2);
  });

  it('LOOP-3: a done gate whose host side rejects does not stop the code', async () => {
    const s = await sandbox({ gates: [{ name: 'done', call: async () => Promise.reject(new Error('answer must be a number')) }] });
    const e = await run(s, 'try { done("x") } catch (err) { "continued: " + err.message }');
    expect(e.done).toBeUndefined();
    expect(e.value).toBe('continued: answer must be a number');
    expect(e.gate_calls[0]?.ok).toBe(false);
  });

  it('CIRCLE-6: a gate that was not given is simply not defined', async () => {
    const s = await sandbox({ gates: [echo] });
    expect((await run(s, 'typeof read')).value).toBe('undefined');
    expect((await run(s, 'read("x")')).error?.name).toBe('ReferenceError');
  });

  it('CIRCLE-6: a short deadline interrupts an endless loop without a reset', async () => {
    const s = await sandbox({ limits: { evalTimeoutMs: 50 } });
    const e = await run(s, 'while (true) {}');
    expect(e.error?.name).toBe('TimeoutError');
    expect(e.reset).toBeUndefined();
  });

  it('CIRCLE-6: output is capped with a visible marker', async () => {
    const s = await sandbox({ limits: { maxOutputChars: 50 } });
    const e = await run(s, 'console.log("x".repeat(200)); console.error("more")');
    expect(e.output.startsWith('x'.repeat(50))).toBe(true);
    expect(e.output).toMatch(/…\[output truncated: \d+ more chars\]$/);
    expect(e.output.length).toBeLessThan(100);
  });

  it('LOOM-11: injected globals are readable and deeply frozen', async () => {
    const s = await sandbox({ globals: { context: { docs: ['a', 'b'] } } });
    expect((await run(s, 'context.docs.length')).value).toBe(2);
    expect((await run(s, '"use strict"; context.docs.push("c")')).error?.name).toBe('TypeError');
    expect((await run(s, 'context = 1; context.docs[1]')).value).toBe('b');
  });

  it('CIRCLE-6: limits that would leave the sandbox unbounded are rejected with sandbox_error', async () => {
    const bad: Partial<SandboxOptions>[] = [
      { limits: { stackLimitBytes: 1024 * 1024 } },
      { limits: { evalTimeoutMs: 0 } },
      { gates: [{ name: 'not a name', call: async () => 1 }] },
      { gates: [echo, echo] },
      { gates: [{ name: 'console', call: async () => 1 }] },
      { globals: { echo: 1 }, gates: [echo] },
      { globals: { n: 1n } },
    ];
    for (const options of bad) {
      await expect(createSandbox({ gates: [], ...options })).rejects.toMatchObject({ code: 'sandbox_error' });
    }
  });

  it('rejects evaluate after dispose and bad evaluate arguments with sandbox_error', async () => {
    const s = await createSandbox({ gates: [] });
    await expect(s.evaluate('1', { idPrefix: '' })).rejects.toMatchObject({ code: 'sandbox_error' });
    s.dispose();
    await expect(s.evaluate('1', { idPrefix: 'a' })).rejects.toMatchObject({ code: 'sandbox_error' });
  });

  it('CIRCLE-9: concurrent evaluate calls run one after another on the same state', async () => {
    const s = await sandbox({ gates: [slow] });
    const [a, b] = await Promise.all([run(s, 'var n = slow(1).got'), run(s, 'n + 1')]);
    expect(a.error).toBeUndefined();
    expect(b.value).toBe(2);
  });
});

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import fc from 'fast-check';
import { createSandbox } from './sandbox.ts';
import type { Sandbox } from './types.ts';

/** A grammar of small statements, hostile and benign, that the entity's programs are made of. */
const statement: fc.Arbitrary<string> = fc.oneof(
  fc.nat({ max: 200_000 }).map((n) => `for (var i = 0; i < ${n}; i++) { acc = (acc + i) % 7 }`),
  fc.string({ maxLength: 8 }).map((s) => `throw new Error(${JSON.stringify(s)})`),
  fc.constantFrom('throw 1', 'throw null', 'throw {}'),
  fc.jsonValue({ maxDepth: 3 }).map((v) => `echo(${JSON.stringify(v)})`),
  fc.jsonValue({ maxDepth: 2 }).map((v) => `try { fail(${JSON.stringify(v)}) } catch (e) { acc = 1 }`),
  fc.nat({ max: 3000 }).map((n) => `function r(n) { return n <= 0 ? 0 : 1 + r(n - 1) } r(${n})`),
  fc.nat({ max: 30 }).map((n) => `var s = "ab"; for (var k = 0; k < ${n}; k++) s += s`),
  fc.constantFrom('await null', 'await Promise.resolve(1)', 'await new Promise(() => {})'),
  fc.constantFrom('while (true) {}', 'console.log(acc)', 'done(acc)', 'Promise.resolve().then(() => echo("job"))'),
);
const program = fc.array(statement, { minLength: 1, maxLength: 5 }).map((lines) => lines.join(';\n'));

describe('code medium under random programs', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await createSandbox({
      gates: [
        { name: 'echo', call: async (args) => args[0] ?? null },
        { name: 'fail', call: async () => Promise.reject(new Error('refused')) },
      ],
      limits: { evalTimeoutMs: 100, memoryLimitBytes: 8 * 1024 * 1024, maxOutputChars: 500 },
    });
  });
  afterAll(() => sandbox.dispose());

  it('CIRCLE-6 / CIRCLE-9: every program ends as an Evaluation within bounds and the next evaluation works', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(program, async (code) => {
        n += 1;
        await sandbox.evaluate('var acc = 0', { idPrefix: `init${n}` });
        const e = await sandbox.evaluate(code, { idPrefix: `p${n}` });
        expect(Array.isArray(e.gate_calls)).toBe(true);
        expect(typeof e.output).toBe('string');
        expect(e.output.length).toBeLessThanOrEqual(600);
        e.gate_calls.forEach((record, i) => expect(record.tool_call_id).toBe(`p${n}.${i + 1}`));
        if (e.done) expect(e.gate_calls.at(-1)?.gate).toBe('done');
        const next = await sandbox.evaluate('1 + 1', { idPrefix: `next${n}` });
        expect(next.value).toBe(2);
      }),
      { numRuns: 60 },
    );
  });
});

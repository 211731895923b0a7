import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const ENGINE = new URL('./engine.ts', import.meta.url).href;
const LIMITS = new URL('./limits.ts', import.meta.url).href;

/**
 * Builds an engine in a fresh Node process, runs `body` with it, disposes it and returns what the
 * process wrote to stderr. A separate process, because QuickJS prints its `Aborted(...)` through a
 * console it captured when its module loaded, out of reach of a spy in this one.
 */
function stderrOfDispose(body: string): string {
  const script = `
    const { createEngine } = await import(${JSON.stringify(ENGINE)});
    const { DEFAULT_LIMITS } = await import(${JSON.stringify(LIMITS)});
    const engine = await createEngine(['echo'], '{}', { ...DEFAULT_LIMITS }, () => performance.now());
    ${body}
    engine.dispose();
    console.log('disposed');
  `;
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(child.stdout.trim()).toBe('disposed');
  return child.stderr;
}

describe('code engine disposal', () => {
  it('CIRCLE-6: disposing an engine while a QuickJS object is still alive neither throws nor prints an assertion', () => {
    // A handle the host never frees, as a host stack overflow leaves behind: freeing the runtime now
    // would trip JS_FreeRuntime's `list_empty(&rt->gc_obj_list)` assertion.
    expect(stderrOfDispose('engine.context.newObject();')).toBe('');
  });

  it('CIRCLE-6: disposing an engine after an ordinary evaluation is silent too', () => {
    expect(stderrOfDispose("const r = engine.context.evalCode('1 + 1'); r.value?.dispose();")).toBe('');
  });
});

/**
 * Builds an engine in a fresh Node process whose `performance.now` jumps `stepMs` at every reading, as a
 * machine far slower than this one would look to the engine's bounds, and says whether the build held.
 */
function buildsOnASlowMachine(evalTimeoutMs: number, stepMs: number): string {
  const script = `
    const { createEngine } = await import(${JSON.stringify(ENGINE)});
    const { DEFAULT_LIMITS } = await import(${JSON.stringify(LIMITS)});
    const real = performance.now.bind(performance);
    let t = real();
    performance.now = () => (t += ${stepMs});
    try {
      await createEngine(['echo'], '{}', { ...DEFAULT_LIMITS, evalTimeoutMs: ${evalTimeoutMs} }, () => real());
      console.log('built');
    } catch (error) {
      console.log('failed');
    }
  `;
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  return child.stdout.trim();
}

describe('code engine build on a slow machine', () => {
  it('CIRCLE-6: the build of the sandbox\'s own prelude is bounded by the evaluation deadline the circle gives, not a fixed second', () => {
    // The busy-machine run (load about 17 per core) cut a one-second build bound: the cast ended
    // truncated before any program ran. A deadline given for such a machine covers the build too...
    expect(buildsOnASlowMachine(60_000, 5_000)).toBe('built');
    // ...and the build stays bounded: past the deadline it is cut.
    expect(buildsOnASlowMachine(2_000, 5_000)).toBe('failed');
  });
});

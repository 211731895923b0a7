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

import { CantripError } from '../../../errors.ts';
import { createEngine, type Engine } from './engine.ts';
import { resolveOptions } from './options.ts';
import { runEvaluation } from './run.ts';
import type { Evaluation, Sandbox, SandboxOptions } from './types.ts';

/**
 * Creates one entity's code medium: a QuickJS sandbox on its own asyncify wasm module (§4.1, §4.7).
 *
 * - CIRCLE-9: evaluations share one global scope, so top-level `var`/`let`/`const` and functions
 *   from one turn are there in the next.
 * - CIRCLE-3: gates are plain synchronous functions inside; their async host sides are awaited by
 *   suspending the sandbox. Arguments and results cross as JSON copies, never as live objects.
 * - CIRCLE-5 / CIRCLE-7: every gate call becomes one ordered record, failures included.
 * - LOOP-3: `done(answer)` records its call and ends the evaluation at once, through try/catch.
 * - CIRCLE-6: deadline, memory, stack and output limits are enforced here, not by the entity. There is
 *   no ambient authority: no `require`, no module loader, no `process`, no timers, no network.
 *
 * State survives every failure (timeouts, throws, stack overflows, memory errors) as long as the
 * engine still answers a probe; when it does not, or the engine traps, the sandbox rebuilds itself
 * and that evaluation says `reset: true` (earlier variables are gone, injected globals are back).
 */
export async function createSandbox(options: SandboxOptions): Promise<Sandbox> {
  const resolved = resolveOptions(options);
  const build = (): Promise<Engine> => createEngine(resolved.gateNames, resolved.globalsJson, resolved.limits, resolved.clock);
  let engine: Engine | undefined = await build();
  // One evaluation at a time: the asyncify stack of a module cannot interleave two runs.
  let queue: Promise<unknown> = Promise.resolve();

  const evaluateNow = async (code: string, idPrefix: string): Promise<Evaluation> => {
    if (!engine) throw new CantripError('sandbox_error', 'evaluate: the sandbox has been disposed');
    const { evaluation, unhealthy } = await runEvaluation(engine, code, idPrefix, resolved.gates, resolved.limits, resolved.clock);
    if (unhealthy && engine) {
      engine.dispose();
      engine = undefined;
      engine = await build();
      evaluation.reset = true;
    }
    return evaluation;
  };

  return {
    evaluate(code, evalOptions) {
      if (typeof code !== 'string') return Promise.reject(new CantripError('sandbox_error', 'evaluate: code must be a string'));
      const idPrefix = evalOptions?.idPrefix;
      if (typeof idPrefix !== 'string' || idPrefix === '') {
        return Promise.reject(new CantripError('sandbox_error', 'evaluate: options.idPrefix must be a non-empty string'));
      }
      const next = queue.then(() => evaluateNow(code, idPrefix));
      queue = next.catch(() => undefined);
      return next;
    },
    dispose() {
      engine?.dispose();
      engine = undefined;
    },
  };
}

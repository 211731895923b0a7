import type { GateError } from '../../../../schemas/index.ts';
import type { ResolvedLimits } from './limits.ts';
import type { Evaluation } from './types.ts';

/**
 * The messages between a sandbox (main thread) and the worker thread that holds its QuickJS engine.
 * Everything crossing is plain data; gate arguments and results travel as JSON text, so they are the
 * same JSON copies the in-engine bridge makes (CIRCLE-3) and no structured-clone quirk can alter them.
 */

/** Main thread to worker. */
export type ToWorker =
  | {
      type: 'init';
      /** Every function the sandbox defines, the built-in `done` included. */
      gateNames: string[];
      /** The gates that have a host side on the main thread (a host-given `done` among them). */
      hostGates: string[];
      globalsJson: string;
      limits: ResolvedLimits;
    }
  | { type: 'evaluate'; code: string; idPrefix: string }
  | GateReply
  /** The sandbox was disposed: drop the engine and every trace of it, and wait for the next `init`. */
  | { type: 'reset' }
  /** Test hook: make the worker die the way a crash would (exit, or an uncaught throw). */
  | { type: 'crash'; how: 'exit' | 'throw' };

/**
 * The main thread's answer to one gate call: a JSON result (absent for `undefined`) or the failure.
 * `stop` marks a failure that also ends the evaluation: the host gave up on the call (gate budget
 * spent, or the cast was stopped).
 */
export type GateReply =
  | { type: 'gate-reply'; callId: number; ok: true; json?: string }
  | { type: 'gate-reply'; callId: number; ok: false; error: GateError; stop?: true };

/** Worker to main thread. */
export type FromWorker =
  | { type: 'ready' }
  | { type: 'init-failed'; message: string }
  /**
   * A gate call. `remainingMs` is what was left of the program's own running time when it made the
   * call: the host restarts its hard deadline from it once the call is answered (CIRCLE-6).
   */
  | { type: 'gate'; callId: number; name: string; argsJson: string; remainingMs: number }
  | { type: 'evaluation'; evaluation: Evaluation }
  /** The worker could not run the evaluation at all (its engine failed and could not be rebuilt). */
  | { type: 'failed'; message: string };

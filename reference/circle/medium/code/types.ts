import type { GateCallRecord } from '../../../../schemas/index.ts';

/**
 * A gate as the sandbox sees it: a name the entity's code calls as a plain function, and a host side
 * that may be asynchronous (CIRCLE-3: the sandbox waits for it, so the entity never sees a promise).
 * Arguments arrive as a JSON deep copy of what the code passed, positionally.
 */
export interface SandboxGate {
  name: string;
  call: (args: unknown[]) => Promise<unknown>;
}

/** Resource bounds of one sandbox. Every field is optional; see `limits.ts` for the defaults. */
export interface SandboxLimits {
  /**
   * Budget of the program's own running time in one evaluation. Time the program spends blocked in a
   * host gate (a child entity included, COMP-2) does not count: the deadline pauses while a gate is
   * served and resumes when it answers, so spins before and after a gate call add up. Default 2000.
   */
  evalTimeoutMs?: number;
  /**
   * Budget of the time one evaluation may spend blocked in host gates, all its calls together. A host
   * safety bound so that no wait is endless: the cast's wards (its timeout, its abort signal, passed
   * to {@link Sandbox.evaluate}) and each gate's own bounds normally end a wait long before. When it
   * runs out, the call in progress fails with a TimeoutError and the evaluation stops. Default 15 min.
   */
  gateWaitMs?: number;
  /** QuickJS heap limit. Default 32 MiB. */
  memoryLimitBytes?: number;
  /** QuickJS stack limit. Default and maximum 256 KiB (larger lets deep recursion escape as a host RangeError). */
  stackLimitBytes?: number;
  /** Cap on captured console output per evaluation; also caps the rendered completion value. Default 8000. */
  maxOutputChars?: number;
}

/** How to build a sandbox. */
export interface SandboxOptions {
  /** The gates the entity may call (wards that remove a gate are applied by not listing it). */
  gates: SandboxGate[];
  limits?: SandboxLimits;
  /** JSON-able data exposed as read-only, deeply frozen globals (e.g. `context`, or the loom thread, LOOM-11). */
  globals?: Record<string, unknown>;
  /**
   * How long past `evalTimeoutMs` the host waits for the sandbox's worker before terminating it and
   * starting a fresh one (the hard deadline, for native work the interrupt cannot stop). Like the
   * deadline, the hard deadline does not run while the host is serving one of the worker's gate calls.
   * Default 1000.
   */
  hardDeadlineGraceMs?: number;
}

/** A thrown value as the observation shows it: the error's class name and its message. */
export interface EvaluationError {
  name: string;
  message: string;
}

/** What one evaluation of the entity's code did: the raw material of one turn's observation (CIRCLE-7). */
export interface Evaluation {
  /** Every gate call in the order the code made it; ids are `<idPrefix>.<n>`, n from 1 (CIRCLE-4, CIRCLE-5). */
  gate_calls: GateCallRecord[];
  /** console.log/info/warn/error lines, capped with a visible truncation marker. */
  output: string;
  /** The completion value, JSON-converted (non-JSON values become a short string description). */
  value?: unknown;
  /** Set when the code threw, timed out, ran out of memory or overflowed the stack. */
  error?: EvaluationError;
  /** Set when the code called `done` (LOOP-3: the code stopped right there). */
  done?: { answer: unknown };
  /** True when the sandbox had to be rebuilt after this evaluation: earlier variables are gone. */
  reset?: boolean;
}

/** One entity's code medium: a persistent JavaScript global scope with gates as functions (CIRCLE-9). */
export interface Sandbox {
  /**
   * Runs one snippet. Never rejects for anything the code does; rejects only when the sandbox is
   * disposed or misused. When `signal` aborts (the cast was cut off by a ward or stopped by its
   * parent, CIRCLE-6, COMP-9), a gate call in progress or made later fails at once and the evaluation
   * stops, so no gate wait outlives the cast.
   */
  evaluate(code: string, options: { idPrefix: string; signal?: AbortSignal }): Promise<Evaluation>;
  dispose(): void;
}

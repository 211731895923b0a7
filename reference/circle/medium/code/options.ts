import { CantripError } from '../../../errors.ts';
import { DONE_GATE } from './gate-bridge.ts';
import { resolveLimits, type ResolvedLimits } from './limits.ts';
import type { SandboxGate, SandboxOptions } from './types.ts';

/** Sandbox options after validation. */
export interface ResolvedOptions {
  gates: ReadonlyMap<string, SandboxGate>;
  /** Every function name the sandbox defines: the given gates plus the built-in `done`. */
  gateNames: string[];
  globalsJson: string;
  limits: ResolvedLimits;
  /** Time past `evalTimeoutMs` (of the program's own running time) before the host terminates an unresponsive worker. */
  hardDeadlineGraceMs: number;
}

/** Default of {@link SandboxOptions.hardDeadlineGraceMs}: covers reading results and an engine rebuild. */
export const DEFAULT_HARD_DEADLINE_GRACE_MS = 1000;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** Names a gate or global cannot take: keywords, and globals the sandbox itself relies on. */
const RESERVED = new Set(
  ('break case catch class const continue debugger default delete do else enum export extends false finally for ' +
    'function if import in instanceof new null return super switch this throw true try typeof var void while with ' +
    'yield let static implements interface package private protected public await arguments eval undefined NaN ' +
    'Infinity globalThis console JSON Object Array Error TypeError String Reflect Function Promise Symbol').split(' '),
);

/**
 * Checks createSandbox's options and says exactly which field is wrong (code `sandbox_error`).
 * Gate names must be usable as plain function names in the sandbox (CIRCLE-3); globals must be JSON.
 */
export function resolveOptions(options: SandboxOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null) fail('options must be an object');
  if (!Array.isArray(options.gates)) fail('options.gates must be an array');
  const gates = new Map<string, SandboxGate>();
  options.gates.forEach((gate, i) => {
    const where = `options.gates[${i}]`;
    if (typeof gate !== 'object' || gate === null) fail(`${where} must be an object`);
    checkName(`${where}.name`, gate.name);
    if (typeof gate.call !== 'function') fail(`${where}.call must be a function`);
    if (gates.has(gate.name)) fail(`${where}.name "${gate.name}" is listed twice`);
    gates.set(gate.name, gate);
  });
  const gateNames = gates.has(DONE_GATE) ? [...gates.keys()] : [...gates.keys(), DONE_GATE];

  const globals = options.globals ?? {};
  if (typeof globals !== 'object' || globals === null || Array.isArray(globals)) fail('options.globals must be a plain object');
  for (const [key, value] of Object.entries(globals)) {
    checkName(`options.globals key`, key);
    if (gateNames.includes(key)) fail(`options.globals.${key} collides with a gate of the same name`);
    if (value === undefined) fail(`options.globals.${key} is undefined`);
  }
  let globalsJson: string;
  try {
    globalsJson = JSON.stringify(globals);
  } catch (error) {
    fail(`options.globals must be JSON-able: ${error instanceof Error ? error.message : String(error)}`);
  }
  const grace = options.hardDeadlineGraceMs ?? DEFAULT_HARD_DEADLINE_GRACE_MS;
  if (typeof grace !== 'number' || !Number.isInteger(grace) || grace < 0 || grace > 60_000) {
    fail(`options.hardDeadlineGraceMs must be an integer between 0 and 60000, got ${String(grace)}`);
  }
  return {
    gates,
    gateNames,
    globalsJson,
    limits: resolveLimits(options.limits),
    hardDeadlineGraceMs: grace,
  };
}

function checkName(where: string, name: unknown): asserts name is string {
  if (typeof name !== 'string' || !IDENTIFIER.test(name)) fail(`${where} must be a JavaScript identifier, got ${JSON.stringify(name)}`);
  if (RESERVED.has(name)) fail(`${where} "${name}" is reserved in the sandbox`);
}

function fail(message: string): never {
  throw new CantripError('sandbox_error', `createSandbox: ${message}`);
}

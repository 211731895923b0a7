import { CantripError } from '../../../errors.ts';
import type { SandboxLimits } from './types.ts';

/** Limits with every default filled in. */
export type ResolvedLimits = Required<SandboxLimits>;

const KIB = 1024;
const MIB = 1024 * KIB;

/** The defaults; the stack default is also the ceiling (see `resolveLimits` below). */
export const DEFAULT_LIMITS: Readonly<ResolvedLimits> = Object.freeze({
  evalTimeoutMs: 2000,
  gateWaitMs: 15 * 60 * 1000,
  memoryLimitBytes: 32 * MIB,
  stackLimitBytes: 256 * KIB,
  maxOutputChars: 8000,
});

/** Largest stack QuickJS may use: beyond it, deep recursion overflows the host's stack instead of QuickJS's. */
export const MAX_STACK_BYTES = 256 * KIB;

/**
 * Fills in defaults and rejects values that would leave the sandbox unbounded (CIRCLE-6: the circle,
 * not the entity, enforces limits). Errors name the field and the value.
 */
export function resolveLimits(limits: SandboxLimits | undefined): ResolvedLimits {
  const merged: ResolvedLimits = { ...DEFAULT_LIMITS, ...definedOnly(limits ?? {}) };
  requireInteger('evalTimeoutMs', merged.evalTimeoutMs, 1, 24 * 60 * 60 * 1000);
  requireInteger('gateWaitMs', merged.gateWaitMs, 1, 24 * 60 * 60 * 1000);
  requireInteger('memoryLimitBytes', merged.memoryLimitBytes, 1 * MIB, 4096 * MIB);
  requireInteger('stackLimitBytes', merged.stackLimitBytes, 16 * KIB, MAX_STACK_BYTES);
  requireInteger('maxOutputChars', merged.maxOutputChars, 1, 100 * MIB);
  return merged;
}

function definedOnly(limits: SandboxLimits): SandboxLimits {
  return Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined));
}

function requireInteger(field: keyof SandboxLimits, value: unknown, min: number, max: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new CantripError(
      'sandbox_error',
      `createSandbox: limits.${field} must be an integer between ${min} and ${max}, got ${String(value)}`,
    );
  }
}

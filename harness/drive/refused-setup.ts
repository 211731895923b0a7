/**
 * A construction the implementation refused, in a case that is not about construction. A case whose
 * expectations never look at a construct's error cannot judge anything once that construct is refused:
 * its cantrip does not exist, so nothing of what it is about happened. That is a case that could not
 * run (reported skipped, with the implementation's own reason), never a failure of the case's rules.
 * A case that is about construction (CANTRIP-1, CIRCLE-1...) addresses `errors.<name>` and is judged.
 */
import type { CodedError } from '../../schemas/records.ts';
import { parsePath, setupNeeds, type LoadedCase } from '../case-file/index.ts';
import { Stop } from './drive-state.ts';

/** Thrown by a refused construct the case does not judge: the drive ends and the case is not run. */
export class NotRun extends Stop {}

/**
 * Thrown when the refused setup is one every implementation must build: the case fails. Every draft
 * (§4.5, in all three) obliges an implementation to offer circles whose medium is conversation and whose
 * gates are called by name as tools; LOOP-2 and CIRCLE-1/2 make `done` and a turn cap what such a circle
 * is built with. A refusal of exactly that cannot be a skip, or refusing everything would pass.
 */
export class RequiredSetupRefused extends Stop {}

/** The wards an implementation must accept in any circle: a turn cap (LOOP-2 names it as the truncation condition). */
const REQUIRED_WARDS = new Set(['max_turns']);

/**
 * Whether the case's setup is one every implementation must build: a conversation circle (or no medium:
 * conversation by default) with `done`, a turn cap and no other ward, test gates only (no feature any
 * of its gates or settings needs), the entity required to call done, and no chosen tool_choice.
 */
export function requiredOfEveryImplementation(c: LoadedCase): boolean {
  const s = c.setup;
  const circle = s.circle;
  if (circle === undefined || (circle.medium !== undefined && circle.medium !== 'conversation')) return false;
  if (!circle.gates.some((g) => (typeof g === 'string' ? g : g.name) === 'done')) return false;
  const wards = Object.keys(circle.wards ?? {});
  if (!wards.includes('max_turns') || wards.some((w) => !REQUIRED_WARDS.has(w))) return false;
  if (s.require_done === false || s.tool_choice !== undefined || s.call?.hyperparameters !== undefined) return false;
  return setupNeeds(c).length === 0;
}

/** Why the case fails: the refused setup is one every implementation must build. */
export function requiredSetupRefusedReason(name: string, error: CodedError): string {
  const which = name === 'main' ? "the case's setup" : `the setup of '${name}'`;
  return `the implementation refused to construct ${which}${error.code !== undefined ? ` (${error.code})` : ''}: ${error.message}; a conversation circle with done and a turn cap is one every implementation must build (§4.5 of every draft: tool-calling circles are required), so the refusal is a failure, not a skip`;
}

/** Every path a case's expectations and premise read (nested alternatives and references included). */
function pathsRead(c: LoadedCase): string[] {
  const paths: string[] = [];
  for (const e of [...c.expect, ...(c.premise ?? [])]) {
    for (const p of [e.path, e.same_as, e.contains_text_at, e.holds_value_at, ...(e.any_of ?? []).flatMap((a) => [a.path, a.same_as, a.contains_text_at, a.holds_value_at])]) if (typeof p === 'string') paths.push(p);
  }
  return paths;
}

/** Whether the case judges the error of the construct named `name` (a path `errors`, `errors.<name>` or `errors[*]`). */
export function judgesConstructError(c: LoadedCase, name: string): boolean {
  return pathsRead(c).some((path) => {
    const [root, next] = parsePath(path);
    if (root?.kind !== 'key' || root.name !== 'errors') return false;
    return next === undefined || next.kind === 'all' || (next.kind === 'key' && next.name === name);
  });
}

/** Why the case could not run: the construct named `name` was refused with `error`. */
export function refusedSetupReason(name: string, error: CodedError): string {
  const which = name === 'main' ? "the case's setup" : `the setup of '${name}'`;
  return `not run: the implementation refused to construct ${which}${error.code !== undefined ? ` (${error.code})` : ''}: ${error.message}`;
}

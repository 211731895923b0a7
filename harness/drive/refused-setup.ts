/**
 * A construction the implementation refused, in a case that is not about construction. A case whose
 * expectations never look at a construct's error cannot judge anything once that construct is refused:
 * its cantrip does not exist, so nothing of what it is about happened. That is a case that could not
 * run (reported skipped, with the implementation's own reason), never a failure of the case's rules.
 * A case that is about construction (CANTRIP-1, CIRCLE-1...) addresses `errors.<name>` and is judged.
 */
import type { CodedError } from '../../schemas/records.ts';
import { parsePath, type LoadedCase } from '../case-file/index.ts';
import { Stop } from './drive-state.ts';

/** Thrown by a refused construct the case does not judge: the drive ends and the case is not run. */
export class NotRun extends Stop {}

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

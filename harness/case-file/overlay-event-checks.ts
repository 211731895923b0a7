/**
 * Load-time checks for the cases of features `overlay-file-gates` and `bounded-events` that the case
 * schema cannot express. Each problem is a JSON pointer into the case and what is wrong, reported by
 * the loader at file:line:col.
 */
import type { Case } from './types.ts';

type Problem = [pointer: string, message: string];

/**
 * - a case with an overlay file gate (`overlay: true`, `write`, `delete`) or an `overlay` action must
 *   require `overlay-file-gates`, and one that sets `event_buffer` or `consumer` must require
 *   `bounded-events`: otherwise an implementation without the feature would run it and fail a case it
 *   was never asked to pass;
 * - a case with an overlay file gate must give `setup.files`, so its roots lie in the case's own
 *   temporary directory: an accepted overlay is written to disk, and never anywhere else.
 */
export function checkOverlaysAndEvents(c: Case, at: string): Problem[] {
  const problems: Problem[] = [];
  const requires = new Set<string>(c.requires ?? []);
  (c.setup.circle?.gates ?? []).forEach((gate, i) => {
    if (typeof gate !== 'object' || gate.overlay !== true) return;
    const here = `${at}/setup/circle/gates/${i}`;
    if (!requires.has('overlay-file-gates')) problems.push([`${here}/overlay`, 'a case with an overlay file gate must list overlay-file-gates in requires']);
    if (c.setup.files === undefined) problems.push([`${here}/root`, 'a case with an overlay file gate must give setup.files, so its root is inside the case directory']);
  });
  c.act.forEach((action, i) => {
    if ('overlay' in action && !requires.has('overlay-file-gates')) problems.push([`${at}/act/${i}/overlay`, 'a case with an overlay action must list overlay-file-gates in requires']);
  });
  for (const key of ['event_buffer', 'consumer'] as const) {
    if (c.setup[key] !== undefined && !requires.has('bounded-events')) problems.push([`${at}/setup/${key}`, `a case that sets ${key} must list bounded-events in requires`]);
  }
  return problems;
}

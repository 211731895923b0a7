/**
 * Actions that come after a refused construction the case judges. A case that addresses
 * `errors.<name>` takes a refusal of that construct as one of the answers it accepts (CIRCLE-1 at 0.2.0
 * on: refuse a circle without done, or build it with done anyway; CIRCLE-2: refuse a circle bounded
 * only by a wall clock, or run it). Its later actions on that cantrip cannot run, and their not running
 * is no fault: they are skipped, their paths stay absent, and the expectations judge what is there
 * (typically with `any_of`: the refusal, or what the cast did). A refusal the case does not judge ends
 * the drive as "not run" instead (drive/refused-setup.ts).
 */

/** Thrown by an action that needs a cantrip whose construction was refused, or an entity a skipped action would have made. */
export class SkippedAfterRefusal extends Error {}

/** Why an action that needs the cantrip `name` was skipped. */
export function refusedCantripReason(name: string): string {
  return `skipped: the construction of '${name}' was refused`;
}

/** Why an action that needs the entity of the skipped action `name` was skipped. */
export function skippedEntityReason(name: string): string {
  return `skipped: '${name}' did not run (a construction before it was refused)`;
}

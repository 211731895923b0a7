import { randomBytes } from 'node:crypto';

/**
 * The random part of every id this process makes: 96 bits from the system's secure generator, drawn
 * once when the module loads (a worker thread loads its own copy and draws its own). Looms outlive
 * processes (a JSONL loom is reopened and appended to after a restart) and several processes may record
 * into one tree, so ids must differ across processes too; two processes drawing the same value is as
 * unlikely as two random UUIDs colliding.
 */
const PROCESS_RANDOM = randomBytes(12).toString('hex');

/** How many ids this process has made: the part that tells its ids apart. */
let made = 0;

/**
 * A globally unique id, `<kind>_<process random>_<counter in base 36>`: what turns (LOOM-2) and entities
 * (ENTITY-2) are named by. One random draw per process and a counter are as unique as a random UUID per
 * id, and much cheaper; the loop takes one every turn.
 */
export function uniqueId(kind: string): string {
  const id = `${kind}_${PROCESS_RANDOM}_${(++made).toString(36)}`;
  // V8 keeps a concatenated string as a tree of its pieces until its characters are read; reading one
  // now makes the id one flat string, smaller than the tree for as long as a stored turn keeps it.
  id.charCodeAt(0);
  return id;
}

import type { ToolChoice } from '../../schemas/index.ts';
import type { Call } from '../call/call.ts';
import type { Circle } from '../circle/circle.ts';
import type { Crystal } from '../crystal/contract.ts';
import type { Loom } from '../loom/loom.ts';
import type { FoldingOptions } from '../loom/fold.ts';
import type { Redactor } from '../production/redaction.ts';
import type { EventSink } from '../production/events.ts';
import type { Draft } from '../drafts/draft.ts';

/** What a cantrip is made of (§1.4). */
export interface CantripOptions {
  crystal: Crystal;
  call: Call;
  circle: Circle;
  /** LOOP-6: when true, only `done` ends a cast; a text-only reply is just a turn. Default false. */
  requireDone?: boolean;
  /** CRYSTAL-5: the tool choice every query carries; `required` demands a gate call each turn. Default `auto`. */
  toolChoice?: ToolChoice;
  /** Where turns go; a fresh in-memory loom by default. Share one loom to get one tree (LOOM-12). */
  loom?: Loom;
  /** Streaming events: an observation channel only. */
  onEvent?: EventSink;
  /** For a child cantrip: the parent turn that spawned it; its call turn hangs there (COMP-5). */
  spawnedBy?: string;
  /** Data handed to entities of this cantrip with their first intent (a child's `context`). */
  context?: unknown;
  /** LOOM-11: let the entity's code read its own thread (code circles only). */
  exposeLoom?: boolean;
  /** §6.8, PROD-4: fold older turns into a summary when the context nears the crystal's window. */
  folding?: FoldingOptions;
  /**
   * PROD-8: scrubs secrets from what the entity observes and from what its turns record and stream
   * (observations, gate call records, utterances, results, events). The loom's own `redact` option
   * covers thread exports.
   */
  redact?: Redactor;
  /** The draft of the spec the cantrip is built for (reference/drafts/); default 0.1.0. A child is built for its parent's. */
  draft?: Draft;
  /**
   * The id of a cantrip rebuilt over a loom that already holds its turns (after a restart): its call
   * turn is then found in the loom rather than stored a second time (CALL-4).
   */
  id?: string;
}

/**
 * What a cantrip keeps once built (CANTRIP-1): the crystal, call and circle it binds and the options
 * fixed with them, defaults applied. Its entities, their loop and the spawner of their children read
 * these; the `Cantrip` itself adds what can be done with them (cast, invoke, fork).
 */
export interface CantripParts {
  readonly id: string;
  readonly crystal: Crystal;
  readonly call: Call;
  readonly circle: Circle;
  readonly requireDone: boolean;
  readonly toolChoice: ToolChoice;
  readonly loom: Loom;
  readonly onEvent: EventSink | undefined;
  readonly context: unknown;
  readonly exposeLoom: boolean;
  readonly folding: FoldingOptions | undefined;
  readonly redact: Redactor | undefined;
  readonly draft: Draft;
}

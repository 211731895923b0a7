/**
 * Which entity a request to a shared crystal comes from. Children use their parent's crystal unless
 * the gate names another (spec 5.1; COMP-7 makes another crystal a MAY), so a case scripts a shared
 * crystal per entity: the crystal's own `script`/`by_intent` for the entities its actions run, and one
 * lane per kind of child under `by_entity`. Every request carries its entity's intent (INTENT-2), and
 * that is how a request is placed: by the latest user message that carries a known intent, in the lane
 * whose intent it is, else with the actions' entities when it is an action's intent. Where several
 * intents fit one message, the longest wins (a child's intent may be part of its parent's). A request
 * whose user messages carry no intent the case gives anywhere cannot be placed: that is INTENT-2
 * broken, and the mock crystal fails the case under that rule. One that carries an intent the case
 * delegates but scripts no lane for came from an entity the case did not expect (a child a ward or
 * depth limit should have refused): unscripted, judged by the case's own expectations, not INTENT-2.
 */
import type { CrystalRequest } from '../../schemas/records.ts';
import { delegatedIntents, type LoadedCase } from '../case-file/index.ts';

/** The first user message of a request when it is text (the intent, INTENT-2). */
export function firstUserText(request: CrystalRequest): string | undefined {
  const m = request.messages?.find((x) => x.role === 'user');
  return typeof m?.content === 'string' ? m.content : undefined;
}

/** The text of every user message of a request, in order. */
export function userTexts(request: CrystalRequest): string[] {
  return (request.messages ?? []).flatMap((m) => (m.role === 'user' && typeof m.content === 'string' ? [m.content] : []));
}

/**
 * The user message a script key is looked up by: the latest one that matches a key, as for placing a
 * request on a shared crystal (an entity's own intent comes after whatever it was handed before it: a
 * preamble, its parent's history, its context data, an earlier cast's intent it should not have kept),
 * else the first. Whether the intent came first is INTENT-2's business, judged on the requests, not a
 * reason to answer the entity from another script.
 */
export function keyedText(request: CrystalRequest, keys: readonly string[]): string | undefined {
  const matches = (text: string): boolean => keys.some((k) => text.includes(k));
  return userTexts(request).reverse().find(matches) ?? firstUserText(request);
}

interface SharedCrystal {
  /** Lane name -> the intents that place a request there. */
  lanes: [string, string[]][];
}

export class EntityLanes {
  private readonly shared = new Map<string, SharedCrystal>();
  /** The intents the actions give (cast, send, fork). */
  private readonly actionIntents: string[];
  /** Whether an action runs an entity without a text intent, whose requests can only be placed by elimination. */
  private readonly actionWithoutIntent: boolean;
  /** The indices of the casts and sends the case gives no intent (INTENT-1 has them refused). */
  private readonly withoutIntent: ReadonlySet<number>;
  /** Every intent the case gives: its actions' and those its scripts delegate to children. */
  private readonly knownIntents: string[];
  /** Every text that tells an entity: the known intents, every `by_intent` key and every lane's intents. */
  private readonly entityKeys: string[];

  constructor(c: Pick<LoadedCase, 'crystals' | 'act'>) {
    const delegated = delegatedIntents(c);
    for (const [name, crystal] of Object.entries(c.crystals ?? {})) {
      if (!crystal.by_entity) continue;
      const lanes = Object.entries(crystal.by_entity).map(([lane, l]): [string, string[]] => [lane, l.intents ?? [...Object.keys(l.by_intent ?? {}), ...(l.script ? delegated : [])]]);
      this.shared.set(name, { lanes });
    }
    const bodies = c.act.map((a) => ('cast' in a ? a.cast : 'send' in a ? a.send : 'fork' in a ? a.fork : undefined));
    this.actionIntents = bodies.flatMap((b) => (typeof b?.intent === 'string' ? [b.intent] : []));
    this.knownIntents = [...this.actionIntents, ...delegated];
    const keys = Object.values(c.crystals ?? {}).flatMap((k) => [
      ...Object.keys(k.by_intent ?? {}),
      ...Object.values(k.by_entity ?? {}).flatMap((l) => [...(l.intents ?? []), ...Object.keys(l.by_intent ?? {})]),
    ]);
    this.entityKeys = [...new Set([...this.knownIntents, ...keys])];
    const lacking = c.act.flatMap((a, i) => (('cast' in a && typeof a.cast.intent !== 'string') || ('send' in a && typeof a.send.intent !== 'string') ? [i] : []));
    this.withoutIntent = new Set(lacking);
    this.actionWithoutIntent = lacking.length > 0;
  }

  /** Whether the action at `index` is a cast or send the case gives no intent: its requests can carry none. */
  givesNoIntent(index: number): boolean {
    return this.withoutIntent.has(index);
  }

  /** The lanes of every shared crystal: the children's scripts. */
  get childLanes(): Set<string> {
    return new Set([...this.shared.values()].flatMap((s) => s.lanes.map(([lane]) => lane)));
  }

  /** Whether `crystal` is scripted per entity. */
  isShared(crystal: string): boolean {
    return this.shared.has(crystal);
  }

  /**
   * The lane a request to `crystal` is answered from and recorded under: the crystal's own name for an
   * unshared crystal and for the actions' entities; undefined when the request carries no intent the
   * case knows (INTENT-2).
   */
  place(crystal: string, request: CrystalRequest): string | undefined {
    const shared = this.shared.get(crystal);
    if (!shared) return crystal;
    // The latest user message that carries a known intent decides: an entity's own intent comes after
    // anything it was handed before it (a history it should not have had is COMP-4's business, a
    // preamble before its intent INTENT-2's, both judged on the requests), and later messages that carry
    // no intent (a nudge after a text-only turn, a request for a summary) do not count.
    const texts = userTexts(request);
    for (const text of texts.reverse()) {
      let best: { lane: string; length: number } | undefined;
      const consider = (lane: string, intent: string): void => {
        if (text.includes(intent) && (best === undefined || intent.length > best.length)) best = { lane, length: intent.length };
      };
      for (const intent of this.actionIntents) consider(crystal, intent);
      for (const [lane, intents] of shared.lanes) for (const intent of intents) consider(lane, intent);
      if (best) return (best as { lane: string }).lane;
    }
    return this.actionWithoutIntent ? crystal : undefined;
  }

  /**
   * The intent that tells the request's entity apart from others on the same crystal: as for placing
   * it, the latest user message that carries an intent or script key of the case (an entity's own intent
   * comes after whatever it was handed before it); its first user message when none does.
   */
  entityIntent(request: CrystalRequest): string | undefined {
    return userTexts(request).reverse().find((text) => this.entityKeys.some((k) => text.includes(k))) ?? firstUserText(request);
  }

  /** Whether any user message of the request carries an intent or script key of the case (entityIntent found one). */
  carriesEntityKey(request: CrystalRequest): boolean {
    return userTexts(request).some((text) => this.entityKeys.some((k) => text.includes(k)));
  }

  /** Whether any user message of the request carries an intent the case gives (placed or not). */
  carriesKnownIntent(request: CrystalRequest): boolean {
    const texts = userTexts(request);
    return texts.some((text) => this.knownIntents.some((intent) => text.includes(intent)));
  }
}

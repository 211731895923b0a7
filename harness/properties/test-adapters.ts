/**
 * Adapters the property tests run the properties against (not used by the harness itself). Each wraps
 * an implementation (the reference, through its adapter) and changes one thing about it:
 *
 * - `BROKEN`: a genuine violation of one rule, so a property can be shown failing on that rule;
 * - `OTHER_READINGS`: the other side of a choice the spec leaves open, or a scenario that never reaches
 *   a property's behaviour, so a property can be shown *not* failing where the spec does not ask it to.
 *
 * The wrappers work only at the adapter boundary: between the implementation and its crystal (a
 * bridge in front of `host.queryCrystal`), and on what the adapter hands back (`loom()`, outcomes).
 */
import type { Adapter, CantripSetup, CastOutcome, CrystalReply, Host, Result } from '../../schemas/adapter.ts';
import type { CrystalRequest, GateCallRecord, Message, ToolCall, Turn } from '../../schemas/records.ts';
import { jsonCopy } from '../values/index.ts';
import { firstUserText } from '../drive/index.ts';
import type { AdapterFactory } from '../run/index.ts';
import { PARENT_INTENT } from './composition-model.ts';

/** Changes an implementation: a factory of the changed one from a factory of the original. */
export type Wrap = (factory: AdapterFactory) => AdapterFactory;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** An adapter that behaves as `inner` except for `over`. */
export function override(inner: Adapter, over: Partial<Adapter>): Adapter {
  return Object.assign(Object.create(inner) as Adapter, over);
}

/** What a bridge in front of the implementation's crystal may change. */
export interface Bridge {
  /** A request on its way from the implementation to the harness's crystal. */
  request?(crystal: string, request: CrystalRequest): CrystalRequest;
  /** A reply on its way back to the implementation, with the request it answers (as the implementation sent it). */
  reply?(crystal: string, reply: CrystalReply, request: CrystalRequest): CrystalReply;
  /** Answers a query itself, without passing it on (undefined: pass it on). */
  intercept?(crystal: string, request: CrystalRequest): CrystalReply | undefined;
}

/** The host as the implementation sees it behind a bridge. */
function bridgeHost(host: Host, bridge: Bridge): Host {
  const out: Host = {
    queryCrystal: async (crystal, request) => {
      const own = bridge.intercept?.(crystal, request);
      if (own) return own;
      // JSON copies: what crosses the boundary is JSON, and an implementation may hand over frozen views.
      const reply = await host.queryCrystal(crystal, bridge.request ? bridge.request(crystal, jsonCopy(request)) : request);
      return bridge.reply ? bridge.reply(crystal, jsonCopy(reply), request) : reply;
    },
    callGate: (gate, args, context) => host.callGate(gate, args, context),
    sleep: (ms) => host.sleep(ms),
  };
  if (host.event) out.event = (e) => host.event?.(e);
  return out;
}

/** The implementation behind a bridge (a fresh bridge per constructed cantrip when `make` is a function). */
export const bridged =
  (make: () => Bridge): Wrap =>
  (factory) =>
  async () => {
    const inner = await factory();
    return override(inner, { construct: (setup, host) => inner.construct(setup, bridgeHost(host, make())) });
  };

/** The implementation with what `loom()` returns rewritten (each call rewrites the current loom afresh). */
export const loomRewrite =
  (rewrite: (turns: Turn[]) => Turn[]): Wrap =>
  (factory) =>
  async () => {
    const inner = await factory();
    return override(inner, {
      loom: async () => {
        const got = await inner.loom();
        return got.ok ? { ok: true, value: { turns: rewrite(jsonCopy(got.value.turns)) } } : got;
      },
    });
  };

/** The implementation with every outcome it reports rewritten. */
export const outcomeRewrite =
  (rewrite: (outcome: CastOutcome) => CastOutcome): Wrap =>
  (factory) =>
  async () => {
    const inner = await factory();
    const fix = (r: Result<CastOutcome>): Result<CastOutcome> => (r.ok ? { ok: true, value: rewrite(jsonCopy(r.value)) } : r);
    return override(inner, {
      cast: async (...args) => fix(await inner.cast(...args)),
      send: async (...args) => fix(await inner.send(...args)),
      fork: async (...args) => {
        const r = await inner.fork(...args);
        return r.ok ? { ok: true, value: { ...r.value, outcome: rewrite(jsonCopy(r.value.outcome)) } } : r;
      },
    });
  };

/** Several changes at once, applied left to right. */
export const both =
  (...wraps: Wrap[]): Wrap =>
  (factory) =>
    wraps.reduce((f, w) => w(f), factory);

/** The tool calls of a reply, rewritten one by one (the reply otherwise unchanged). */
const mapCalls = (reply: CrystalReply, f: (call: ToolCall) => ToolCall): CrystalReply =>
  reply.ok && reply.response.tool_calls ? { ok: true, response: { ...reply.response, tool_calls: reply.response.tool_calls.map(f) } } : reply;

const parse = (s: string): unknown => {
  try {
    return JSON.parse(s) as unknown;
  } catch {
    return undefined;
  }
};

/** Every gate-call record of the loom, rewritten one by one. */
const mapRecords = (turns: Turn[], f: (record: GateCallRecord, turn: Turn) => GateCallRecord): Turn[] =>
  turns.map((t) => ({ ...t, gate_calls: t.gate_calls.map((r) => f(r, t)) }));

/**
 * Whether a request comes from a child. Children query their parent's crystal (spec 5.1), so the
 * crystal's name does not tell them apart; their intent does: every request leads with its entity's
 * intent (INTENT-2), and a generated parent's is {@link PARENT_INTENT}.
 */
const fromChild = (request: CrystalRequest): boolean => {
  const intent = firstUserText(request);
  return intent !== undefined && intent !== PARENT_INTENT;
};

const tool = (name: string) => ({ name, description: `the ${name} gate`, parameters: { type: 'object', properties: {} } });

// ── Genuine violations ──────────────────────────────────────────────────────────────────────────

/** LOOM-7 broken: no turn is ever marked terminated or truncated. */
const unflaggedEnds: Wrap = loomRewrite((turns) => turns.map((t) => (t.role === 'crystal' ? { ...t, terminated: false, truncated: false } : t)));

/** LOOM-4 broken: a fork's first turn hangs from the original entity's last turn, wherever it forked from. */
const forkFromTheEnd: Wrap = (factory) => async () => {
  const inner = await factory();
  const forks = new Map<string, string>(); // forked entity -> original entity
  return override(inner, {
    fork: async (turnId, intent) => {
      const before = await inner.loom();
      const original = before.ok ? before.value.turns.find((t) => t.id === turnId)?.entity_id : undefined;
      const r = intent === undefined ? await inner.fork(turnId) : await inner.fork(turnId, intent);
      if (r.ok && original) forks.set(r.value.entity, original);
      return r;
    },
    loom: async () => {
      const got = await inner.loom();
      if (!got.ok) return got;
      const turns = jsonCopy(got.value.turns);
      for (const [forked, original] of forks) {
        const last = turns.filter((t) => t.entity_id === original && t.role === 'crystal').at(-1);
        const first = turns.find((t) => t.entity_id === forked && t.role === 'crystal');
        if (last && first) first.parent_id = last.id;
      }
      return { ok: true, value: { turns } };
    },
  });
};

/** COMP-1 broken: every child is offered a `fetch` gate, which no parent has. */
const childOfferedAGateItsParentLacks: Wrap = bridged(() => ({
  request: (_crystal, r) => (fromChild(r) ? { ...r, tools: [...(r.tools ?? []), tool('fetch')] } : r),
}));

/** COMP-6 broken: children at depth 0 are still offered call_entity. */
const childOfferedDelegation: Wrap = bridged(() => ({
  request: (_crystal, r) => (fromChild(r) && !(r.tools ?? []).some((t) => t.name === 'call_entity') ? { ...r, tools: [...(r.tools ?? []), tool('call_entity')] } : r),
}));

/** WARD-1 broken: a child gets one turn more than its parent's cap (the parent's cap is loosened on the way in). */
const childCapLoosened: Wrap = (factory) => async () => {
  const inner = await factory();
  return override(inner, {
    construct: (setup: CantripSetup, host: Host) => {
      const wards = setup.circle?.wards;
      const loosened = setup.circle && wards?.max_turns !== undefined ? { ...setup, circle: { ...setup.circle, wards: { ...wards, max_turns: wards.max_turns + 1 } } } : setup;
      return inner.construct(loosened, host);
    },
  });
};

/**
 * COMP-8 broken: the parent is shown nothing for its delegation (an empty tool message), so a child's
 * error never reaches it. What the parent is shown, not the loom's record, is what COMP-8 is about: a
 * record rewritten to look successful would still have shown the parent the error (issue 29).
 */
const childFailureHidden: Wrap = bridged(() => ({
  request: (_crystal, r) => {
    if (fromChild(r)) return r;
    const delegations = new Set(r.messages.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []).filter((c) => c.gate === 'call_entity').map((c) => c.id) : [])));
    return { ...r, messages: r.messages.map((m) => (m.role === 'tool' && m.tool_call_id !== undefined && delegations.has(m.tool_call_id) ? { ...m, content: '' } : m)) };
  },
}));

/** COMP-3 broken: batch answers come back in reverse request order. */
const batchReversed: Wrap = loomRewrite((turns) =>
  mapRecords(turns, (r) => (r.gate === 'call_entity_batch' && r.ok && Array.isArray(r.result) ? { ...r, result: [...(r.result as unknown[])].reverse() } : r)),
);

/**
 * COMP-4 broken: a child's context also holds its parent's intent, handed over before the child's own
 * (as a copied history would be). Before, not after: the shared crystal places a request by the latest
 * user message carrying an intent, so the child's own intent still files it as the child's.
 */
const childSeesParentIntent: Wrap = bridged(() => ({
  request: (_crystal, r) => {
    if (!fromChild(r)) return r;
    const at = r.messages.findIndex((m) => m.role === 'user');
    const messages: Message[] = [...r.messages];
    messages.splice(at, 0, { role: 'user', content: PARENT_INTENT });
    return { ...r, messages };
  },
}));

/** COMP-5 broken: a child's subtree is stored as a root of its own, not under the turn that spawned it. */
const childrenStoredApart: Wrap = loomRewrite((turns) => turns.map((t) => (t.role === 'call' && t.parent_id !== null ? { ...t, parent_id: null } : t)));

/** Genuinely broken implementations: the property each must fail, and the rule it breaks. */
export const BROKEN: { name: string; wrap: Wrap; property: string; rules: string[]; /** Most crystal steps the shrunk case may keep. */ steps: number }[] = [
  { name: 'no terminal flags', wrap: unflaggedEnds, property: 'loom-records-every-turn', rules: ['LOOM-7'], steps: 4 },
  { name: 'forks hung from the last turn', wrap: forkFromTheEnd, property: 'fork-leaves-the-original-thread', rules: ['LOOM-4'], steps: 4 },
  { name: 'children offered a gate the parent lacks', wrap: childOfferedAGateItsParentLacks, property: 'child-gates-are-a-granted-subset', rules: ['COMP-1'], steps: 5 },
  { name: 'children offered call_entity at depth 0', wrap: childOfferedDelegation, property: 'children-cannot-delegate-at-depth-zero', rules: ['COMP-6'], steps: 5 },
  { name: 'children given one turn past the cap', wrap: childCapLoosened, property: 'child-turn-cap-is-the-smaller', rules: ['WARD-1'], steps: 7 },
  { name: "children's failures hidden from the parent", wrap: childFailureHidden, property: 'child-failure-returns-to-parent', rules: ['COMP-8'], steps: 5 },
  { name: 'batch answers reversed', wrap: batchReversed, property: 'batch-results-in-request-order', rules: ['COMP-3'], steps: 5 },
  { name: "children shown the parent's intent", wrap: childSeesParentIntent, property: 'child-starts-with-its-own-context', rules: ['COMP-4'], steps: 5 },
  { name: 'children stored as separate roots', wrap: childrenStoredApart, property: 'child-subtree-hangs-from-spawning-turn', rules: ['COMP-5'], steps: 5 },
];

// ── Other readings of open choices, and scenarios that never reach a behaviour ─────────────────────

/**
 * LOOP-4 / CIRCLE-6 read per entity: the turn cap counts every turn of an invoked entity across its
 * casts, and a fork inherits the turns of the path it continues. Played by a bridge that stops passing
 * queries on once the entity's turns are spent (the implementation then ends the cast as it ends one
 * whose crystal failed).
 */
const perEntityTurnCap: Wrap = (factory) => async () => {
  const inner = await factory();
  let cap = Infinity;
  let left = Infinity;
  const used = new Map<string, number>();
  const crystalTurns = async (entity: string): Promise<number> => {
    const got = await inner.loom();
    return got.ok ? got.value.turns.filter((t) => t.entity_id === entity && t.role === 'crystal').length : 0;
  };
  const pathTurns = async (turnId: string): Promise<number> => {
    const got = await inner.loom();
    if (!got.ok) return 0;
    const byId = new Map(got.value.turns.map((t) => [t.id, t]));
    let n = 0;
    for (let at = byId.get(turnId); at; at = at.parent_id === null ? undefined : byId.get(at.parent_id)) if (at.role === 'crystal') n++;
    return n;
  };
  const bridge: Bridge = {
    intercept: () => {
      if (left <= 0) return { ok: false, error: { message: 'the turns of this entity are spent' } };
      left -= 1;
      return undefined;
    },
  };
  return override(inner, {
    construct: (setup, host) => {
      cap = setup.circle?.wards.max_turns ?? Infinity;
      return inner.construct(setup, bridgeHost(host, bridge));
    },
    cast: async (...args) => {
      left = cap;
      return inner.cast(...args);
    },
    send: async (entity, intent) => {
      left = cap - (used.get(entity) ?? (await crystalTurns(entity)));
      const r = await inner.send(entity, intent);
      used.set(entity, await crystalTurns(entity));
      return r;
    },
    fork: async (turnId, intent) => {
      left = cap - (await pathTurns(turnId));
      return intent === undefined ? inner.fork(turnId) : inner.fork(turnId, intent);
    },
  });
};

/** The loom's crystal turns renumbered from 1 at the start of every cast, send and fork (spec 6.1 reads both ways). */
const sequencesRestart: Wrap = (factory) => async () => {
  const inner = await factory();
  const numbers = new Map<string, number>();
  const seen = new Set<string>();
  const note = async (entity: string | undefined): Promise<void> => {
    const got = await inner.loom();
    if (!got.ok) return;
    let n = 0;
    for (const t of got.value.turns) {
      if (seen.has(t.id)) continue;
      seen.add(t.id);
      if (t.role === 'crystal' && t.entity_id === entity) numbers.set(t.id, ++n);
    }
  };
  const renumber = (turns: Turn[]): Turn[] => turns.map((t) => (numbers.has(t.id) ? { ...t, sequence: numbers.get(t.id) ?? t.sequence } : t));
  return override(inner, {
    cast: async (...args) => {
      const r = await inner.cast(...args);
      await note(r.ok ? r.value.entity_id : undefined);
      return r;
    },
    send: async (entity, intent) => {
      const r = await inner.send(entity, intent);
      await note(entity);
      return r;
    },
    fork: async (turnId, intent) => {
      const r = intent === undefined ? await inner.fork(turnId) : await inner.fork(turnId, intent);
      await note(r.ok ? r.value.entity : undefined);
      return r;
    },
    loom: async () => {
      const got = await inner.loom();
      return got.ok ? { ok: true, value: { turns: renumber(jsonCopy(got.value.turns)) } } : got;
    },
  });
};

/**
 * CALL-4 / LOOM-12 read per entity: every entity has a call turn of its own, carrying its entity id
 * (the wrapped implementation shares one per cantrip, entity id null).
 */
const callTurnPerEntity: Wrap = loomRewrite((turns) => {
  const byId = new Map(turns.map((t) => [t.id, t]));
  const own = new Map<string, Turn>();
  const out: Turn[] = [];
  for (const t of turns) {
    const parent = t.parent_id === null ? undefined : byId.get(t.parent_id);
    if (t.role === 'crystal' && t.entity_id !== null && parent?.role === 'call' && parent.entity_id === null) {
      const key = `${parent.id}:${t.entity_id}`;
      if (!own.has(key)) {
        const call: Turn = { ...parent, id: key, entity_id: t.entity_id };
        own.set(key, call);
        out.push(call);
      }
      out.push({ ...t, parent_id: key });
    } else out.push(t);
  }
  // A shared call turn nothing hangs from any more is gone: each entity has its own.
  const used = new Set(out.map((t) => t.parent_id));
  return out.filter((t) => !(t.role === 'call' && t.entity_id === null && !used.has(t.id)));
});

/** CIRCLE-11: a capability message of the circle's own between the call's system prompt and the intent. */
const capabilityMessage: Wrap = bridged(() => ({
  request: (_crystal, r) => {
    const messages = [...r.messages];
    messages.splice(messages[0]?.role === 'system' ? 1 : 0, 0, { role: 'system', content: `Gates: ${(r.tools ?? []).map((t) => t.name).join(', ')}.` });
    return { ...r, messages };
  },
}));

/** The implementation's own words: other error names, no error codes, other truncation causes, no turn fields beyond the spec's. */
const ownWords: Wrap = both(
  loomRewrite((turns) =>
    mapRecords(turns, (r) => (r.error ? { ...r, error: { name: 'GateFailure', message: r.error.message } } : r)).map((t) => {
      const { intent: _intent, result: _result, ...rest } = t;
      const out: Turn = { ...rest };
      if (t.truncation_cause) out.truncation_cause = `own:${t.truncation_cause}`;
      if (t.fork) out.fork = { strategy: t.fork.strategy };
      return out;
    }),
  ),
  outcomeRewrite((o) => {
    const out: CastOutcome = { ...o };
    if (o.truncation_cause) out.truncation_cause = `own:${o.truncation_cause}`;
    if (o.error) out.error = { message: o.error.message };
    return out;
  }),
);

/** LOOP-4's SHOULD: after a cut-off run the implementation asks its crystal for a summary. */
const summaryAfterTruncation: Wrap = (factory) => async () => {
  const inner = await factory();
  let host: Host | undefined;
  let crystal = '';
  let last: CrystalRequest | undefined;
  const summarize = async (r: Result<CastOutcome>): Promise<Result<CastOutcome>> => {
    if (!r.ok || r.value.status !== 'truncated' || !host || !last) return r;
    const reply = await host.queryCrystal(crystal, { ...last, messages: [...last.messages, { role: 'user', content: 'Summarize what was done so far.' }] });
    return reply.ok && typeof reply.response.content === 'string' ? { ok: true, value: { ...r.value, summary: reply.response.content } } : r;
  };
  return override(inner, {
    construct: (setup, h) => {
      host = h;
      crystal = setup.crystal?.name ?? '';
      return inner.construct(setup, bridgeHost(h, { request: (c, r) => ((last = c === crystal ? r : last), r) }));
    },
    cast: async (...args) => summarize(await inner.cast(...args)),
    send: async (...args) => summarize(await inner.send(...args)),
  });
};

/**
 * CIRCLE-8: done takes only a string answer (its tool definition says so), and a call with any other
 * answer is refused as a failed gate call; the cast goes on.
 */
const stringAnswersOnly: Wrap = both(
  bridged(() => ({
    request: (_c, r) => ({
      ...r,
      tools: r.tools?.map((t) => (t.name === 'done' && isObject(t.parameters.properties) ? { ...t, parameters: { ...t.parameters, properties: { ...t.parameters.properties, answer: { type: 'string' } } } } : t)),
    }),
    reply: (_c, reply) =>
      mapCalls(reply, (call) => {
        const args = parse(call.arguments);
        return call.gate === 'done' && isObject(args) && typeof args.answer !== 'string' ? { ...call, gate: 'done__refused' } : call;
      }),
  })),
  loomRewrite((turns) => mapRecords(turns, (r) => (r.gate === 'done__refused' ? { ...r, gate: 'done' } : r))),
);

/** No child ever runs: every delegation is refused (its call fails before any child is made). */
const childrenNeverRun: Wrap = bridged(() => ({
  reply: (_crystal, reply, request) => (!fromChild(request) ? mapCalls(reply, (call) => (call.gate.startsWith('call_entity') ? { ...call, gate: `${call.gate}__refused` } : call)) : reply),
}));

/** COMP-1 read the other way: a child asking for a gate its parent lacks runs without that gate instead of being refused. */
const lackingGateLeftOut: Wrap = bridged(() => ({
  reply: (_crystal, reply, request) =>
    !fromChild(request)
      ? mapCalls(reply, (call) => {
          const args = parse(call.arguments);
          if (call.gate !== 'call_entity' || !isObject(args) || !Array.isArray(args.gates)) return call;
          return { ...call, arguments: JSON.stringify({ ...args, gates: args.gates.filter((g) => g !== 'fetch') }) };
        })
      : reply,
}));

/**
 * COMP-8 and spec 5.3 read the other way where they are open: a child cut off by its cap hands its
 * parent a summary as a plain result, and a failed child's batch slot is `null`.
 */
const otherChildResults: Wrap = loomRewrite((turns) =>
  mapRecords(turns, (r) => {
    const cutOff = (e: unknown): boolean => isObject(e) && isObject(e.error) && String(e.error.message).includes('max_turns');
    if (r.gate === 'call_entity' && !r.ok && r.error?.message.includes('max_turns')) return { tool_call_id: r.tool_call_id, gate: r.gate, ok: true, result: 'cut off: a summary' };
    if (r.gate === 'call_entity_batch' && r.ok && Array.isArray(r.result)) return { ...r, result: (r.result as unknown[]).map((e) => (cutOff(e) ? 'cut off: a summary' : isObject(e) && isObject(e.error) ? null : e)) };
    return r;
  }),
);

/** A query whose reply was invalid leaves no turn (the implementation reports a failed query as a refusal, not a turn). */
const failedQueriesNotStored: Wrap = loomRewrite((turns) => turns.filter((t) => !(t.role === 'crystal' && t.truncated && t.utterance === '' && t.gate_calls.length === 0)));

/** COMP-1 asks only for a subset: here every child is offered done alone, whatever it asked for. */
const childrenOfferedDoneOnly: Wrap = bridged(() => ({
  request: (_crystal, r) => (fromChild(r) ? { ...r, tools: (r.tools ?? []).filter((t) => t.name === 'done') } : r),
}));

/** Spec 5.1 names no `max_turns` option: a call_entity that takes none (its tool definitions leave it out). */
const noTurnCapOption: Wrap = bridged(() => ({
  request: (_crystal, r) => {
    const strip = (schema: unknown): unknown => {
      if (!isObject(schema) || !isObject(schema.properties)) return schema;
      const { max_turns: _gone, ...properties } = schema.properties;
      const out: Record<string, unknown> = { ...schema, properties };
      if (isObject(properties.intents) && isObject(properties.intents.items)) out.properties = { ...properties, intents: { ...properties.intents, items: strip(properties.intents.items) } };
      return out;
    };
    return { ...r, tools: r.tools?.map((t) => (t.name.startsWith('call_entity') ? { ...t, parameters: strip(t.parameters) as Record<string, unknown> } : t)) };
  },
}));

/** Other readings of open choices (and scenarios that never reach a behaviour), with the families they matter to. */
export const OTHER_READINGS: { name: string; wrap: Wrap; families: ('conversation' | 'composition' | 'code')[] }[] = [
  { name: 'a turn cap counted per entity (a fork inheriting its path)', wrap: perEntityTurnCap, families: ['conversation'] },
  { name: 'sequences restarting with each cast', wrap: sequencesRestart, families: ['conversation'] },
  { name: 'a call turn per entity', wrap: callTurnPerEntity, families: ['conversation', 'composition'] },
  { name: 'a capability system message after the prompt', wrap: capabilityMessage, families: ['conversation', 'composition'] },
  { name: 'its own error names, no codes, its own truncation causes, no extra turn fields', wrap: ownWords, families: ['conversation', 'composition', 'code'] },
  { name: 'a summary asked of the crystal after a cut-off', wrap: summaryAfterTruncation, families: ['conversation'] },
  { name: 'done refusing answers that are not strings', wrap: stringAnswersOnly, families: ['conversation', 'composition'] },
  { name: 'a child asking for a gate its parent lacks run without it', wrap: lackingGateLeftOut, families: ['composition'] },
  { name: 'a cut-off child answering with a summary, failed batch slots null', wrap: otherChildResults, families: ['composition'] },
  { name: 'a query with an invalid reply stored as no turn', wrap: failedQueriesNotStored, families: ['composition'] },
  { name: 'children offered done alone, whatever they asked for', wrap: childrenOfferedDoneOnly, families: ['composition'] },
  { name: 'a call_entity without a max_turns option', wrap: noTurnCapOption, families: ['composition'] },
];

export { childrenNeverRun, noTurnCapOption };

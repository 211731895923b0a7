/**
 * Ambient invariants, checked after every case that ran, whatever its own expectations say
 * (docs/INTERPRETING.md, "Ambient invariants"). A check that lacks what it needs reports `skipped`
 * with the reason; it never reports `pass` without having looked.
 */
import type { Turn } from '../../schemas/records.ts';
import { validate, formatProblems, type SchemaProblem, hasSchema } from '../../schemas/loader.ts';
import { problemsByRule, rulesForProblems, schemaCause } from './schema-rules.ts';
import { scriptSteps, type LoadedCase } from '../case-file/index.ts';
import type { DriveResult } from '../drive/index.ts';
import { firstUserText } from '../drive/index.ts';
import { secretKeptOut } from './secret-kept-out.ts';
import { hasTextRecords, recordContractProblems, TEXT_RECORD_RULE, TEXT_RECORD_SCHEMA, TEXT_RECORDS_SINCE } from './records-per-draft.ts';

export interface InvariantResult {
  id: string;
  rules: string[];
  status: 'pass' | 'fail' | 'skipped';
  /** Why it failed or was skipped. */
  detail?: string;
  /**
   * On a failure: what went wrong with the case-specific parts (ids, indices, names) taken out, so the
   * report can group cases that fail for the same reason (harness/report/root-causes.ts). One cause per line
   * when the failure has several; schema failures use `schemaCause()` of harness/judge/schema-rules.ts.
   * Absent: the report normalises `detail` instead.
   */
  cause?: string;
}

/** A check's result; `rules`, when given, replaces the invariant's listed rules for this failure. */
type Check = (c: LoadedCase, d: DriveResult) => Omit<InvariantResult, 'id' | 'rules'> & { rules?: string[] };

const pass = { status: 'pass' } as const;
const skip = (detail: string) => ({ status: 'skipped', detail }) as const;
const fail = (detail: string) => ({ status: 'fail', detail }) as const;
const NO_LOOM = 'the adapter refused loom()';
/**
 * A run whose loom holds an entity nobody produced (a driving fault under ENTITY-1, harness/drive/course.ts)
 * cannot have its turns grouped by entity: the checks that do so are not judged on it, rather than
 * blaming their own rules for that one finding.
 */
const strayEntity = (d: DriveResult): boolean => d.faults.some((f) => f.rules?.includes('ENTITY-1') === true);
const STRAY_ENTITY = 'not judged: the loom holds turns of an entity that no action produced (ENTITY-1), so its turns cannot be grouped by entity';

/**
 * A schema failure, blamed on the rules that make the failing fields matter (harness/judge/schema-rules.ts):
 * a token count missing from a turn's metadata is LOOM-9's. `problems` are those that break a rule
 * ({@link problemsByRule}); a field no rule asks for (only the spec's record layout shows it, or the
 * implementation added it) fails nothing and is never blamed on a rule the check does not read (issue 29).
 */
function schemaFailure(schema: string, problems: SchemaProblem[], detail: string) {
  const { rules } = rulesForProblems(schema, problems);
  return { status: 'fail' as const, detail, cause: schemaCause(schema, problems), rules };
}

/**
 * LOOM-2, LOOM-9 and the other rules a Turn field serves (schema-rules.ts): every turn validates against
 * schemas/turn as far as a rule asks; a difference in a field only §6.1's layout shows is a record-shape
 * finding (record-shapes.ts), not a failure. From 0.2.0 on the turn's gate call records have a shape of
 * their own, judged by {@link gateRecordContract}: the seed's record shape inside schemas/turn is not
 * applied to them.
 */
const turnSchema: Check = (c, d) => {
  if (!d.loomAvailable) return skip(NO_LOOM);
  if (!hasSchema('turn')) return skip('schemas/turn.schema.json is not installed');
  if (d.record.loom.turns.length === 0) return skip('the loom is empty');
  const problems: SchemaProblem[] = [];
  let detail: string | undefined;
  for (const [i, turn] of d.record.loom.turns.entries()) {
    const { breaking } = turnProblems(turn, c.judged_draft);
    if (breaking.length === 0) continue;
    problems.push(...breaking);
    detail ??= `loom turn [${i}] (${turn.id}):\n${formatProblems(breaking)}`;
  }
  return detail === undefined ? pass : schemaFailure('turn', problems, detail);
};

/**
 * What schemas/turn finds in one turn judged at `draft`, split into what breaks a rule and what no rule
 * asks for. From 0.2.0 the gate call records are left to the text record contract.
 */
export function turnProblems(turn: Turn, draft: string | undefined): { breaking: SchemaProblem[]; outside: SchemaProblem[] } {
  const textRecords = hasTextRecords(draft);
  const result = validate('turn', textRecords && Array.isArray(turn.gate_calls) ? { ...turn, gate_calls: [] } : turn);
  return result.ok ? { breaking: [], outside: [] } : problemsByRule('turn', result.problems);
}

/**
 * From 0.2.0 on (§4.3 of 0.2.0 and 0.3.1): every gate call record of the loom is a text record,
 * `{gate_name, arguments, result, is_error}` with text arguments and result, other fields allowed
 * (harness/judge/records-per-draft.ts). Judged under CIRCLE-4, where both drafts' catalogs place the
 * contract. A loom judged at 0.1.0 is not held to it.
 */
const gateRecordContract: Check = (c, d) => {
  if (!hasTextRecords(c.judged_draft)) return skip(`the text record contract starts at draft ${TEXT_RECORDS_SINCE}; this case is judged at ${c.judged_draft ?? '0.1.0'}`);
  if (!d.loomAvailable) return skip(NO_LOOM);
  if (!d.record.loom.turns.some((t) => Array.isArray(t.gate_calls) && t.gate_calls.length > 0)) return skip('no turn holds a gate call record');
  const found = recordContractProblems(d.record.loom.turns);
  if (found.length === 0) return pass;
  const first = found[0]!;
  const detail = `loom turn [${first.turnIndex}] (${first.turn}), gate_calls[${first.recordIndex}] is not a ${TEXT_RECORDS_SINCE} gate call record:\n${formatProblems(first.problems)}${found.length > 1 ? `\n(and ${found.length - 1} more record(s))` : ''}`;
  return schemaFailure(TEXT_RECORD_SCHEMA, found.flatMap((f) => f.problems), detail);
};

/** Every request the implementation sent validates against schemas/crystal-request as far as a rule asks (CRYSTAL-1, CRYSTAL-4, ...). */
const requestSchema: Check = (_c, d) => {
  if (!hasSchema('crystal-request')) return skip('schemas/crystal-request.schema.json is not installed');
  if (d.queries.length === 0) return skip('no crystal was queried');
  for (const [i, q] of d.queries.entries()) {
    const result = validate('crystal-request', q.request);
    // A field no rule asks for (a provider's own key) fails nothing (issue 29).
    const breaking = result.ok ? [] : problemsByRule('crystal-request', result.problems).breaking;
    if (breaking.length > 0) return schemaFailure('crystal-request', breaking, `request #${i} to '${q.crystal}':\n${formatProblems(breaking)}`);
    const roles = q.request.messages.map((m) => m.role);
    const twice = roles.findIndex((r, k) => k > 0 && r === 'assistant' && roles[k - 1] === 'assistant');
    if (twice >= 0) return { ...fail(`request #${i} to '${q.crystal}' has two assistant messages in a row at [${twice - 1}] and [${twice}]`), cause: 'two assistant messages in a row', rules: ['LOOP-1'] };
  }
  return pass;
};

function crystalTurnsByEntity(turns: Turn[]): Map<string, Turn[]> {
  const by = new Map<string, Turn[]>();
  for (const t of turns) if (t.role === 'crystal' && t.entity_id !== null) (by.get(t.entity_id) ?? by.set(t.entity_id, []).get(t.entity_id)!).push(t);
  return by;
}

/** The first crystal turn each cast, send or fork added for its entity: where a per-cast numbering starts again. */
function castStarts(d: DriveResult): Set<string> {
  const starts = new Set<string>();
  for (const trace of d.actions.values()) {
    const first = trace.appended?.find((t) => t.role === 'crystal' && t.entity_id === trace.entity);
    if (first) starts.add(first.id);
  }
  return starts;
}

/**
 * LOOP-1: per entity, turns pair an utterance with an observation and chain one after another. The
 * sequence rises by one from turn to turn (spec 6.1); at the start of a later cast of an invoked entity
 * it may go on counting or start again from 1, as "position within this entity's run" reads both ways.
 */
const alternation: Check = (_c, d) => {
  if (!d.loomAvailable) return skip(NO_LOOM);
  if (strayEntity(d)) return skip(STRAY_ENTITY);
  const byId = new Map(d.record.loom.turns.map((t) => [t.id, t]));
  const groups = crystalTurnsByEntity(d.record.loom.turns);
  if (groups.size === 0) return skip('no crystal turns');
  const starts = castStarts(d);
  for (const [entity, turns] of groups) {
    for (const [k, t] of turns.entries()) {
      if (typeof t.utterance !== 'string' || typeof t.observation !== 'string') return fail(`turn ${t.id} of ${entity} lacks an utterance or an observation`);
      const prev = turns[k - 1];
      if (!prev) continue;
      // A fold turn between two crystal turns takes a sequence number of its own (spec 6.1: it is a turn).
      const between = d.record.loom.turns.filter((f) => f.role === 'fold' && f.entity_id === entity && isBetween(f, prev, t, byId)).length;
      const continues = t.sequence === prev.sequence + 1 + between;
      const restarts = starts.has(t.id) && t.sequence === 1 + between;
      if (!continues && !restarts) return fail(`entity ${entity}: sequence ${prev.sequence} is followed by ${t.sequence}${starts.has(t.id) ? ' at the start of a cast (neither the next number nor a fresh count from 1)' : ''}`);
      let parent = t.parent_id === null ? undefined : byId.get(t.parent_id);
      while (parent && parent.role === 'fold' && parent.id !== prev.id) parent = parent.parent_id === null ? undefined : byId.get(parent.parent_id);
      if (parent?.id !== prev.id) return fail(`entity ${entity}: turn ${t.id} (sequence ${t.sequence}) has parent ${String(t.parent_id)}, not the previous turn ${prev.id}`);
    }
  }
  return pass;
};

/** Whether fold turn `f` lies on the parent chain from `t` back to `prev`. */
function isBetween(f: Turn, prev: Turn, t: Turn, byId: Map<string, Turn>): boolean {
  let at = t.parent_id === null ? undefined : byId.get(t.parent_id);
  while (at && at.id !== prev.id) {
    if (at.id === f.id) return true;
    at = at.parent_id === null ? undefined : byId.get(at.parent_id);
  }
  return false;
}

/** LOOM-2: ids are unique and every parent resolves. */
const idsAndParents: Check = (_c, d) => {
  if (!d.loomAvailable) return skip(NO_LOOM);
  const turns = d.record.loom.turns;
  if (turns.length === 0) return skip('the loom is empty');
  const ids = new Set<string>();
  for (const t of turns) {
    if (ids.has(t.id)) return fail(`turn id ${t.id} appears twice`);
    ids.add(t.id);
  }
  const dangling = turns.find((t) => t.parent_id !== null && !ids.has(t.parent_id));
  return dangling ? fail(`turn ${dangling.id} has parent ${String(dangling.parent_id)}, which is not in the loom`) : pass;
};

/** LOOM-7: each run's last turn is terminated xor truncated, as its outcome says; no other turn is. */
const terminalState: Check = (_c, d) => {
  if (!d.loomAvailable) return skip(NO_LOOM);
  const both = d.record.loom.turns.find((t) => t.terminated && t.truncated);
  if (both) return fail(`turn ${both.id} is both terminated and truncated`);
  if (strayEntity(d)) return skip(STRAY_ENTITY);
  let checked = 0;
  for (const trace of d.actions.values()) {
    const outcome = d.record.outcomes[trace.name];
    // A cast ended by an error may stop between turns; only its stored turns are checked then.
    if (!outcome || !trace.appended) continue;
    const own = trace.appended.filter((t) => t.role === 'crystal' && t.entity_id === outcome.entity_id);
    const last = own.at(-1);
    if (!last) continue;
    checked++;
    if (outcome.error && !last.terminated && !last.truncated) continue;
    if (last.terminated === last.truncated) return fail(`${trace.name}: its last turn ${last.id} is neither terminated nor truncated`);
    if (last.terminated !== (outcome.status === 'terminated')) return fail(`${trace.name}: outcome says ${outcome.status} but its last turn says ${last.terminated ? 'terminated' : 'truncated'}`);
    const early = own.slice(0, -1).find((t) => t.terminated || t.truncated);
    if (early) return fail(`${trace.name}: turn ${early.id} (sequence ${early.sequence}) is marked ${early.terminated ? 'terminated' : 'truncated'} but is not the last`);
  }
  return checked > 0 ? pass : skip('no cast appended crystal turns');
};

/** LOOM-9: crystal turns record the usage the crystal reported. */
const usageRecorded: Check = (c, d) => {
  if (!d.loomAvailable) return skip(NO_LOOM);
  const steps = scriptSteps(c);
  if (steps.some((s) => s.usage && s.usage.prompt + s.usage.completion === 0)) return skip('the case scripts zero usage');
  if (d.queries.some((q) => q.after_outcome !== undefined)) return skip('a query after an outcome was answered with zero usage');
  // A turn cut off before the crystal answered (a failed or interrupted query) has no usage to record.
  const answered = (t: Turn): boolean => t.utterance !== '' || t.gate_calls.length > 0;
  const turns = d.record.loom.turns.filter((t) => t.role === 'crystal' && answered(t));
  if (turns.length === 0) return skip('no crystal turns');
  const bare = turns.find((t) => !(t.metadata?.tokens_prompt + t.metadata?.tokens_completion > 0));
  return bare ? fail(`turn ${bare.id} records no token usage although every response reported some`) : pass;
};

/** CALL-2: the system prompt leads every request to the cantrip's crystal. */
const callLeads: Check = (_c, d) => {
  let checked = 0;
  for (const [i, q] of d.queries.entries()) {
    const prompts = d.prepared.promptsByCrystal.get(q.lane);
    if (!prompts || ![...prompts].some((p) => p !== null)) continue;
    checked++;
    const first = q.request.messages?.[0];
    const ok = first?.role === 'system' ? prompts.has(first.content) : prompts.has(null) && !q.request.messages.some((m) => m.role === 'system');
    if (!ok) return fail(`request #${i} to '${q.crystal}' does not start with the system prompt (first message: ${JSON.stringify(first)?.slice(0, 120)})`);
  }
  return checked > 0 ? pass : skip('no request to a crystal whose call has a system prompt');
};

/**
 * The intents child entities are scripted to pursue (the `intent` of each call_entity request and of
 * each entry of a call_entity_batch), or undefined when a child is spawned from code, whose requests
 * the harness cannot read.
 */
function scriptedChildIntents(c: LoadedCase): Set<string> | undefined {
  const intents = new Set<string>();
  for (const step of scriptSteps(c)) {
    if (Object.values(step.code ?? {}).some((source) => source.includes('call_entity'))) return undefined;
    for (const call of step.tool_calls ?? []) {
      const args = call.args as { intent?: unknown; intents?: { intent?: unknown }[] } | undefined;
      if (call.gate === 'call_entity' && typeof args?.intent === 'string') intents.add(args.intent);
      if (call.gate === 'call_entity_batch') for (const entry of args?.intents ?? []) if (typeof entry?.intent === 'string') intents.add(entry.intent);
    }
  }
  return intents;
}

/**
 * INTENT-2: the intent is the first user message of every request, for every entity. For a cast that
 * is its intent; for a later send, any of the entity's intents (how earlier casts are presented is the
 * circle's choice, LOOP-5) as long as the sent intent is among the user messages; for a child (COMP-4),
 * the intent its parent asked for, even when the parent handed it context data.
 */
const intentFirst: Check = (c, d) => {
  const main = c.setup.crystal;
  const children = scriptedChildIntents(c);
  const traces = [...d.actions.values()].sort((a, b) => a.index - b.index);
  let checked = 0;
  for (const [i, q] of d.queries.entries()) {
    const first = firstUserText(q.request);
    const isChildCrystal = d.prepared.childCrystals.has(q.crystal);
    if (q.crystal !== main) {
      if (!isChildCrystal || children === undefined || children.size === 0) continue;
      checked++;
      if (first === undefined || !children.has(first)) return fail(`request #${i} to child crystal '${q.crystal}': first user message ${JSON.stringify(first)} is not the intent its parent asked for`);
      continue;
    }
    const trace = traces.find((t) => t.index === q.action);
    if (!trace || typeof trace.intent !== 'string' || (trace.verb !== 'cast' && trace.verb !== 'send')) continue;
    // A crystal shared by parent and children: a child's request may lead with the child's intent.
    if (isChildCrystal && (children === undefined || (first !== undefined && children.has(first)))) continue;
    checked++;
    if (trace.verb === 'cast') {
      if (first !== trace.intent) return fail(`request #${i} (${trace.name}): first user message is ${JSON.stringify(first)}, not the intent`);
      continue;
    }
    const intents = traces.filter((t) => t.index <= trace.index && t.entity === trace.entity && typeof t.intent === 'string').map((t) => t.intent);
    if (!intents.includes(first)) return fail(`request #${i} (${trace.name}): first user message ${JSON.stringify(first)} is none of the entity's intents`);
    if (!q.request.messages.some((m) => m.role === 'user' && m.content === trace.intent)) return fail(`request #${i} (${trace.name}): the sent intent is not among the user messages`);
  }
  return checked > 0 ? pass : skip('no cast, send or child with a known intent queried a crystal');
};

/**
 * CIRCLE-4, CIRCLE-7: in every request, each gate call of an assistant message is answered by a tool
 * message carrying its id before the next assistant message (§4.3 links a result to its call by
 * `tool_call_id`): the entity sees what every call it made returned. Calls after a `done` in the same
 * message are left out: LOOP-3 lets the loop skip them, and a skipped call returned nothing. Holds for
 * every crystal, children's too.
 */
const resultsLinked: Check = (_c, d) => {
  let checked = 0;
  for (const [i, q] of d.queries.entries()) {
    const messages = q.request.messages ?? [];
    let open: string[] = [];
    for (const [k, m] of messages.entries()) {
      if (m.role === 'assistant') {
        if (open.length > 0) return fail(`request #${i} to '${q.crystal}': gate call ${open.join(', ')} has no result before the assistant message at [${k}]`);
        const calls = m.tool_calls ?? [];
        const done = calls.findIndex((t) => t.gate === 'done');
        open = (done >= 0 ? calls.slice(0, done + 1) : calls).map((t) => t.id);
        checked += open.length;
      } else if (m.role === 'tool' && typeof m.tool_call_id === 'string') {
        open = open.filter((id) => id !== m.tool_call_id);
      }
    }
    if (open.length > 0) return fail(`request #${i} to '${q.crystal}': gate call ${open.join(', ')} has no result in the request`);
  }
  return checked > 0 ? pass : skip('no request carried a gate call');
};

/**
 * CRYSTAL-6 and §2.3: over a wire transport, every request the implementation's provider code sent is
 * one the provider would accept (roles in its order, each tool result answering a call of the message
 * before, arguments in the format's own type). The crystal server finds the problems; notes (things a
 * provider tolerates) do not count.
 */
const wireFormat: Check = (_c, d) => {
  if (!d.wire) return skip('the crystals were reached by callback, not over a wire format');
  const errors = d.record.wire_problems.filter((p) => p.severity === 'error');
  if (errors.length === 0) return d.queries.length > 0 ? pass : skip('no crystal was queried');
  const first = errors[0]!;
  return { ...fail(errors.map((p) => `request ${p.seq} to '${p.crystal ?? '?'}': ${p.check}: ${p.message}`).join('\n')), cause: [...new Set(errors.map((p) => `wire: ${p.check}`))].join('\n'), rules: first.check.includes('tool') ? ['CRYSTAL-6', 'CIRCLE-4'] : ['CRYSTAL-6'] };
};

export const INVARIANTS: { id: string; rules: string[]; check: Check }[] = [
  { id: 'turn-schema', rules: ['LOOM-2', 'LOOM-9'], check: turnSchema },
  { id: 'gate-record-contract', rules: [TEXT_RECORD_RULE], check: gateRecordContract },
  { id: 'request-schema', rules: ['CRYSTAL-4', 'LOOP-1'], check: requestSchema },
  { id: 'alternation', rules: ['LOOP-1'], check: alternation },
  { id: 'ids-and-parents', rules: ['LOOM-2'], check: idsAndParents },
  { id: 'terminal-state', rules: ['LOOM-7'], check: terminalState },
  { id: 'usage-recorded', rules: ['LOOM-9'], check: usageRecorded },
  { id: 'call-leads', rules: ['CALL-2'], check: callLeads },
  { id: 'intent-first', rules: ['INTENT-2'], check: intentFirst },
  { id: 'results-linked', rules: ['CIRCLE-4', 'CIRCLE-7'], check: resultsLinked },
  { id: 'wire-format', rules: ['CRYSTAL-6'], check: wireFormat },
  { id: 'secret-kept-out', rules: ['PROD-8'], check: secretKeptOut },
];

/** Runs every ambient invariant on a driven case. */
export function checkInvariants(c: LoadedCase, d: DriveResult): InvariantResult[] {
  return INVARIANTS.map(({ id, rules, check }) => ({ id, rules, ...check(c, d) }));
}

/**
 * Which spec rule makes each schema requirement. A record schema (schemas/*.schema.json) bundles many
 * requirements; a failed validation names one JSON pointer and one ajv keyword per problem, and this module
 * maps each such problem to the rules that ask for exactly that field or constraint — or, where the spec
 * describes the field (its Turn record, its GateCallRecord, its crystal contract) but no numbered rule makes
 * it mandatory, to the section that describes it.
 *
 * The mapping is a table per schema, read top to bottom, first match wins. A schema embedded in another
 * (a gate call record inside a turn, a message inside a request) is mounted: problems under the mount
 * point are handed to the embedded schema's table with the rest of the pointer.
 *
 * Problems with keyword `if` are companions: ajv adds one beside every failure inside a then/else branch,
 * and the inner failure already says what is wrong. They attribute nothing unless nothing else failed.
 */
import type { SchemaProblem } from '../../schemas/loader.ts';
import { byRuleOrder } from '../../spec/drafts.ts';

/** What one problem is attributed to. */
export interface Attribution {
  /** Rule ids that require exactly the field or constraint that failed, in catalog order; may be empty. */
  rules: string[];
  /** The spec section that describes the field (`§6.1`); set for every known schema. */
  section?: string;
  /** True for an `if` problem, which only accompanies the problem inside the branch. */
  companion?: boolean;
}

/** What all the problems of one validation are attributed to. */
export interface Attributions {
  /** The union of the rules of every non-companion problem, in catalog order. */
  rules: string[];
  /** The sections of those problems, deduplicated, in order of first appearance. */
  sections: string[];
}

/** The part of a {@link SchemaProblem} the mapping reads; the message is not needed. */
export type ProblemAt = Pick<SchemaProblem, 'pointer' | 'keyword'>;

interface Entry {
  /** Pointer pattern: `*` matches one segment, a trailing `**` any rest (or none). */
  at: string;
  /** Only for these keywords (absent: any). */
  keywords?: string[];
  /** Only when the last pointer segment matches (e.g. a property name). */
  name?: RegExp;
  rules: string[];
  /** Overrides the schema's own section. */
  section?: string;
}

interface Mount {
  at: string;
  schema: string;
}

interface Table {
  section: string;
  entries: Entry[];
  mounts?: Mount[];
}

/** Keywords that name a property the pointer ends with rather than a value found there. */
const PROPERTY_KEYWORDS = ['required', 'additionalProperties', 'false schema'];
const COMPANION_KEYWORDS = ['if'];

// Each entry cites the rule whose wording asks for the field; comments say why where it is not obvious.
const TABLES: Record<string, Table> = {
  // §6.1 "Turns as nodes": the Turn record.
  turn: {
    section: '§6.1',
    mounts: [{ at: '/gate_calls/*', schema: 'gate-call-record' }],
    entries: [
      { at: '/id', rules: ['LOOM-2'] },
      { at: '/parent_id', rules: ['LOOM-2'] },
      // LOOM-7: terminated or truncated is recorded; the schema's "never both" lands on /truncated (const).
      { at: '/terminated', rules: ['LOOM-7'] },
      { at: '/truncated', rules: ['LOOM-7'] },
      // A cause on a turn that is not truncated contradicts the terminal state the turn records.
      { at: '/truncation_cause', keywords: ['const'], rules: ['LOOM-7'] },
      // COMP-9: a truncation is told apart by its reason field, so every truncation carries one.
      { at: '/truncation_cause', rules: ['COMP-9'], section: '§5.1' },
      { at: '/metadata/tokens_prompt', rules: ['LOOM-9', 'PROD-3'] },
      { at: '/metadata/tokens_completion', rules: ['LOOM-9', 'PROD-3'] },
      { at: '/metadata/tokens_cached', rules: ['LOOM-9', 'PROD-3'] },
      { at: '/metadata/duration_ms', rules: ['LOOM-9'] },
      // The timestamp is in the Turn record, but LOOM-9 asks only for usage and duration.
      { at: '/metadata/timestamp', rules: [] },
      { at: '/metadata/*', rules: [] },
      { at: '/metadata', rules: ['LOOM-9'] },
      // The gate_calls list itself is the record's; its entries are the §4.3 gate record (mounted above).
      { at: '/gate_calls', rules: [] },
      // CALL-3: the stored call is identity only; gate definitions in it are what the rule forbids.
      { at: '/call/*', keywords: ['additionalProperties'], name: /tool|gate|function/i, rules: ['CALL-3'], section: '§3.1' },
      { at: '/call/**', rules: ['CALL-4'], section: '§3.4' },
      { at: '/fork/**', rules: ['LOOM-4'], section: '§6.6' },
      { at: '/fold/**', rules: ['LOOM-5'], section: '§6.8' },
      // The done gate's answer on the terminated turn.
      { at: '/result', rules: ['CIRCLE-8'], section: '§4.2' },
      // §6.4: the loom keeps a reward slot on every turn; no numbered rule makes it mandatory.
      { at: '/reward', rules: [], section: '§6.4' },
      // role, sequence, cantrip_id, entity_id (ENTITY-2 asks for the entity's id, not for turns to carry it),
      // utterance, observation, intent, unknown properties and the record as a whole: §6.1.
      { at: '/**', rules: [] },
    ],
  },
  // §4.3 of 0.1.0: the GateCallRecord the draft shows. No sentence makes the stored shape a MUST: CIRCLE-4,
  // CIRCLE-5 and CIRCLE-7 are about what reaches the entity, which the cases read on the requests (issue 21).
  // A record that differs is a record-shape finding (record-shapes.ts), never a failure (issue 29).
  'gate-call-record': {
    section: '§4.3',
    entries: [{ at: '/**', rules: [] }],
  },
  // §4.3 of 0.2.0 and 0.3.1: the text GateCallRecord; both catalogs place the contract under CIRCLE-4.
  'gate-call-record-text': {
    section: '§4.3',
    entries: [{ at: '/**', rules: ['CIRCLE-4'] }],
  },
  // §2.1: the crystal contract, query(messages, tools?, tool_choice?).
  'crystal-request': {
    section: '§2.1',
    mounts: [
      { at: '/messages/*', schema: 'message' },
      { at: '/tools/*', schema: 'tool-definition' },
    ],
    entries: [
      // LOOP-5: the call and the intent are always there, so the context is never empty.
      { at: '/messages', keywords: ['minItems'], rules: ['LOOP-5'] },
      { at: '/messages', rules: ['CRYSTAL-1'] },
      { at: '/tools', rules: ['CALL-3', 'CIRCLE-11'] },
      { at: '/tool_choice', rules: ['CRYSTAL-5'] },
      // The call's hyperparameters (§3.1); no rule shapes how they are sent.
      { at: '/hyperparameters/**', rules: [], section: '§3.1' },
      { at: '/', rules: ['CRYSTAL-1'] },
      { at: '/**', rules: [] },
    ],
  },
  message: {
    section: '§2.1',
    mounts: [{ at: '/tool_calls/*', schema: 'tool-call' }],
    entries: [
      { at: '/role', rules: ['CRYSTAL-1'] },
      { at: '/content', rules: ['CRYSTAL-1'] },
      // An assistant message without text stands for a response that made gate calls (CRYSTAL-3).
      { at: '/tool_calls', keywords: ['required', 'minItems'], rules: ['CRYSTAL-3'] },
      { at: '/tool_calls', rules: ['CRYSTAL-4'] },
      // The id that matches a gate result to the call that produced it.
      { at: '/tool_call_id', rules: ['CIRCLE-4'], section: '§4.3' },
      { at: '/', rules: ['CRYSTAL-1'] },
      { at: '/**', rules: [] },
    ],
  },
  'tool-call': {
    section: '§2.1',
    entries: [
      { at: '/id', rules: ['CRYSTAL-4'] },
      { at: '/gate', rules: ['CRYSTAL-4'] },
      { at: '/arguments', rules: ['CRYSTAL-4'] },
      { at: '/', rules: ['CRYSTAL-4'] },
      { at: '/**', rules: [] },
    ],
  },
  // §4.6: the capability presentation; gate definitions come from the circle.
  'tool-definition': {
    section: '§4.6',
    entries: [
      { at: '/name', rules: ['CIRCLE-11'] },
      { at: '/description', rules: ['CIRCLE-11'] },
      { at: '/parameters/**', rules: ['CIRCLE-11'] },
      { at: '/', rules: ['CALL-3', 'CIRCLE-11'] },
      { at: '/**', rules: [] },
    ],
  },
  // §2.1: the response; providers normalise to it (CRYSTAL-6).
  'crystal-response': {
    section: '§2.1',
    mounts: [{ at: '/tool_calls/*', schema: 'tool-call' }],
    entries: [
      // CRYSTAL-3 (text or gate calls): ajv reports the anyOf at the root plus each branch's failure.
      { at: '/', keywords: ['anyOf'], rules: ['CRYSTAL-3'] },
      { at: '/content', rules: ['CRYSTAL-3'] },
      { at: '/tool_calls', keywords: ['required', 'minItems'], rules: ['CRYSTAL-3'] },
      { at: '/tool_calls', rules: ['CRYSTAL-4'] },
      { at: '/**', rules: ['CRYSTAL-6'] },
    ],
  },
  usage: {
    section: '§2.1',
    entries: [{ at: '/**', rules: ['CRYSTAL-6'] }],
  },
  // §6.5: JSONL storage; the reward line is LOOM-3's one exception to append-only.
  'loom-line': {
    section: '§6.5',
    mounts: [{ at: '/turn', schema: 'turn' }],
    entries: [{ at: '/**', rules: ['LOOM-3'] }],
  },
};

/** The schema names this module has a table for. */
export const ATTRIBUTED_SCHEMAS: readonly string[] = Object.keys(TABLES);

/** `/gate_calls/0/tool_call_id` -> `/gate_calls/*\/tool_call_id`: array indices become `*`. */
export function normalisePointer(pointer: string): string {
  if (pointer === '' || pointer === '/') return '/';
  return pointer
    .split('/')
    .map((segment) => (/^\d+$/.test(segment) ? '*' : segment))
    .join('/');
}

const segments = (pointer: string): string[] => (pointer === '/' || pointer === '' ? [] : pointer.split('/').slice(1));

/** Matches a pointer against a pattern; returns the unmatched rest for a mount (`undefined`: no match). */
function matchPrefix(pattern: string, pointer: string[]): string[] | undefined {
  const parts = segments(pattern);
  if (pointer.length < parts.length) return undefined;
  for (const [i, part] of parts.entries()) if (part !== '*' && part !== pointer[i]) return undefined;
  return pointer.slice(parts.length);
}

function matches(pattern: string, pointer: string[]): boolean {
  const parts = segments(pattern);
  if (parts.at(-1) === '**') {
    const rest = matchPrefix(`/${parts.slice(0, -1).join('/')}`, pointer);
    return rest !== undefined;
  }
  const rest = matchPrefix(pattern, pointer);
  return rest !== undefined && rest.length === 0;
}

// The attribution table names the kit's own ids, those of the seed draft; reports translate them later.
const byCatalog = byRuleOrder('0.1.0');

function attribute(schema: string, pointer: string[], keyword: string): Attribution {
  const table = TABLES[schema];
  if (!table) return { rules: [] };
  if (COMPANION_KEYWORDS.includes(keyword)) {
    // An `if` inside a mounted schema is still only a companion; name the section where it sits.
    for (const mount of table.mounts ?? []) {
      const rest = matchPrefix(mount.at, pointer);
      if (rest !== undefined) return { ...attribute(mount.schema, rest, keyword), companion: true };
    }
    return { rules: [], section: table.section, companion: true };
  }
  for (const mount of table.mounts ?? []) {
    const rest = matchPrefix(mount.at, pointer);
    if (rest === undefined) continue;
    // At the mount point itself, a missing or forbidden property is the outer record's business.
    if (rest.length === 0 && PROPERTY_KEYWORDS.includes(keyword)) continue;
    return attribute(mount.schema, rest, keyword);
  }
  const last = pointer.at(-1) ?? '';
  const entry = table.entries.find(
    (e) => matches(e.at, pointer) && (!e.keywords || e.keywords.includes(keyword)) && (!e.name || e.name.test(last)),
  );
  return { rules: [...(entry?.rules ?? [])].sort(byCatalog), section: entry?.section ?? table.section };
}

/**
 * The rules (and the section) that require what one problem of `validate(schema, value)` found missing or
 * wrong. `schema` is the short name given to `validate` (`turn`, `crystal-request`, `gate-call-record`...);
 * an unknown schema attributes nothing.
 */
export function rulesForProblem(schema: string, problem: ProblemAt): Attribution {
  const pointer = segments(normalisePointer(problem.pointer)).map(unescape);
  return attribute(schema, pointer, problem.keyword);
}

/**
 * The problems of one validation that break a rule (their attribution names one), and those no rule asks
 * for: a field only the spec's record layout shows, or one of the implementation's own. The `if`
 * companions say nothing of their own and are left out of both, unless they are all there is (then they
 * are the rest: no rule is named by a companion).
 */
export function problemsByRule<P extends ProblemAt>(schema: string, problems: readonly P[]): { breaking: P[]; outside: P[] } {
  const breaking: P[] = [];
  const outside: P[] = [];
  const companions: P[] = [];
  for (const p of problems) {
    const a = rulesForProblem(schema, p);
    if (a.companion) companions.push(p);
    else (a.rules.length > 0 ? breaking : outside).push(p);
  }
  return { breaking, outside: breaking.length + outside.length > 0 ? outside : companions };
}

/** The union over every problem of one validation; companions count only when they are all there is. */
export function rulesForProblems(schema: string, problems: readonly ProblemAt[]): Attributions {
  const all = problems.map((p) => rulesForProblem(schema, p));
  const real = all.filter((a) => !a.companion);
  const counted = real.length > 0 ? real : all;
  const rules = [...new Set(counted.flatMap((a) => a.rules))].sort(byCatalog);
  const sections = [...new Set(counted.flatMap((a) => (a.section ? [a.section] : [])))];
  return { rules, sections };
}

/** RFC 6901 unescaping, so a table can name a property as written. */
function unescape(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

// ---------------------------------------------------------------------------------------------------------
// Cause keys: one problem, with everything that varies from case to case taken out.

/** `turn:/gate_calls/*\/tool_call_id [required]`: schema, pointer with indices as `*`, keyword. */
export function causeKey(schema: string, problem: ProblemAt): string {
  return `${schema}:${normalisePointer(problem.pointer)} [${problem.keyword}]`;
}

const CAUSE_KEY = /^([a-z0-9][a-z0-9./-]*):(\/.*) \[([^\]]+)\]$/;

/** Reads a key made by {@link causeKey}; `undefined` for any other text. */
export function parseCauseKey(key: string): { schema: string; pointer: string; keyword: string } | undefined {
  const m = CAUSE_KEY.exec(key);
  return m ? { schema: m[1]!, pointer: m[2]!, keyword: m[3]! } : undefined;
}

/**
 * The cause of a failed validation, for `InvariantResult.cause`: one {@link causeKey} per distinct
 * problem, sorted, one per line. Companion (`if`) problems are left out unless they are all there is.
 */
export function schemaCause(schema: string, problems: readonly ProblemAt[]): string {
  const real = problems.filter((p) => !COMPANION_KEYWORDS.includes(p.keyword));
  const counted = real.length > 0 ? real : problems;
  return [...new Set(counted.map((p) => causeKey(schema, p)))].sort().join('\n');
}

/** Every rule a schema's table can attribute, mounted schemas included (e.g. for an invariant's static list). */
export function rulesOfSchema(schema: string, seen = new Set<string>()): string[] {
  const table = TABLES[schema];
  if (!table || seen.has(schema)) return [];
  seen.add(schema);
  const rules = new Set(table.entries.flatMap((e) => e.rules));
  for (const mount of table.mounts ?? []) for (const r of rulesOfSchema(mount.schema, seen)) rules.add(r);
  return [...rules].sort(byCatalog);
}

// ---------------------------------------------------------------------------------------------------------
// Reading problems back from text: `formatProblems` lines carry the message, not the keyword.

const MESSAGE_KEYWORDS: [RegExp, string][] = [
  [/^is required$/, 'required'],
  [/^is not an allowed property$/, 'additionalProperties'],
  [/^must be equal to constant$/, 'const'],
  [/^must be equal to one of the allowed values$/, 'enum'],
  [/^boolean schema is false$/, 'false schema'],
  [/^must match "(then|else)" schema$/, 'if'],
  [/^must match a schema in anyOf$/, 'anyOf'],
  [/^must match exactly one schema in oneOf/, 'oneOf'],
  [/^must NOT be valid$/, 'not'],
  [/^must be (string|number|integer|boolean|object|array|null)(,(string|number|integer|boolean|object|array|null))*$/, 'type'],
  [/^must be >= /, 'minimum'],
  [/^must be <= /, 'maximum'],
  [/^must be > /, 'exclusiveMinimum'],
  [/^must be < /, 'exclusiveMaximum'],
  [/^must match format /, 'format'],
  [/^must match pattern /, 'pattern'],
  [/^must NOT have fewer than \d+ items$/, 'minItems'],
  [/^must NOT have more than \d+ items$/, 'maxItems'],
  [/^must NOT have fewer than \d+ characters$/, 'minLength'],
  [/^must NOT have more than \d+ characters$/, 'maxLength'],
  [/^must NOT have fewer than \d+ properties$/, 'minProperties'],
  [/^must NOT have duplicate items/, 'uniqueItems'],
];

/** The ajv keyword behind one of the loader's messages, when it is one ajv writes. */
export function keywordOfMessage(message: string): string | undefined {
  return MESSAGE_KEYWORDS.find(([pattern]) => pattern.test(message))?.[1];
}

/** The problems listed in a text written with `formatProblems` (`  /pointer: message` lines). */
export function problemsInText(text: string): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s+(\/.*?): (.+)$/.exec(line);
    if (!m) continue;
    const message = m[2]!.trim();
    out.push({ pointer: m[1]!, message, keyword: keywordOfMessage(message) ?? message.replace(/\d+/g, '#') });
  }
  return out;
}

/**
 * Meta-tests of the record schemas: each file is well formed and documented, mirrors its TypeScript type
 * in records.ts (the protocol's describe result and cast outcome mirror adapter.ts), and agrees with its fixtures (`fixtures/schemas/<name>/`), where every invalid fixture must
 * be rejected for the reason its `expect.json` entry names. The loader's problem reporting is tested last.
 */
import { describe, it, expect } from 'vitest';
import { readdirSync, readFileSync, existsSync, statSync } from 'node:fs';
import { join, dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { SCHEMA_BASE, assertValid, formatProblems, schemaIds, validate, validator } from './loader.ts';
import type { SchemaProblem } from './loader.ts';
import { ERROR_CODES, KNOWN_TRUNCATION_CAUSES } from './records.ts';
import { FEATURES, OPTIONAL_WARDS } from './adapter.ts';
import type { AcpAgentLaunch, BuiltinSignatures, CastOutcome, ChildOption, Description, SandboxDescription } from './adapter.ts';
import type {
  CallRecord,
  CodedError,
  CrystalRequest,
  CrystalResponse,
  ForkStrategy,
  GateCallRecord,
  GateError,
  LoomLine,
  Message,
  MessageRole,
  ProviderToolRun,
  ToolCall,
  ToolChoice,
  ToolDefinition,
  TruncationCause,
  Turn,
  TurnMetadata,
  TurnRole,
  Usage,
} from './records.ts';

const SCHEMA_DIR = dirname(fileURLToPath(import.meta.url));
const FIXTURE_DIR = join(SCHEMA_DIR, '..', 'fixtures', 'schemas');

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type SchemaObject = { [key: string]: Json };

const isObject = (value: unknown): value is SchemaObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const readJson = (file: string): Json => JSON.parse(readFileSync(file, 'utf8')) as Json;

/** Short names of every schema file the loader reads: `turn`, `protocol/describe`, ... */
function schemaNames(): string[] {
  return [SCHEMA_DIR, join(SCHEMA_DIR, 'protocol')].filter(existsSync).flatMap((dir) =>
    readdirSync(dir)
      .filter((file) => file.endsWith('.schema.json'))
      .map((file) => relative(SCHEMA_DIR, join(dir, file)).replace(/\.schema\.json$/, '')),
  );
}

function loadSchema(name: string): SchemaObject {
  const schema = readJson(join(SCHEMA_DIR, `${name}.schema.json`));
  if (!isObject(schema)) throw new Error(`schemas/${name}.schema.json: not a JSON object`);
  return schema;
}

/** Fixture folders (any folder holding .json files) by their path under fixtures/schemas. */
function fixtureFolders(dir = FIXTURE_DIR): string[] {
  if (!existsSync(dir)) return [];
  const entries = readdirSync(dir);
  const own = entries.some((entry) => entry.endsWith('.json')) ? [relative(FIXTURE_DIR, dir)] : [];
  const nested = entries.filter((entry) => statSync(join(dir, entry)).isDirectory());
  return [...own, ...nested.flatMap((entry) => fixtureFolders(join(dir, entry)))];
}

// ---------------------------------------------------------------------------------------------------------
// Documentation walk: every declared property has a description; branches only constrain declared ones.

const BRANCH_LISTS = ['allOf', 'anyOf', 'oneOf'] as const;
const BRANCH_SINGLES = ['if', 'then', 'else', 'not'] as const;

/** Paths (JSON pointers into the schema) of properties that lack a description, or that a branch invents. */
function documentationGaps(schema: Json, path = '', declared: string[] | undefined = undefined): string[] {
  if (!isObject(schema)) return [];
  const gaps: string[] = [];
  const properties = isObject(schema.properties) ? schema.properties : undefined;
  const inBranch = declared !== undefined;
  const names = inBranch ? declared : Object.keys(properties ?? {});
  for (const [key, sub] of Object.entries(properties ?? {})) {
    const at = `${path}/properties/${key}`;
    if (inBranch) {
      if (!names.includes(key)) gaps.push(`${at} (constrained in a branch but never declared)`);
    } else {
      if (!isObject(sub) || typeof sub.description !== 'string' || sub.description.trim() === '')
        gaps.push(`${at} (no description)`);
      gaps.push(...documentationGaps(sub, at));
    }
  }
  for (const [key, sub] of Object.entries(isObject(schema.$defs) ? schema.$defs : {})) {
    const at = `${path}/$defs/${key}`;
    if (!isObject(sub) || typeof sub.description !== 'string') gaps.push(`${at} (no description)`);
    gaps.push(...documentationGaps(sub, at));
  }
  // Sub-schemas of new instance locations (array items, map values) declare their own properties.
  if (!inBranch) {
    for (const key of ['items', 'additionalProperties', 'contains'] as const)
      gaps.push(...documentationGaps(schema[key] ?? null, `${path}/${key}`));
    const tuple = schema.prefixItems;
    if (Array.isArray(tuple)) tuple.forEach((sub, i) => gaps.push(...documentationGaps(sub, `${path}/prefixItems/${i}`)));
    for (const [key, sub] of Object.entries(isObject(schema.patternProperties) ? schema.patternProperties : {}))
      gaps.push(...documentationGaps(sub, `${path}/patternProperties/${key}`));
  }
  // Branches under a schema that declares properties only constrain those; branches under one that declares
  // none (a union of object variants) are declarations themselves and must document their properties.
  const branchScope = properties || inBranch ? names : undefined;
  for (const key of BRANCH_SINGLES) gaps.push(...documentationGaps(schema[key] ?? null, `${path}/${key}`, branchScope));
  for (const key of BRANCH_LISTS) {
    const list = schema[key];
    if (Array.isArray(list)) list.forEach((sub, i) => gaps.push(...documentationGaps(sub, `${path}/${key}/${i}`, branchScope)));
  }
  return gaps;
}

describe('schema files', () => {
  const names = schemaNames();

  it('the folder holds the record schemas of records.ts', () => {
    const recordSchemas = new Set([...Object.keys(RECORD_SHAPES).map((key) => key.split('#')[0]), 'loom-line', 'error-code']);
    expect(names).toEqual(expect.arrayContaining([...recordSchemas]));
  });

  it.each(names)('%s: compiles through the loader and is known by its $id', (name) => {
    expect(typeof validator(name)).toBe('function');
    expect(schemaIds()).toContain(`${SCHEMA_BASE}${name}.schema.json`);
  });

  it.each(names)('%s: has $schema 2020-12, $id, title and description', (name) => {
    const schema = loadSchema(name);
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.$id).toBe(`${SCHEMA_BASE}${name}.schema.json`);
    expect(typeof schema.title === 'string' && schema.title.length > 0).toBe(true);
    expect(typeof schema.description === 'string' && schema.description.length > 0).toBe(true);
  });

  it.each(names)('%s: every property carries a description', (name) => {
    expect(documentationGaps(loadSchema(name))).toEqual([]);
  });

  it('the documentation walk finds an undocumented property and an invented branch property', () => {
    const sample = {
      type: 'object',
      properties: { a: { type: 'string' }, b: { description: 'b' } },
      if: { properties: { c: { const: 1 } } },
    };
    expect(documentationGaps(sample)).toEqual(['/properties/a (no description)', '/if/properties/c (constrained in a branch but never declared)']);
  });

  it('the documentation walk looks inside array items and map values', () => {
    const sample: Json = {
      type: 'object',
      properties: {
        list: { description: 'l', type: 'array', items: { type: 'object', properties: { x: {} } } },
        map: { description: 'm', type: 'object', additionalProperties: { type: 'object', properties: { y: {} } } },
      },
    };
    expect(documentationGaps(sample)).toEqual(['/properties/list/items/properties/x (no description)', '/properties/map/additionalProperties/properties/y (no description)']);
  });

  it('the documentation walk treats the variants of a union as declarations', () => {
    const sample: Json = { anyOf: [{ type: 'object', properties: { a: { description: 'a' } } }, { type: 'object', properties: { b: {} } }] };
    expect(documentationGaps(sample)).toEqual(['/anyOf/1/properties/b (no description)']);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Mirror of records.ts. The key lists are checked against the types by tsc (a missing or extra key is a
// type error) and against the schemas here, so the three cannot drift apart silently.

type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T] & string;
type OptionalKeys<T> = Exclude<keyof T & string, RequiredKeys<T>>;
type Covers<L extends readonly string[], K extends string> = [Exclude<K, L[number]>] extends [never]
  ? unknown
  : { missing: Exclude<K, L[number]> };

interface Shape {
  required: string[];
  optional: string[];
}

/** Lists T's required and optional keys; tsc rejects a list that misses or invents a key. */
function shapeOf<T>() {
  return <const R extends readonly RequiredKeys<T>[], const O extends readonly OptionalKeys<T>[]>(
    required: R & Covers<R, RequiredKeys<T>>,
    optional: O & Covers<O, OptionalKeys<T>>,
  ): Shape => ({ required: [...required], optional: [...optional] });
}

/**
 * Keys the reference's records always carry (so its types require them) that the schemas leave optional:
 * the rules about gate results are about what the entity sees, which the kit checks on the requests
 * (CIRCLE-4, CIRCLE-5, CIRCLE-7), so a stored record without the call's id or the error's name is no
 * violation (docs/OPEN-CHOICES.md).
 */
const STORED_OPTIONAL: Record<string, string[]> = {
  'gate-call-record': ['tool_call_id'],
  'gate-call-record#/$defs/record_error': ['name'],
  // The spec shows null for a call without a system prompt, and for an assistant message that only made
  // gate calls; an absent field says the same (issue 29).
  'turn#/$defs/call': ['system_prompt'],
  message: ['content'],
};

/**
 * Records an implementation produces and the kit checks, which no draft closes: a medium may add fields to a
 * gate record (§4.3 from 0.2.0), provider fields may be kept as metadata (CRYSTAL-6 / LLM-6), 0.3.1 adds
 * provider parameters to a query (`extra`), and nothing closes a turn, a call record or a message (issue 29).
 * The kit's own documents (the crystal's replies it scripts, the gate error it answers, the protocol) stay closed.
 */
const OPEN_RECORDS: ReadonlySet<string> = new Set([
  'message', 'tool-definition', 'tool-call', 'crystal-request', 'gate-call-record', 'gate-call-record#/$defs/record_error',
  'turn', 'turn#/$defs/metadata', 'turn#/$defs/call', 'protocol/cast#/$defs/outcome',
]);

/** Where each type lives: `schema name` or `schema name#/pointer` into the file. */
const RECORD_SHAPES: Record<string, Shape> = {
  message: shapeOf<Message>()(['role', 'content'], ['tool_calls', 'tool_call_id']),
  'tool-definition': shapeOf<ToolDefinition>()(['name', 'description', 'parameters'], []),
  'tool-call': shapeOf<ToolCall>()(['id', 'gate', 'arguments'], []),
  'crystal-request': shapeOf<CrystalRequest>()(['messages'], ['tools', 'tool_choice', 'hyperparameters']),
  usage: shapeOf<Usage>()(['prompt', 'completion', 'cached'], []),
  'crystal-response': shapeOf<CrystalResponse>()(['content', 'usage'], ['tool_calls', 'thinking', 'metadata', 'provider_tools']),
  'crystal-response#/properties/provider_tools/items': shapeOf<ProviderToolRun>()(['id', 'name', 'arguments', 'result'], []),
  'gate-call-record': shapeOf<GateCallRecord>()(['tool_call_id', 'gate', 'ok'], ['arguments', 'result', 'error']),
  'gate-call-record#/$defs/record_error': shapeOf<GateError>()(['name', 'message'], ['code']),
  turn: shapeOf<Turn>()(
    ['id', 'parent_id', 'cantrip_id', 'entity_id', 'role', 'sequence', 'utterance', 'observation', 'gate_calls',
      'metadata', 'reward', 'terminated', 'truncated'],
    ['truncation_cause', 'intent', 'call', 'fork', 'fold', 'result', 'files_changed'],
  ),
  'turn#/$defs/metadata': shapeOf<TurnMetadata>()(
    ['tokens_prompt', 'tokens_completion', 'tokens_cached', 'duration_ms', 'timestamp'],
    [],
  ),
  'turn#/$defs/call': shapeOf<CallRecord>()(['system_prompt', 'hyperparameters'], []),
  'turn#/$defs/fork': shapeOf<NonNullable<Turn['fork']>>()(['strategy'], ['from_turn_id']),
  'turn#/$defs/fold': shapeOf<NonNullable<Turn['fold']>>()(['from_sequence', 'to_sequence'], []),
  'coded-error': shapeOf<CodedError>()(['message'], ['code']),
  // The adapter contract's records as the protocol schemas carry them (schemas/adapter.ts).
  'protocol/describe#/$defs/result': shapeOf<Description>()(
    ['name', 'version', 'spec_version', 'protocol_version', 'features'],
    ['drafts', 'sandbox', 'fork_strategies', 'wards', 'builtins', 'fold_marker', 'crystal_transports', 'event_buffer', 'acp'],
  ),
  'protocol/describe#/$defs/result/properties/acp': shapeOf<AcpAgentLaunch>()(['command', 'crystal'], ['env', 'cwd']),
  'protocol/describe#/$defs/result/properties/sandbox': shapeOf<SandboxDescription>()(['language', 'tool', 'argument'], ['eval_timeout_ms']),
  'protocol/describe#/$defs/builtins': shapeOf<BuiltinSignatures>()([], ['done', 'call_entity', 'call_entity_batch']),
  'protocol/describe#/$defs/builtins/properties/done': shapeOf<NonNullable<BuiltinSignatures['done']>>()([], ['argument', 'function']),
  'protocol/describe#/$defs/builtins/properties/call_entity': shapeOf<NonNullable<BuiltinSignatures['call_entity']>>()([], ['arguments', 'function']),
  'protocol/describe#/$defs/builtins/properties/call_entity/properties/arguments': shapeOf<Partial<Record<ChildOption, string>>>()(
    [],
    ['intent', 'context', 'system_prompt', 'max_depth', 'max_turns', 'gates', 'medium', 'llm', 'eval_timeout_ms'],
  ),
  'protocol/describe#/$defs/builtins/properties/call_entity_batch': shapeOf<NonNullable<BuiltinSignatures['call_entity_batch']>>()([], ['argument', 'function']),
  'protocol/cast#/$defs/outcome': shapeOf<CastOutcome>()(
    ['entity_id', 'status', 'usage'],
    ['result', 'truncation_cause', 'summary', 'error'],
  ),
};

/** The full `$id` (with its fragment) of `name#/pointer`, which {@link validate} takes for a sub-schema. */
const idOf = (location: string): string => {
  const [name = '', pointer] = location.split('#');
  return `${SCHEMA_BASE}${name}.schema.json${pointer === undefined ? '' : `#${pointer}`}`;
};

/** Resolves `name#/a/b` to the sub-schema. */
function schemaAt(location: string): SchemaObject {
  const [name = '', pointer = ''] = location.split('#');
  let node: Json = loadSchema(name);
  for (const step of pointer.split('/').filter(Boolean)) {
    node = isObject(node) ? (node[step] ?? null) : Array.isArray(node) ? (node[Number(step)] ?? null) : null;
  }
  if (!isObject(node)) throw new Error(`${location}: no schema object there`);
  return node;
}

describe('schemas mirror records.ts', () => {
  it.each(Object.entries(RECORD_SHAPES))('%s: same keys, same optionality, closed unless the spec leaves it open', (location, shape) => {
    const schema = schemaAt(location);
    const declared = Object.keys(isObject(schema.properties) ? schema.properties : {});
    expect([...declared].sort()).toEqual([...shape.required, ...shape.optional].sort());
    // A key the reference always writes but the spec's rules do not ask a stored record for (issue 21) is optional in the schema.
    const relaxed = STORED_OPTIONAL[location] ?? [];
    expect([...((schema.required as string[] | undefined) ?? [])].sort()).toEqual(shape.required.filter((k) => !relaxed.includes(k)).sort());
    expect(schema.additionalProperties).toBe(OPEN_RECORDS.has(location) ? undefined : false);
  });

  it('records the spec leaves open take other keys; the gate error the kit answers does not', () => {
    expect(validate(idOf('turn#/$defs/metadata'), { tokens_prompt: 1, tokens_completion: 1, tokens_cached: 0, duration_ms: 1, timestamp: '2026-01-01T00:00:00Z', stop_reason: 'end_turn' }).ok).toBe(true);
    expect(validate('gate-call-record', { gate: 'echo', ok: true, result: 'a', stdout: '' }).ok).toBe(true);
    expect(validate(idOf('turn#/$defs/call'), { hyperparameters: {} }).ok).toBe(true);
    expect(validate('crystal-request', { messages: [{ role: 'user', content: 'hi' }], extra: { top_k: 3 } }).ok).toBe(true);
    // Content left out where the spec shows null (an assistant message that only made gate calls), nowhere else.
    expect(validate('message', { role: 'assistant', tool_calls: [{ id: 'c1', gate: 'done', arguments: '{}' }] }).ok).toBe(true);
    expect(validate('message', { role: 'assistant' }).ok).toBe(false);
    expect(validate('message', { role: 'user' }).ok).toBe(false);
    expect(validate(idOf('gate-call-record#/$defs/gate_error'), { message: 'm' }).ok).toBe(true);
    expect(validate(idOf('gate-call-record#/$defs/gate_error'), { message: 'm', stack: 's' }).ok).toBe(false);
  });

  it('LOOM-2, LOOM-9: the turn schema requires every required key of Turn', () => {
    const required = schemaAt('turn').required as string[];
    expect(required).toEqual(expect.arrayContaining(RECORD_SHAPES.turn?.required ?? ['(turn shape missing)']));
    expect(required).toHaveLength(13);
  });

  it('loom-line: its keys are the union of both line kinds (LOOM-3)', () => {
    type Keys = keyof Extract<LoomLine, { kind: 'turn' }> | keyof Extract<LoomLine, { kind: 'reward' }>;
    const keys: readonly Keys[] = ['kind', 'turn', 'turn_id', 'reward'];
    const schema = schemaAt('loom-line');
    expect(Object.keys(schema.properties as SchemaObject).sort()).toEqual([...keys].sort());
    expect(schema.additionalProperties).toBe(false);
  });

  it('error-code: the enum is exactly ERROR_CODES, in order', () => {
    expect(schemaAt('error-code').enum).toEqual([...ERROR_CODES]);
  });

  /** A literal list of a union type's members; tsc rejects one that misses a member. */
  const members = <T extends string>() => <const L extends readonly T[]>(list: L & Covers<L, T>): string[] => [...list];

  it.each([
    ['message#/properties/role', members<MessageRole>()(['system', 'user', 'assistant', 'tool'])],
    ['crystal-request#/properties/tool_choice', members<ToolChoice>()(['auto', 'required', 'none'])],
    ['turn#/properties/role', members<TurnRole>()(['crystal', 'call', 'fold'])],
    ['turn#/$defs/fork/properties/strategy', members<ForkStrategy>()(['snapshot', 'replay'])],
    ['loom-line#/properties/kind', ['turn', 'reward']],
  ])('%s: enum equals the union in records.ts', (location, values) => {
    expect(schemaAt(location).enum).toEqual(values);
  });

  it.each([
    ['protocol/describe#/$defs/result/properties/features/items', [...FEATURES]],
    ['protocol/describe#/$defs/result/properties/wards/items', [...OPTIONAL_WARDS]],
    ['protocol/describe#/$defs/result/properties/fork_strategies/items', members<ForkStrategy>()(['snapshot', 'replay'])],
    ['protocol/fork#/$defs/result/oneOf/0/properties/value/properties/strategy', members<ForkStrategy>()(['snapshot', 'replay'])],
  ])('%s: enum equals the list in adapter.ts', (location, values) => {
    expect(schemaAt(location).enum).toEqual(values);
  });

  it('describe: wards and builtins are optional, so a description without them is still valid', () => {
    const description: Description = { name: 'x', version: '1', spec_version: '0.1.0-draft', protocol_version: 1, features: [] };
    expect(validate('protocol/describe', { params: { protocol_version: 1 }, result: description })).toEqual({ ok: true });
  });

  it('LOOP-4, COMP-9: a truncation cause is any non-empty string, in the turn and in the cast outcome alike', () => {
    // TruncationCause is an open string: the spec names only parent_terminated, and any other word is the implementation's.
    const causes: TruncationCause[] = [...KNOWN_TRUNCATION_CAUSES];
    for (const location of ['turn#/properties/truncation_cause', 'protocol/cast#/$defs/outcome/properties/truncation_cause']) {
      expect(schemaAt(location).enum).toBeUndefined();
    }
    const outcome = (truncation_cause: string): CastOutcome => ({ entity_id: 'e', status: 'truncated', truncation_cause, usage: USAGE });
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(...causes), fc.string()), (cause) => {
        const turn: Turn = { ...TURN, truncated: true, truncation_cause: cause };
        expect(validate('turn', turn).ok).toBe(cause.length > 0);
        expect(validate(idOf('protocol/cast#/$defs/outcome'), outcome(cause)).ok).toBe(cause.length > 0);
      }),
    );
  });

  it('error codes are free and optional wherever a CodedError crosses the boundary', () => {
    const refusals = ['construct', 'cast', 'invoke', 'send', 'fork', 'loom', 'thread', 'mutate'];
    fc.assert(
      fc.property(fc.option(fc.string({ minLength: 1 }), { nil: undefined }), fc.constantFrom(...refusals), (code, method) => {
        const error: CodedError = { message: 'declined', ...(code !== undefined && { code }) };
        expect(validate('coded-error', error)).toEqual({ ok: true });
        expect(validate(idOf(`protocol/${method}#/$defs/result`), { ok: false, error })).toEqual({ ok: true });
        const outcome: CastOutcome = { entity_id: 'e', status: 'truncated', truncation_cause: 'crystal_error', error, usage: USAGE };
        expect(validate(idOf('protocol/cast#/$defs/outcome'), outcome)).toEqual({ ok: true });
        const record: GateCallRecord = { tool_call_id: 'tc', gate: 'read', ok: false, error: { name: 'Error', message: 'no', ...(code !== undefined && { code }) } };
        expect(validate('gate-call-record', record)).toEqual({ ok: true });
      }),
    );
  });
});

// ---------------------------------------------------------------------------------------------------------
// Fixtures: fixtures/schemas/<name>/{valid-*,invalid-*}.json and expect.json.

interface Expectation {
  pointer?: string;
  keyword?: string;
  rule?: string;
}

function expectations(folder: string): Record<string, Expectation[]> {
  const file = join(FIXTURE_DIR, folder, 'expect.json');
  if (!existsSync(file)) return {};
  const raw = readJson(file);
  if (!isObject(raw)) throw new Error(`${file}: must be an object mapping fixture files to expectations`);
  const out: Record<string, Expectation[]> = {};
  for (const [fixture, value] of Object.entries(raw)) {
    const list = Array.isArray(value) ? value : [value];
    out[fixture] = list.map((entry, i) => {
      const ok =
        isObject(entry) &&
        (typeof entry.pointer === 'string' || typeof entry.keyword === 'string') &&
        Object.keys(entry).every((key) => ['pointer', 'keyword', 'rule'].includes(key));
      if (!ok) throw new Error(`${file}: entry ${fixture}[${i}] needs a pointer and/or keyword (and optionally a rule), nothing else`);
      return entry as Expectation;
    });
  }
  return out;
}

const matches = (problem: SchemaProblem, wanted: Expectation): boolean =>
  (wanted.pointer === undefined || problem.pointer === wanted.pointer) &&
  (wanted.keyword === undefined || problem.keyword === wanted.keyword);

describe('fixtures', () => {
  const schemas = schemaNames();
  const folders = fixtureFolders();

  it('every fixture folder names a schema', () => {
    expect(folders.filter((folder) => !schemas.includes(folder))).toEqual([]);
  });

  it.each(schemas)('%s: has a fixture folder with at least one valid and two invalid examples', (name) => {
    const dir = join(FIXTURE_DIR, name);
    const files = existsSync(dir) ? readdirSync(dir) : [];
    expect(files.filter((file) => /^valid-.+\.json$/.test(file)).length).toBeGreaterThanOrEqual(1);
    expect(files.filter((file) => /^invalid-.+\.json$/.test(file)).length).toBeGreaterThanOrEqual(2);
  });

  describe.each(folders)('%s', (folder) => {
    const files = readdirSync(join(FIXTURE_DIR, folder)).filter((file) => file.endsWith('.json'));
    const valid = files.filter((file) => file.startsWith('valid-'));
    const invalid = files.filter((file) => file.startsWith('invalid-'));
    const expected = expectations(folder);

    it('holds only valid-*, invalid-* and expect.json files', () => {
      expect(files.filter((file) => !valid.includes(file) && !invalid.includes(file) && file !== 'expect.json')).toEqual([]);
    });

    it('expect.json, when present, covers every invalid fixture and names no other file', () => {
      if (Object.keys(expected).length === 0) {
        expect(existsSync(join(FIXTURE_DIR, folder, 'expect.json'))).toBe(false);
        return;
      }
      expect(Object.keys(expected).sort()).toEqual([...invalid].sort());
    });

    it.each(valid)('%s is accepted', (file) => {
      expect(validate(folder, readJson(join(FIXTURE_DIR, folder, file)))).toEqual({ ok: true });
    });

    const label = (file: string) => {
      const rules = [...new Set((expected[file] ?? []).flatMap((e) => (e.rule ? [e.rule] : [])))];
      return rules.length > 0 ? ` (${rules.join(', ')})` : '';
    };
    it.each(invalid.map((file) => [file, label(file)]))('%s is rejected for its stated reason%s', (file) => {
      const result = validate(folder, readJson(join(FIXTURE_DIR, folder, file)));
      expect(result.ok).toBe(false);
      const problems = result.ok ? [] : result.problems;
      for (const wanted of expected[file] ?? []) {
        expect(problems.filter((problem) => matches(problem, wanted)), `${JSON.stringify(wanted)} among ${JSON.stringify(problems)}`).not.toEqual([]);
      }
    });
  });
});

// ---------------------------------------------------------------------------------------------------------
// The cross-field rules, searched exhaustively-ish with fast-check rather than by a few hand-picked cases.

const USAGE: Usage = { prompt: 1, completion: 1, cached: 0 };
const TOOL_CALL: ToolCall = { id: 'call_1', gate: 'done', arguments: '{}' };
const TURN: Turn = {
  id: 't2', parent_id: 't1', cantrip_id: 'c', entity_id: 'e', role: 'crystal', sequence: 1, utterance: '',
  observation: '', gate_calls: [], reward: null, terminated: false, truncated: false,
  metadata: { tokens_prompt: 0, tokens_completion: 0, tokens_cached: 0, duration_ms: 0, timestamp: '2025-01-01T00:00:00Z' },
};

describe('cross-field rules', () => {
  it('CRYSTAL-3: a response is accepted exactly when it has content or at least one tool call', () => {
    fc.assert(
      fc.property(fc.option(fc.string()), fc.option(fc.nat({ max: 2 }), { nil: undefined }), (content, calls) => {
        const response: CrystalResponse = { content, usage: USAGE };
        if (calls !== undefined) response.tool_calls = Array.from({ length: calls }, (_, i) => ({ ...TOOL_CALL, id: `c${i}` }));
        const expected = content !== null || (calls ?? 0) > 0;
        expect(validate('crystal-response', response).ok).toBe(expected);
      }),
      { numRuns: 200 },
    );
  });

  it('LOOM-7: terminated and truncated are never both true; a truncation names its cause and only then', () => {
    const causes = [undefined, null, 'max_turns', 'timeout', 'max_tokens', 'parent_terminated', 'crystal_error'] as const;
    fc.assert(
      fc.property(fc.boolean(), fc.boolean(), fc.constantFrom(...causes), (terminated, truncated, cause) => {
        const turn: Turn = { ...TURN, terminated, truncated };
        if (cause !== undefined) turn.truncation_cause = cause;
        const expected = !(terminated && truncated) && (truncated ? typeof cause === 'string' : typeof cause !== 'string');
        expect(validate('turn', turn).ok).toBe(expected);
      }),
    );
  });

  it('CIRCLE-5: a gate call record carries error exactly when it failed, and result only when it succeeded', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.boolean(), fc.boolean(), (ok, withResult, withError) => {
        const record: GateCallRecord = { tool_call_id: 'tc', gate: 'read', ok };
        if (withResult) record.result = 'text';
        if (withError) record.error = { name: 'Error', message: 'no such file' };
        const expected = ok ? !withError : withError && !withResult;
        expect(validate('gate-call-record', record).ok).toBe(expected);
      }),
    );
  });

  it('CALL-4: a call turn, with or without the kit field `call` (the spec names none), with or without an entity and at any sequence; other turns an entity and sequence from 1 (a call on them is their own field)', () => {
    const call: CallRecord = { system_prompt: null, hyperparameters: {} };
    fc.assert(
      fc.property(fc.constantFrom<TurnRole>('crystal', 'call'), fc.boolean(), fc.boolean(), fc.nat({ max: 2 }), (role, withCall, withEntity, sequence) => {
        const turn: Turn = { ...TURN, role, sequence, entity_id: withEntity ? 'e' : null };
        if (withCall) turn.call = call;
        const expected = role === 'call' ? true : withEntity && sequence >= 1;
        expect(validate('turn', turn).ok).toBe(expected);
      }),
    );
  });

  it('CIRCLE-4: tool_call_id is required on tool messages and refused on the others', () => {
    fc.assert(
      fc.property(fc.constantFrom<MessageRole>('system', 'user', 'assistant', 'tool'), fc.boolean(), (role, withId) => {
        const message: Message = { role, content: 'x' };
        if (withId) message.tool_call_id = 'call_1';
        expect(validate('message', message).ok).toBe(role === 'tool' ? withId : !withId);
      }),
    );
  });
});

// ---------------------------------------------------------------------------------------------------------
// The loader: problems name where (a JSON pointer) and which keyword failed.

describe('schemas/loader.ts', () => {
  const userMessage: Message = { role: 'user', content: 'hello' };

  it('validate accepts a valid record with { ok: true }', () => {
    expect(validate('crystal-request', { messages: [userMessage] })).toEqual({ ok: true });
  });

  it('a missing property is reported at its own pointer with keyword required', () => {
    const result = validate('crystal-request', {});
    expect(result).toEqual({ ok: false, problems: [expect.objectContaining({ pointer: '/messages', keyword: 'required' })] });
  });

  it('a nested problem is reported at its full pointer', () => {
    const result = validate('crystal-request', { messages: [userMessage, { role: 'human', content: 'x' }] });
    expect(result.ok ? [] : result.problems.map((p) => [p.pointer, p.keyword])).toContainEqual(['/messages/1/role', 'enum']);
  });

  it('an extra property is reported at its pointer, escaped per RFC 6901', () => {
    const result = validate('usage', { ...USAGE, 'a/b~c': 1 });
    expect(result.ok ? [] : result.problems.map((p) => [p.pointer, p.keyword])).toEqual([['/a~1b~0c', 'additionalProperties']]);
  });

  it('a problem with the whole value is reported at the root pointer /', () => {
    const result = validate('crystal-response', { content: null, usage: USAGE });
    expect(result.ok ? [] : result.problems.map((p) => [p.pointer, p.keyword])).toContainEqual(['/', 'anyOf']);
  });

  it('formatProblems writes one line per problem, each starting with its pointer', () => {
    const problems: SchemaProblem[] = [
      { pointer: '/a', message: 'is required', keyword: 'required' },
      { pointer: '/b/0', message: 'must be string', keyword: 'type' },
    ];
    const lines = formatProblems(problems).split('\n');
    expect(lines.map((line) => line.trim().split(':')[0])).toEqual(['/a', '/b/0']);
  });

  it('assertValid passes a valid value and throws with every problem line for an invalid one', () => {
    expect(assertValid('usage', USAGE)).toBeUndefined();
    const bad = { prompt: -1, completion: 0 };
    const result = validate('usage', bad);
    expect(result.ok).toBe(false);
    const lines = formatProblems(result.ok ? [] : result.problems);
    expect(lines.split('\n')).toHaveLength(2);
    expect(() => assertValid('usage', bad)).toThrow(lines);
  });

  it('validator resolves a short name and a full $id to the same compiled function', () => {
    expect(validator('turn')).toBe(validator(`${SCHEMA_BASE}turn.schema.json`));
  });

  it('an unknown schema name throws, naming the $id it looked for', () => {
    expect(() => validator('no-such-record')).toThrow(`${SCHEMA_BASE}no-such-record.schema.json`);
  });
});

/**
 * Loads every JSON Schema in this folder (and `protocol/`), compiles each once with ajv in 2020-12 mode
 * with formats, and turns ajv's errors into readable lines that name the JSON pointer.
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

const SCHEMA_DIR = dirname(fileURLToPath(import.meta.url));

/** One problem found in a value: where (a JSON pointer, `/` for the root) and what. */
export interface SchemaProblem {
  pointer: string;
  message: string;
  /** The ajv keyword that failed (`required`, `type`, `additionalProperties`...). */
  keyword: string;
}

export type Validation = { ok: true } | { ok: false; problems: SchemaProblem[] };

let ajv: Ajv2020 | undefined;
const compiled = new Map<string, ValidateFunction>();

function schemaFiles(): string[] {
  const dirs = [SCHEMA_DIR, join(SCHEMA_DIR, 'protocol')].filter(existsSync);
  return dirs.flatMap((dir) =>
    readdirSync(dir)
      .filter((file) => file.endsWith('.schema.json'))
      .map((file) => join(dir, file)),
  );
}

function instance(): Ajv2020 {
  if (ajv) return ajv;
  // Built in a local and published only once every file loaded, so a failed load is retried, not half-kept.
  // No inlined $refs and no codegen optimisation passes: the big schemas (test-case, report) compile in
  // about a third of the time, the validators run as fast and find the same problems (issue 15).
  const fresh = new Ajv2020({ allErrors: true, strict: true, inlineRefs: false, code: { optimize: false } });
  addFormats(fresh);
  for (const file of schemaFiles()) {
    let schema: { $id?: string };
    try {
      schema = JSON.parse(readFileSync(file, 'utf8')) as { $id?: string };
    } catch (error) {
      throw new Error(`${file}: not valid JSON: ${(error as Error).message}`, { cause: error });
    }
    if (!schema.$id) throw new Error(`${file}: schema has no $id`);
    try {
      fresh.addSchema(schema);
    } catch (error) {
      // ajv's own message names the keyword but not the file; one bad file must not be a riddle.
      throw new Error(`${file}: ${(error as Error).message}`, { cause: error });
    }
  }
  ajv = fresh;
  return ajv;
}

/** The `$id`s of every schema the loader knows, e.g. `https://cantrip.dev/schemas/turn.schema.json`. */
export function schemaIds(): string[] {
  return Object.keys(instance().schemas).filter((id) => id.startsWith('http'));
}

/** Whether a record schema is installed yet, so checks that need it report "skipped", never "passed". */
export function hasSchema(name: string): boolean {
  return schemaIds().includes(`${SCHEMA_BASE}${name}.schema.json`);
}

/** Resolves a short name (`turn`, `protocol/describe`) or a full `$id` to the compiled validator. */
export function validator(name: string): ValidateFunction {
  const id = name.startsWith('http') ? name : `${SCHEMA_BASE}${name}.schema.json`;
  let validate = compiled.get(id);
  if (!validate) {
    validate = instance().getSchema(id);
    if (!validate) throw new Error(`unknown schema '${name}' (looked for ${id})`);
    compiled.set(id, validate);
  }
  return validate;
}

/** The common prefix of every schema `$id` in this kit. */
export const SCHEMA_BASE = 'https://cantrip.dev/schemas/';

/** Validates `value` against the schema named `name`. */
export function validate(name: string, value: unknown): Validation {
  const check = validator(name);
  if (check(value)) return { ok: true };
  return { ok: false, problems: (check.errors ?? []).map(toProblem) };
}

/** Like {@link validate} but throws one error listing every problem. */
export function assertValid(name: string, value: unknown, what = name): void {
  const result = validate(name, value);
  if (!result.ok) throw new Error(`${what} does not match schema '${name}':\n${formatProblems(result.problems)}`);
}

/** One line per problem: `  /path/to/field: message`. */
export function formatProblems(problems: SchemaProblem[]): string {
  return problems.map((p) => `  ${p.pointer}: ${p.message}`).join('\n');
}

function toProblem(error: ErrorObject): SchemaProblem {
  let pointer = error.instancePath || '/';
  let message = error.message ?? 'is invalid';
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params as { additionalProperty: string }).additionalProperty;
    pointer = `${error.instancePath}/${escapePointer(extra)}`;
    message = 'is not an allowed property';
  } else if (error.keyword === 'enum') {
    // Ajv says only "must be equal to one of the allowed values": name them, so the reason is enough to fix
    // the record (harness/judge/schema-rules.ts reads the keyword back from this wording).
    const allowed = (error.params as { allowedValues: unknown[] }).allowedValues;
    message = `must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`;
  } else if (error.keyword === 'const') {
    // `must be equal to null`, not `must be null`, which reads as a type failure (harness/judge/schema-rules.ts).
    message = `must be equal to ${JSON.stringify((error.params as { allowedValue: unknown }).allowedValue)}`;
  } else if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty;
    pointer = `${error.instancePath}/${escapePointer(missing)}`;
    message = 'is required';
  }
  return { pointer, message, keyword: error.keyword };
}

/** RFC 6901: a key holding `~` or `/` must be escaped, or the pointer would name a different path. */
function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

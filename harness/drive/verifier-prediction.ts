/**
 * What a case's verifiers (feature `verifier-wards`) say about a gate call the mock crystal serves, so
 * the outcome watch knows when refusals in a row have reached the case's `max_rejections` ward and the
 * cast's outcome is decided (LOOP-4). The verdict follows the contract in `schemas/adapter.ts`: a call
 * is refused when some verifier refuses it. Only calls to gates of the case's circle are judged: a call
 * to an unknown gate fails for another reason and is no refusal.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import type { VerifierSetup } from '../../schemas/adapter.ts';

export type VerdictOnCall = (gate: string, argumentsJson: string) => boolean;

/**
 * Compiled argument schemas by their text. A new Ajv instance compiles the 2020-12 meta-schema first,
 * about 8 ms, and properties judge hundreds of generated cases; one shared instance does that once.
 * A schema with its own `$id` gets an instance of its own, since two cases may give one id two meanings.
 */
const compiled = new Map<string, ValidateFunction>();
let shared: Ajv2020 | undefined;
function compileArguments(schema: unknown): ValidateFunction {
  const text = JSON.stringify(schema);
  let validate = compiled.get(text);
  if (!validate) {
    const own = typeof schema === 'object' && schema !== null && '$id' in schema;
    validate = (own ? new Ajv2020({ strict: false }) : (shared ??= new Ajv2020({ strict: false }))).compile(schema as object);
    if (!own) compiled.set(text, validate);
  }
  return validate;
}

/** A judge of calls for these verifiers over a circle with these gates: true when the call is refused. */
export function refusalJudge(verifiers: readonly VerifierSetup[], gates: ReadonlySet<string>): VerdictOnCall {
  const schemas = new Map<VerifierSetup, ValidateFunction>();
  for (const v of verifiers) if (v.kind === 'arguments_schema') schemas.set(v, compileArguments(v.schema));
  return (gate, argumentsJson) => {
    if (!gates.has(gate)) return false;
    let args: unknown;
    try {
      args = JSON.parse(argumentsJson);
    } catch {
      return false;
    }
    return verifiers.some((v) =>
      v.kind === 'allow_deny' ? (v.deny ?? []).includes(gate) || (v.allow !== undefined && !v.allow.includes(gate)) : v.gate === gate && !schemas.get(v)!(args),
    );
  };
}

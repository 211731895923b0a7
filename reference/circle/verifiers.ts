import { Ajv2020 } from 'ajv/dist/2020.js';
import type { GateCallRecord } from '../../schemas/index.ts';
import { CantripError } from '../errors.ts';

/**
 * Verifiers: wards that narrow what a gate may be asked to do (§4.4: "a ward that restricts a gate's
 * reach"). Each is a deterministic check of one gate call, run by the circle before the gate runs
 * (CIRCLE-6): the entity cannot skip it, and it costs no crystal query. The idea comes from
 * Passepartout's priority-ordered stack of deterministic gates (seed 001).
 */
export interface Verifier {
  /** Names the verifier in the refusal the entity sees. */
  readonly name: string;
  /** Why the call is refused, or undefined when it may go ahead. Pure: the same call, the same verdict. */
  check(gate: string, args: Readonly<Record<string, unknown>>): string | undefined;
  /** True when the verifier refuses every call of `gate` whatever its arguments (used to keep `done` reachable). */
  forbids(gate: string): boolean;
}

/** One verifier's refusal of one gate call. */
export interface Rejection {
  verifier: string;
  reason: string;
}

/** What a refused gate call throws; the circle turns it into the failed record the entity sees (CIRCLE-5). */
export class VerifierRejection extends CantripError {
  override readonly name = 'VerifierRejected';
  constructor(readonly rejection: Rejection, gate: string) {
    super('verifier_rejected', `verifier '${rejection.verifier}' refused this call of ${gate}: ${rejection.reason}`);
  }
}

/** A gate table (CIRCLE-6): `deny` refuses the gates it lists; `allow`, when given, refuses every gate it does not list. */
export function allowDenyVerifier(name: string, table: { allow?: readonly string[]; deny?: readonly string[] }): Verifier {
  const allow = table.allow === undefined ? undefined : new Set(table.allow);
  const deny = new Set(table.deny ?? []);
  const forbids = (gate: string): boolean => deny.has(gate) || (allow !== undefined && !allow.has(gate));
  return Object.freeze({
    name,
    forbids,
    check: (gate: string) => (!forbids(gate) ? undefined : deny.has(gate) ? `${gate} is on the deny list` : `${gate} is not on the allow list`),
  });
}

/** One Ajv for every verifier; compiled schemas kept by their text, since compiling costs far more than a cast's checks. */
// addUsedSchema off: two circles' schemas that share an $id must not collide in the shared instance.
const ajv = new Ajv2020({ allErrors: false, strict: false, addUsedSchema: false });
const compiled = new Map<string, ReturnType<Ajv2020['compile']>>();
const MAX_COMPILED = 256;

function compiledSchema(schema: Record<string, unknown>): ReturnType<Ajv2020['compile']> {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(schema);
    // A bound, so a long-lived process building circles from many different schemas does not grow forever.
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
    compiled.set(key, validate);
  }
  return validate;
}

/**
 * Checks the arguments of every call to `gate` against a JSON Schema. The schema is compiled here, when
 * the circle is built, not when the gate is called (CIRCLE-10); a schema that does not compile is
 * refused with `invalid_ward`.
 */
export function argumentsSchemaVerifier(name: string, gate: string, schema: Record<string, unknown>): Verifier {
  let validate: ReturnType<Ajv2020['compile']>;
  try {
    validate = compiledSchema(schema);
  } catch (error) {
    throw new CantripError('invalid_ward', `verifier '${name}': the schema does not compile: ${(error as Error).message}`);
  }
  return Object.freeze({
    name,
    forbids: () => false,
    check(called: string, args: Readonly<Record<string, unknown>>) {
      if (called !== gate || validate(args)) return undefined;
      const [first] = validate.errors ?? [];
      return first ? `arguments ${first.instancePath || '(root)'} ${first.message ?? 'do not match the schema'}` : 'arguments do not match the schema';
    },
  });
}

/**
 * Runs the verifiers on one call in their priority order (the order they were declared) and returns the
 * first refusal: later verifiers are not consulted once one has refused, so the refusal names it (CIRCLE-6).
 */
export function firstRejection(verifiers: readonly Verifier[], gate: string, args: Readonly<Record<string, unknown>>): Rejection | undefined {
  for (const verifier of verifiers) {
    const reason = verifier.check(gate, args);
    if (reason !== undefined) return { verifier: verifier.name, reason };
  }
  return undefined;
}

/** Throws the refusal of the first verifier that refuses the call; the gate must then not run (CIRCLE-6). */
export function verifyCall(verifiers: readonly Verifier[], gate: string, args: Readonly<Record<string, unknown>>): void {
  const rejection = firstRejection(verifiers, gate, args);
  if (rejection) throw new VerifierRejection(rejection, gate);
}

/** Whether a gate call record is a verifier's refusal (the failed record the entity sees, CIRCLE-5). */
export function isRejection(record: GateCallRecord): boolean {
  return !record.ok && record.error?.code === 'verifier_rejected';
}

/**
 * The run of refused calls after a turn: it grows by each refused call and starts again at any call that
 * was not refused. The loop truncates the cast when it reaches the `maxRejections` ward (LOOP-4).
 */
export function rejectionStreak(before: number, records: readonly GateCallRecord[]): number {
  let streak = before;
  for (const record of records) streak = isRejection(record) ? streak + 1 : 0;
  return streak;
}

/** Checks a circle's verifiers once, at construction (CIRCLE-10): names are unique, since a refusal names one. */
export function checkVerifiers(verifiers: readonly Verifier[]): void {
  const seen = new Set<string>();
  for (const verifier of verifiers) {
    if (seen.has(verifier.name)) throw new CantripError('invalid_ward', `two verifiers are named '${verifier.name}'`);
    seen.add(verifier.name);
  }
}

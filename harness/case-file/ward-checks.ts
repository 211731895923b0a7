/**
 * Load-time checks on the lineage wards a case sets (features `verifier-wards`, `child-circle-wards`)
 * that the case schema cannot express. Each problem is a JSON pointer into the case and what is wrong,
 * reported by the loader at file:line:col.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Case } from './types.ts';

type Problem = [pointer: string, message: string];

/**
 * - a case that sets verifiers or `max_rejections` must require `verifier-wards`, and one that sets
 *   `child_limits` must require `child-circle-wards`: otherwise an implementation without the feature
 *   would run it, ignore the ward, and fail a case it was never asked to pass;
 * - verifier names are unique in the circle (a refusal names its verifier, so two of a name say nothing);
 * - an `arguments_schema` verifier names a gate of the circle and carries a schema that compiles.
 */
export function checkLineageWards(c: Case, at: string): Problem[] {
  const problems: Problem[] = [];
  const circle = c.setup.circle;
  if (!circle) return problems;
  const requires = new Set<string>(c.requires ?? []);
  const here = `${at}/setup/circle`;
  if (circle.verifiers !== undefined && !requires.has('verifier-wards')) problems.push([`${here}/verifiers`, 'a case that sets verifiers must list verifier-wards in requires']);
  if (circle.wards?.max_rejections !== undefined && !requires.has('verifier-wards')) {
    problems.push([`${here}/wards/max_rejections`, 'a case that sets max_rejections must list verifier-wards in requires']);
  }
  if (circle.child_limits !== undefined && !requires.has('child-circle-wards')) {
    problems.push([`${here}/child_limits`, 'a case that sets child_limits must list child-circle-wards in requires']);
  }
  const gates = new Set(circle.gates.map((g) => (typeof g === 'string' ? g : g.name)));
  const names = new Map<string, number>();
  (circle.verifiers ?? []).forEach((v, i) => {
    const first = names.get(v.name);
    if (first !== undefined) problems.push([`${here}/verifiers/${i}/name`, `duplicate verifier name '${v.name}' (first used by verifier ${first})`]);
    else names.set(v.name, i);
    if (v.kind !== 'arguments_schema') return;
    if (!gates.has(v.gate)) problems.push([`${here}/verifiers/${i}/gate`, `'${v.gate}' is not a gate of this circle`]);
    const problem = schemaProblem(v.schema);
    if (problem !== undefined) problems.push([`${here}/verifiers/${i}/schema`, `not a usable JSON Schema: ${problem}`]);
  });
  return problems;
}

/** Why a JSON Schema does not compile, or undefined when it does. */
function schemaProblem(schema: Record<string, unknown>): string | undefined {
  try {
    new Ajv2020({ strict: false }).compile(schema);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

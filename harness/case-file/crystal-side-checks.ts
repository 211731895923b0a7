/**
 * Load-time checks on the crystal-side vocabulary of issue 30 that the case schema cannot express. Each
 * problem is a JSON pointer into the case and what is wrong, reported by the loader at file:line:col.
 */
import { placedSteps } from './script-steps.ts';
import type { Case } from './types.ts';

type Problem = [pointer: string, message: string];

/**
 * A circle given two medium declarations at once (`medium: [a, b]`) belongs to a case about MEDIUM-1
 * that reads the construct's refusal (`errors.main`): refusing such a setup is the answer the rule most
 * plainly asks for, so a case that does not judge it would take the refusal for a setup it could do
 * without and skip (harness/drive/refused-setup.ts).
 *
 * A `construct` action that keeps some of the setup circle's `gates` names only gates that circle has,
 * done among them.
 *
 * A step with `provider_tools` (LLM-7) is served through the callback only: the crystal server's wire
 * formats do not carry a provider's own tool runs yet, so over a wire the case would pass without the
 * implementation ever seeing one. Its case must name `transports: [callback]`.
 */
export function checkCrystalSideVocabulary(c: Case, at: string): Problem[] {
  const problems: Problem[] = [];
  if (Array.isArray(c.setup.circle?.medium)) {
    const where = `${at}/setup/circle/medium`;
    if (!c.rules.includes('MEDIUM-1')) problems.push([where, 'a circle with two medium declarations belongs to a case about MEDIUM-1: add it to rules']);
    if (!c.expect.some((e) => e.path === 'errors.main')) problems.push([where, 'a circle with two medium declarations needs an expectation on errors.main: its refusal is an answer the case must judge']);
  }
  const setupGates = new Set((c.setup.circle?.gates ?? []).map((g) => (typeof g === 'string' ? g : g.name)));
  c.act.forEach((action, i) => {
    if (!('construct' in action) || action.construct.gates === undefined) return;
    const where = `${at}/act/${i}/construct/gates`;
    const unknown = action.construct.gates.filter((g) => !setupGates.has(g));
    if (unknown.length > 0) problems.push([where, `construct can only keep gates of setup.circle; not there: ${unknown.join(', ')}`]);
    if (!action.construct.gates.includes('done')) problems.push([where, 'construct with gates must keep done: a circle without it is refused (CIRCLE-1), which is not what such a case is about']);
  });
  const callbackOnly = c.transports !== undefined && c.transports.length === 1 && c.transports[0] === 'callback';
  for (const { pointer, step } of placedSteps(c)) {
    if (step.provider_tools !== undefined && !callbackOnly) problems.push([`${at}${pointer}/provider_tools`, 'a case with a step that carries provider_tools must name transports: [callback] (the wire formats do not carry them yet)']);
  }
  return problems;
}

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
  const callbackOnly = c.transports !== undefined && c.transports.length === 1 && c.transports[0] === 'callback';
  for (const { pointer, step } of placedSteps(c)) {
    if (step.provider_tools !== undefined && !callbackOnly) problems.push([`${at}${pointer}/provider_tools`, 'a case with a step that carries provider_tools must name transports: [callback] (the wire formats do not carry them yet)']);
  }
  return problems;
}

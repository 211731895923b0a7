/**
 * A small model of composition, from the spec's rules and the harness's composition conventions
 * (docs/INTERPRETING.md): for a composition scenario it predicts which children run, with which
 * tools, for how many turns, and what the parent's delegation gate call returns.
 *
 * Rules modelled: COMP-1 (a child's gates are done plus the subset asked for, all the parent's when
 * none is asked for; a gate the parent lacks is refused with `gate_not_granted`), COMP-6 (at the
 * default depth children get no delegation gate), WARD-1 (a child's turn cap is the smaller of the
 * parent's and its own), LOOP-3/LOOP-6 (done or text ends a child), CRYSTAL-3 (an invalid reply ends
 * it), COMP-8 (a child that did not finish is a `child_failed` error), COMP-3 (batch entries in
 * request order).
 */
import type { ScriptStep } from '../case-types.ts';
import { LACKING_GATE, PARENT_TEST_GATES, type ChildScenario, type CompositionScenario } from './composition-scenario.ts';

export const PARENT_INTENT = 'delegate the work';
/** The text and tool call id of the parent's note, made before it delegates. */
export const PARENT_NOTE = { id: 'parent-note', text: 'parent only note' } as const;
/** Child intents are `child-1` ... `child-5`: none contains another, so `by_intent` routes each exactly. */
export const childIntent = (k: number): string => `child-${k + 1}`;

/** What the parent's gate call gets back for one child. */
export type ChildAnswer = { ok: true; result: unknown } | { ok: false; code: 'child_failed' | 'gate_not_granted' };

export interface PlannedChild {
  intent: string;
  /** The child request as the parent sends it. */
  request: Record<string, unknown>;
  /** False when the request is refused (a gate the parent lacks): the child never queries its crystal. */
  runs: boolean;
  /** Tool names every request of the child must offer, sorted (done included). */
  tools: string[];
  /** Its turn cap: min(parent, own) (WARD-1). */
  limit: number;
  /** Steps of its script; the ones past its end are never served. */
  script: ScriptStep[];
  /** Crystal queries it makes (0 when refused). */
  turns: number;
  /** It is cut off by its turn cap. */
  truncatedByCap: boolean;
  answer: ChildAnswer;
}

export interface CompositionPlan {
  scenario: CompositionScenario;
  gate: 'call_entity' | 'call_entity_batch';
  /** The parent's test gates, in circle order. */
  parentGates: string[];
  children: PlannedChild[];
  /** Index in the parent's cast of the turn that delegates. */
  spawnTurn: number;
  /** Crystal turns of the parent's cast (it always ends with its own done). */
  parentTurns: number;
  /** The parent's script. */
  parentScript: ScriptStep[];
}

const echoStep = (text: string): ScriptStep => ({ tool_calls: [{ gate: 'echo', args: { text } }] });

function planChild(c: ChildScenario, k: number, s: CompositionScenario, parentGates: string[]): PlannedChild {
  const intent = childIntent(k);
  const asked = c.gates?.filter((g) => parentGates.includes(g)) ?? null;
  // A refused request in a batch would leave its slot's shape to the implementation: single calls only.
  const lacking = c.lacking && !s.batch;
  const request: Record<string, unknown> = { intent };
  if (asked !== null || lacking) request.gates = [...(asked ?? []), ...(lacking ? [LACKING_GATE] : [])];
  if (c.max_turns !== null) request.max_turns = c.max_turns;
  const limit = Math.min(s.max_turns, c.max_turns ?? Infinity);
  const tools = ['done', ...(asked ?? parentGates)].sort();
  const work = Array.from({ length: c.work }, (_, j) => echoStep(`${intent} work ${j + 1}`));
  let script: ScriptStep[];
  switch (c.ending.kind) {
    case 'done':
      script = [...work, { tool_calls: [{ gate: 'done', args: { answer: c.ending.answer } }] }];
      break;
    case 'text':
      script = [...work, { content: c.ending.text }];
      break;
    case 'invalid':
      script = [...work, { content: null, tool_calls: [], raw: true }];
      break;
    case 'overrun':
      // One echo more than the cap allows, so a child given an extra turn still has a reply.
      script = Array.from({ length: limit + 1 }, (_, j) => echoStep(`${intent} work ${j + 1}`));
      break;
  }
  const first = script[0];
  // A lone child has no sibling to overtake: its delay would only cost time.
  if (first && c.delay_ms > 0 && s.batch) script[0] = { ...first, delay_ms: c.delay_ms };
  if (lacking) return { intent, request, runs: false, tools, limit, script: [], turns: 0, truncatedByCap: false, answer: { ok: false, code: 'gate_not_granted' } };
  const truncatedByCap = script.length > limit;
  const turns = Math.min(script.length, limit);
  const finished = !truncatedByCap && (c.ending.kind === 'done' || c.ending.kind === 'text');
  const result = c.ending.kind === 'done' ? c.ending.answer : c.ending.kind === 'text' ? c.ending.text : undefined;
  return { intent, request, runs: true, tools, limit, script, turns, truncatedByCap, answer: finished ? { ok: true, result } : { ok: false, code: 'child_failed' } };
}

/** Predicts a composition scenario (COMP-1, COMP-3, COMP-6, COMP-8, WARD-1). */
export function planComposition(s: CompositionScenario): CompositionPlan {
  const parentGates = PARENT_TEST_GATES.filter((g) => g !== 'counter' || s.counter);
  const chosen = s.batch ? s.children : s.children.slice(0, 1);
  const children = chosen.map((c, k) => planChild(c, k, s, parentGates));
  const gate = s.batch ? 'call_entity_batch' : 'call_entity';
  const args = s.batch ? { intents: children.map((c) => c.request) } : (children[0]?.request ?? {});
  const parentScript: ScriptStep[] = [
    ...(s.before ? [{ tool_calls: [{ gate: 'echo', args: { text: PARENT_NOTE.text }, id: PARENT_NOTE.id }] }] : []),
    { tool_calls: [{ gate, args }] },
    { tool_calls: [{ gate: 'done', args: { answer: s.answer } }] },
  ];
  const spawnTurn = s.before ? 1 : 0;
  return { scenario: s, gate, parentGates, children, spawnTurn, parentTurns: parentScript.length, parentScript };
}

/** Crystal steps in the case: the parent's and every child's. */
export const compositionSteps = (p: CompositionPlan): number => p.parentScript.length + p.children.reduce((n, c) => n + c.script.length, 0);

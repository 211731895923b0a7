/**
 * A small model of composition, from the spec's rules: for a composition scenario it predicts which
 * children run, for how many turns, and what the parent's delegation gate call must return.
 *
 * Rules modelled: WARD-1 (a child's turn cap is the smaller of the parent's and its own), COMP-6 (the
 * parent sets max_depth 1, so its children are at depth 0), LOOP-3/LOOP-6 (done or text ends a child),
 * CRYSTAL-3 (a reply with neither text nor gate calls is invalid, so the child fails), COMP-2 (a child's
 * answer is the parent's gate result), COMP-8 (a failed child's error is), COMP-3 (batch answers in
 * request order).
 *
 * What the spec leaves open stays open here, and the model says so rather than picking a side:
 * - a request for a gate the parent lacks may be refused, or the child may run without that gate
 *   (both give it nothing the parent lacks, COMP-1): such a child `maybe` runs;
 * - the parent's gate result for a child cut off by its cap, or ended by a text reply, is not defined
 *   (a cut-off child neither threw nor called done; an implicit termination has no defined result):
 *   its answer is `open`;
 * - how a failed child shows in its batch slot is open; a child that called done shows as its answer;
 * - whether an invalid reply is stored as a turn, and whether it is retried, is open: the counts of a
 *   child whose invalid reply was served are not predicted.
 */
import type { ScriptStep } from '../case-file/index.ts';
import { LACKING_GATE, PARENT_TEST_GATES, type ChildScenario, type CompositionScenario } from './composition-scenario.ts';

export const PARENT_INTENT = 'delegate the work';
/** The text and tool call id of the parent's note, made before it delegates. */
export const PARENT_NOTE = { id: 'parent-note', text: 'parent only note' } as const;
/** Child intents are `child-1` ... `child-5`: none contains another, so `by_intent` routes each exactly. */
export const childIntent = (k: number): string => `child-${k + 1}`;
/** The parent's depth ward: its children are at depth 0 (COMP-6), whatever the implementation's default. */
export const PARENT_MAX_DEPTH = 1;

/** What the parent's gate call must carry back for one child. */
export type ChildAnswer =
  /** The child called done: its answer (COMP-2). */
  | { kind: 'answer'; value: unknown }
  /** The child's crystal failed (an invalid reply): an error (COMP-8). */
  | { kind: 'failed' }
  /** Not defined by the spec (cut off by its cap, ended by text, or maybe never run). */
  | { kind: 'open' };

export interface PlannedChild {
  intent: string;
  /** The child request as the parent sends it. */
  request: Record<string, unknown>;
  /** `maybe`: it asked for a gate the parent lacks, so it may be refused or run without that gate. */
  runs: 'yes' | 'maybe';
  /** Its turn cap: min(parent, own) (WARD-1). */
  limit: number;
  /** Steps of its script; the ones past its cap are never served. */
  script: ScriptStep[];
  /** Crystal queries it makes when it runs. */
  turns: number;
  /** It is cut off by its turn cap. */
  truncatedByCap: boolean;
  /** Its invalid reply is served (it is not cut off first): its query and turn counts are open. */
  invalidServed: boolean;
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

/** A reply with no text and no gate calls: invalid under CRYSTAL-3 on every reading (no empty list, no empty string). */
export const INVALID_STEP: ScriptStep = { content: null, raw: true };

function planChild(c: ChildScenario, k: number, s: CompositionScenario, parentGates: string[]): PlannedChild {
  const intent = childIntent(k);
  const asked = c.gates?.filter((g) => parentGates.includes(g)) ?? null;
  // A refused entry of a batch would leave the whole batch's shape open: single calls only.
  const lacking = c.lacking && !s.batch;
  const request: Record<string, unknown> = { intent };
  if (asked !== null || lacking) request.gates = [...(asked ?? []), ...(lacking ? [LACKING_GATE] : [])];
  if (c.max_turns !== null) request.max_turns = c.max_turns;
  const limit = Math.min(s.max_turns, c.max_turns ?? Infinity);
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
      script = [...work, { ...INVALID_STEP }];
      break;
    case 'overrun':
      // One echo more than the cap allows, so a child given an extra turn still has a reply.
      script = Array.from({ length: limit + 1 }, (_, j) => echoStep(`${intent} work ${j + 1}`));
      break;
  }
  const first = script[0];
  // A lone child has no sibling to overtake: its delay would only cost time.
  if (first && c.delay_ms > 0 && s.batch) script[0] = { ...first, delay_ms: c.delay_ms };
  const truncatedByCap = script.length > limit;
  const turns = Math.min(script.length, limit);
  const invalidServed = c.ending.kind === 'invalid' && !truncatedByCap;
  let answer: ChildAnswer = { kind: 'open' };
  if (!lacking && !truncatedByCap && c.ending.kind === 'done') answer = { kind: 'answer', value: c.ending.answer };
  if (!lacking && invalidServed) answer = { kind: 'failed' };
  return { intent, request, runs: lacking ? 'maybe' : 'yes', limit, script, turns, truncatedByCap, invalidServed, answer };
}

/** Predicts a composition scenario (COMP-2, COMP-3, COMP-6, COMP-8, WARD-1). */
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
